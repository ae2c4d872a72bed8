/**
 * A wallet: overview, PnL totals per quote, positions with realised / unrealised PnL, recent
 * activity, and its funding graph (who funded it, whom it funded) drawn as a small SVG graph.
 * Amounts in human units (token units with the symbol, native in ETH, USD where the API marks a
 * holding); the exact base units or rational is in each figure's title.
 */
import { api, type Session, useApiAt } from '../api.js';
import { BlockPicker } from '../as-of.js';
import { short } from '../format.js';
import { Answered, href, KV, type Route, Table } from '../ui.js';
import { QuoteUnits, type TokenMeta, Units, Usd, useTokenMetas } from '../units.js';

interface Props {
  session: Session;
  chain: string;
  address: string;
  /** The page's route: its `at` is the block the page is shown as of (null: the head, live). */
  route: Route;
}

type Exact = { numerator: string; denominator: string; floor: string };

export function WalletPage({ session, chain, address, route }: Props) {
  const { overview, pnl, positions, activity, fundedBy, funderOf } = useWalletAnswers(
    session,
    chain,
    address,
    route.at,
  );
  // Symbols and decimals of every token and quote the PnL and the positions name.
  const metas = useTokenMetas(session, chain, [
    ...(pnl.kind === 'ok' ? Object.keys(pnl.body.data.realisedByQuote) : []),
    ...(positions.kind === 'ok'
      ? (positions.body.data as Position[]).flatMap((p) => [p.token, p.quote])
      : []),
  ]);
  const meta = (a: string) => metas.get(a.toLowerCase());
  return (
    <div class="page">
      <h1>
        Wallet <code>{address}</code>
      </h1>
      <BlockPicker session={session} chain={chain} route={route} />
      <div class="grid">
        <Answered title="Overview" answer={overview} testid="wallet-overview">
          {(b) => (
            <>
              <KV
                rows={[
                  [
                    'first seen',
                    b.data.firstSeen
                      ? `block ${b.data.firstSeen.block} (${b.data.firstSeen.evidence})`
                      : `— (${b.data.firstSeenReason})`,
                  ],
                ]}
              />
              <Table head={['token', 'balance', 'USD']}>
                {b.data.topHoldings.map((h) => (
                  <tr>
                    <td>
                      <a href={href(chain, 'token', h.token)}>{h.symbol ?? short(h.token)}</a>
                    </td>
                    <td class="num">
                      <Units
                        raw={h.balance}
                        meta={{ symbol: h.symbol, decimals: h.decimals }}
                        testid="holding-balance"
                      />
                    </td>
                    <td class="num">
                      {h.balanceUsd.value ? (
                        <Usd
                          n={h.balanceUsd.value.priceNumerator}
                          d={h.balanceUsd.value.priceDenominator}
                          approx={h.balanceUsd.value.approx}
                          testid="holding-usd"
                        />
                      ) : (
                        <span class="muted" title={h.balanceUsd.reason ?? ''}>
                          —
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </Table>
            </>
          )}
        </Answered>
        <Answered title="PnL per quote asset" answer={pnl} testid="wallet-pnl">
          {(b) => (
            <Table head={['quote', 'realised', 'unrealised']}>
              {Object.entries(b.data.realisedByQuote).map(([q, r]) => {
                const u = b.data.unrealisedByQuote[q];
                return (
                  <tr data-quote={q}>
                    <td>
                      <a href={href(chain, 'token', q)} title={q}>
                        {meta(q)?.symbol ?? short(q)}
                      </a>
                    </td>
                    <td class="num">
                      <QuoteUnits
                        n={r.priceNumerator}
                        d={r.priceDenominator}
                        meta={meta(q)}
                        testid="pnl-realised"
                      />
                    </td>
                    <td class="num">
                      {u ? <QuoteUnits n={u.priceNumerator} d={u.priceDenominator} meta={meta(q)} /> : '—'}
                    </td>
                  </tr>
                );
              })}
            </Table>
          )}
        </Answered>
      </div>
      <PositionsPanel chain={chain} answer={positions} meta={meta} />
      <div class="grid">
        <Answered title="Funding graph" answer={fundedBy} testid="wallet-funding">
          {(b) => (
            <FundingGraph
              chain={chain}
              wallet={address}
              funders={b.data.map((f) => ({
                addr: f.funder,
                label: f.assetKind === 'native' ? 'native' : short(f.asset, 4),
              }))}
              funded={
                funderOf.kind === 'ok'
                  ? funderOf.body.data.map((f) => ({
                      addr: f.wallet,
                      label: f.assetKind === 'native' ? 'native' : short(f.asset, 4),
                    }))
                  : []
              }
            />
          )}
        </Answered>
        <Answered title="Recent activity" answer={activity} testid="wallet-activity">
          {(b) => (
            <Table head={['block', 'tx', 'events']}>
              {b.data.map((a) => (
                <tr>
                  <td>{a.block}</td>
                  <td>
                    <a href={a.txHash ? href(chain, 'tx', a.txHash) : undefined}>
                      <code>{short(a.txHash)}</code>
                    </a>
                  </td>
                  <td>
                    {(a.events as Array<{ type: string; direction?: string }>)
                      .map((e) => e.type + (e.direction ? ` ${e.direction}` : ''))
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Answered>
      </div>
    </div>
  );
}

/**
 * Loads the wallet's answers at the head (overview, PnL, positions and activity refresh every
 * 10 s), or once each as of block `at` (a section whose route does not take atBlock says why).
 */
function useWalletAnswers(session: Session, chain: string, address: string, at: number | null) {
  const c = api(session.key);
  const path = { chain, address };
  const overview = useApiAt(
    '/index/v1/{chain}/wallets/{address}/overview',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/wallets/{address}/overview', { params: { path, query: asOf as never } }),
    [address],
    10_000,
  );
  const pnl = useApiAt(
    '/index/v1/{chain}/wallets/{address}/pnl',
    at,
    (asOf) => c.GET('/index/v1/{chain}/wallets/{address}/pnl', { params: { path, query: asOf as never } }),
    [address],
    10_000,
  );
  const positions = useApiAt(
    '/index/v1/{chain}/wallets/{address}/positions',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/wallets/{address}/positions', {
        params: { path, query: { limit: 50, ...asOf } as never },
      }),
    [address],
    10_000,
  );
  const activity = useApiAt(
    '/index/v1/{chain}/wallets/{address}/activity',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/wallets/{address}/activity', {
        params: { path, query: { limit: 20, order: 'desc', ...asOf } as never },
      }),
    [address],
    10_000,
  );
  const fundedBy = useApiAt(
    '/index/v1/{chain}/wallets/{address}/funded-by',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/wallets/{address}/funded-by', { params: { path, query: asOf as never } }),
    [address],
  );
  const funderOf = useApiAt(
    '/index/v1/{chain}/wallets/{address}/funder-of',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/wallets/{address}/funder-of', {
        params: { path, query: { limit: 20, ...asOf } as never },
      }),
    [address],
  );
  return { overview, pnl, positions, activity, fundedBy, funderOf };
}

type WalletAnswers = ReturnType<typeof useWalletAnswers>;

/** The wallet's positions: quantity, realised and unrealised PnL in quote units, buys / sells. */
function PositionsPanel({
  chain,
  answer,
  meta,
}: {
  chain: string;
  answer: WalletAnswers['positions'];
  meta: (a: string) => TokenMeta | undefined;
}) {
  return (
    <Answered title="Positions" answer={answer} testid="wallet-positions">
      {(b) => (
        <Table head={['token', 'quote', 'quantity', 'realised', 'unrealised', 'buys / sells', 'note']}>
          {(b.data as Position[]).map((p) => (
            <tr data-token={p.token} data-position={`${p.token}:${p.quote}`}>
              <td>
                <a href={href(chain, 'token', p.token)}>{p.symbol ?? short(p.token)}</a>
              </td>
              <td>
                <a href={href(chain, 'token', p.quote)} title={p.quote}>
                  {meta(p.quote)?.symbol ?? short(p.quote)}
                </a>
              </td>
              <td class="num">
                <Units
                  raw={p.quantity}
                  meta={meta(p.token) ?? { symbol: p.symbol, decimals: null }}
                  testid="position-quantity"
                />
              </td>
              <td class="num">
                <QuoteUnits
                  n={p.realised.numerator}
                  d={p.realised.denominator}
                  meta={meta(p.quote)}
                  testid="position-realised"
                />
              </td>
              <td class="num">
                {p.unrealised ? (
                  <QuoteUnits n={p.unrealised.numerator} d={p.unrealised.denominator} meta={meta(p.quote)} />
                ) : (
                  `— (${p.unrealisedReason})`
                )}
              </td>
              <td class="num">
                {p.buys} / {p.sells}
              </td>
              <td class="muted">{[p.markReason, p.abnormalReason].filter(Boolean).join(', ')}</td>
            </tr>
          ))}
        </Table>
      )}
    </Answered>
  );
}

interface Position {
  token: string;
  symbol: string | null;
  quote: string;
  quantity: string;
  realised: Exact;
  unrealised: Exact | null;
  unrealisedReason: string | null;
  markReason: string | null;
  abnormalReason: string | null;
  buys: number;
  sells: number;
}

interface Edge {
  addr: string;
  label: string;
}

/**
 * The wallet in the middle, its funders on the left (arrows in), the wallets it funded on the
 * right (arrows out); one node per address, edges labelled with the assets.
 */
export function FundingGraph(p: { chain: string; wallet: string; funders: Edge[]; funded: Edge[] }) {
  const group = (es: Edge[]) => {
    const m = new Map<string, string[]>();
    for (const e of es) m.set(e.addr, [...(m.get(e.addr) ?? []), e.label]);
    return [...m.entries()].slice(0, 12);
  };
  const left = group(p.funders);
  const right = group(p.funded);
  const rows = Math.max(left.length, right.length, 1);
  const h = 40 + rows * 34;
  const W = 640;
  const cy = h / 2;
  const y = (i: number, n: number) => (h / (n + 1)) * (i + 1);
  const node = (x: number, yy: number, a: string, cls: string) => (
    <a href={href(p.chain, 'wallet', a)}>
      <rect x={x - 62} y={yy - 11} width={124} height={22} rx={5} class={cls} />
      <text x={x} y={yy + 4} text-anchor="middle">
        {short(a, 4)}
      </text>
    </a>
  );
  return (
    <svg
      viewBox={`0 0 ${W} ${h}`}
      class="graph"
      data-testid="funding-graph"
      data-funders={left.length}
      data-funded={right.length}
    >
      <title>Funding graph of {p.wallet}: funders on the left, funded wallets on the right</title>
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerWidth="6"
          markerHeight="6"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#6b7c8f" />
        </marker>
      </defs>
      {left.map(([a, labels], i) => (
        <g>
          <line x1={132} y1={y(i, left.length)} x2={258} y2={cy} class="edge" marker-end="url(#arrow)" />
          <text x={190} y={(y(i, left.length) + cy) / 2 - 4} class="edge-label">
            {[...new Set(labels)].slice(0, 3).join(', ')}
          </text>
          {node(70, y(i, left.length), a, 'n-funder')}
        </g>
      ))}
      {right.map(([a, labels], i) => (
        <g>
          <line x1={382} y1={cy} x2={508} y2={y(i, right.length)} class="edge" marker-end="url(#arrow)" />
          <text x={440} y={(y(i, right.length) + cy) / 2 - 4} class="edge-label">
            {[...new Set(labels)].slice(0, 3).join(', ')}
          </text>
          {node(570, y(i, right.length), a, 'n-funded')}
        </g>
      ))}
      {node(320, cy, p.wallet, 'n-self')}
      {!left.length && !right.length && (
        <text x={W / 2} y={cy + 30} text-anchor="middle" class="edge-label">
          no funding edge indexed
        </text>
      )}
    </svg>
  );
}
