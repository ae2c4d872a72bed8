/**
 * A token: identity and holder count, price (exact rational and decimal) on its venue and quote,
 * window stats, top holders, pools ranked, live candles (`/stream/candles`) and recent AMM events
 * (`/stream/amm-events`). Every panel shows the block it was read at.
 */
import { useState } from 'preact/hooks';
import { api, type Session, useApi, useApiAt } from '../api.js';
import { BlockPicker, LiveOff } from '../as-of.js';
import { CandleChart, type Frame, FramePicker, historyWindow } from '../chart.js';
import { AmmFeed } from '../feed.js';
import { formatUnits, NATIVE, ratioToDecimal, short } from '../format.js';
import { Addr, Answered, href, KV, PoolLink, type Route, Table, WindowCells } from '../ui.js';
import { type TokenMeta, Units, useTokenMetas } from '../units.js';

interface Props {
  session: Session;
  chain: string;
  address: string;
  renew(): Promise<unknown>;
  /** The page's route: its `at` is the block the page is shown as of (null: the head, live). */
  route: Route;
}

export function TokenPage({ session, chain, address, renew, route }: Props) {
  const at = route.at;
  const { token, stats, holders, pools } = useTokenAnswers(session, chain, address, at);
  const decimals = token.kind === 'ok' ? token.body.data.decimals : null;
  const stat = stats.kind === 'ok' ? (stats.body.data as unknown as StatsData) : null;
  const tokenMeta: TokenMeta | null =
    token.kind === 'ok' ? { symbol: token.body.data.symbol, decimals: token.body.data.decimals } : null;
  const ranked = pools.kind === 'ok' ? (pools.body.data as unknown as RankedPool[]) : [];
  const metas = useTokenMetas(session, chain, [
    ...(stat ? [stat.quote] : []),
    ...ranked.flatMap((p) => [p.currency0, p.currency1]),
  ]);
  const meta = (a: string) => metas.get(a.toLowerCase());
  const quoteMeta = stat ? meta(stat.quote) : undefined;
  const subject = { session, chain, address, decimals, at };
  return (
    <div class="page">
      <h1>
        Token {token.kind === 'ok' ? (token.body.data.symbol ?? '(no symbol)') : ''} <code>{address}</code>
      </h1>
      <BlockPicker session={session} chain={chain} route={route} />
      <div class="grid">
        <Answered title="Identity" answer={token} testid="token-identity">
          {({ data: t }) => (
            <KV
              rows={[
                ['name', t.name ?? `— (${t.nameReason})`, 'token-name'],
                ['symbol', t.symbol ?? `— (${t.symbolReason})`, 'token-symbol'],
                ['decimals', t.decimals ?? `— (${t.decimalsReason})`],
                ['kind', `${t.kind}${t.confirmedErc20 ? ', confirmed ERC-20' : ''}`],
                [
                  'holders',
                  t.holderCount.value === null ? `— (${t.holderCount.status})` : t.holderCount.value,
                  'holder-count',
                ],
                ['holder count status', `${t.holderCount.status} at block ${t.holderCount.asOfBlock}`],
                ['supply (from transfers)', formatUnits(t.supplyFromTransfers, t.decimals)],
                ['transfers', t.transfers],
                [
                  'reconciliation',
                  `${t.reconciliation.status} (checked at ${t.reconciliation.checkedAtBlock ?? '—'})`,
                ],
                [
                  'created',
                  t.creation ? (
                    <>
                      block {t.creation.block} by <Addr chain={chain} a={t.creation.deployer} page="wallet" />
                    </>
                  ) : (
                    `— (${t.creationReason})`
                  ),
                ],
                ['first seen', `block ${t.firstSeen.block} (${t.firstSeen.evidence})`],
                ['launch', t.launch ? `${t.launch.launchpad}: ${t.launch.state}` : '—'],
              ]}
            />
          )}
        </Answered>
        {stat ? (
          <PricePanel {...subject} quote={stat.quote} />
        ) : (
          <Answered title="Price" answer={stats}>
            {() => null}
          </Answered>
        )}
      </div>
      <Answered title="Window stats (default venue)" answer={stats} testid="token-stats">
        {(b) => (
          <StatsTable chain={chain} s={b.data as unknown as StatsData} token={tokenMeta} quote={quoteMeta} />
        )}
      </Answered>
      {stat && at === null && <TokenCandles {...subject} quote={stat.quote} renew={renew} route={route} />}
      {at !== null && (
        <LiveOff
          path="/index/v1/{chain}/stream/candles"
          at={at}
          title="Candles (live)"
          testid="token-candles"
        />
      )}
      <div class="grid">
        <TopHoldersPanel chain={chain} answer={holders} decimals={decimals} />
        <Answered title="Pools ranked (24h quote volume)" answer={pools} testid="token-pools">
          {(b) => (
            <Table head={['#', 'pool', 'protocol', 'pair', 'fee', '24h volume (quote)']}>
              {(b.data as unknown as RankedPool[]).map((p) => (
                <tr>
                  <td>{p.rank}</td>
                  <td>
                    <PoolLink chain={chain} k={p.key} />
                  </td>
                  <td>{p.protocol}</td>
                  <td>
                    <a href={href(chain, 'token', p.currency0)} title={p.currency0}>
                      {meta(p.currency0)?.symbol ?? short(p.currency0, 4)}
                    </a>{' '}
                    /{' '}
                    <a href={href(chain, 'token', p.currency1)} title={p.currency1}>
                      {meta(p.currency1)?.symbol ?? short(p.currency1, 4)}
                    </a>
                  </td>
                  <td>{p.fee === null ? '—' : `${p.fee / 10_000}%`}</td>
                  <td class="num">
                    <Units raw={p.rankedVolume24hQuote} meta={meta(p.quoteAsset)} testid="ranked-volume" />
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Answered>
      </div>
      {at === null ? (
        <section class="panel">
          <header>
            <h2>Recent AMM events (live)</h2>
          </header>
          <div class="body">
            <AmmFeed chain={chain} filter={`tokens=${address}`} renew={renew} />
          </div>
        </section>
      ) : (
        <LiveOff
          path="/index/v1/{chain}/stream/amm-events"
          at={at}
          title="Recent AMM events (live)"
          testid="token-amm"
        />
      )}
    </div>
  );
}

/** The token's top holders: rank, wallet, balance in token units, share of the supply. */
function TopHoldersPanel(p: {
  chain: string;
  answer: ReturnType<typeof useTokenAnswers>['holders'];
  decimals: number | null;
}) {
  const { chain, decimals } = p;
  return (
    <Answered title="Top holders" answer={p.answer} testid="token-holders">
      {(b) => (
        <>
          <div class="muted">
            {b.holderCount.value ?? '—'} holders ({b.holderCount.status})
          </div>
          <Table head={['#', 'wallet', 'balance', 'share']}>
            {b.data.map((h) => (
              <tr>
                <td>{h.rank}</td>
                <td>
                  <Addr chain={chain} a={h.wallet} page="wallet" />
                </td>
                <td class="num">{formatUnits(h.balance, decimals)}</td>
                <td class="num">{h.shareBps === null ? '—' : `${(Number(h.shareBps) / 100).toFixed(2)}%`}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </Answered>
  );
}

type Rational = { priceNumerator: string; priceDenominator: string };
interface StatsData {
  quote: string;
  quoteResolution: string;
  venue: { pool: string; protocol: string; rule: string } | null;
  windows: Record<
    string,
    {
      volumeBase: string;
      volumeQuote: string;
      trades: number;
      buys: number;
      sells: number;
      distinctTraders: { lowerBound: number; exact: boolean };
      close: Rational | null;
      priceChange: Rational | null;
      priceChangeReason: string | null;
    }
  >;
}
interface RankedPool {
  rank: number;
  key: string;
  protocol: string;
  currency0: string;
  currency1: string;
  fee: number | null;
  quoteAsset: string;
  rankedVolume24hQuote: string;
}

/** Window stats: volumes in token units and quote units with their symbols (base units on hover). */
function StatsTable(p: {
  chain: string;
  s: StatsData;
  token: TokenMeta | null;
  quote: TokenMeta | undefined;
}) {
  const { chain, s } = p;
  return (
    <>
      <div class="muted">
        quote <Addr chain={chain} a={s.quote} page="token" /> ({s.quoteResolution}); venue{' '}
        {s.venue ? <PoolLink chain={chain} k={s.venue.pool} /> : '—'} {s.venue?.protocol}
      </div>
      <Table
        head={[
          'window',
          'trades',
          'buys / sells',
          'traders',
          'volume (token)',
          'volume (quote)',
          'price change',
        ]}
      >
        {Object.entries(s.windows).map(([w, x]) => (
          <tr data-window={w}>
            <WindowCells w={w} x={x} />
            <td class="num">
              {x.distinctTraders.exact ? '' : '≥'}
              {x.distinctTraders.lowerBound}
            </td>
            <td class="num">
              <Units raw={x.volumeBase} meta={p.token} testid="window-volume-base" />
            </td>
            <td class="num">
              <Units raw={x.volumeQuote} meta={p.quote} testid="window-volume-quote" />
            </td>
            <td class="num">
              {x.priceChange
                ? `${ratioToDecimal(x.priceChange.priceNumerator, x.priceChange.priceDenominator, 2, 4)}%`
                : `— (${x.priceChangeReason})`}
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

/** Decimals of a quote asset (native: 18). */
export function useDecimals(session: Session, chain: string, token: string): number | null {
  const c = api(session.key);
  const a = useApi<{ data: { decimals: number | null } }>(
    () =>
      token === NATIVE
        ? Promise.resolve({ data: { data: { decimals: 18 } }, response: new Response() })
        : c.GET('/index/v1/{chain}/tokens/{address}', { params: { path: { chain, address: token } } }),
    [token],
  );
  return a.kind === 'ok' ? a.body.data.decimals : null;
}

function PricePanel(p: {
  session: Session;
  chain: string;
  address: string;
  quote: string;
  decimals: number | null;
  at: number | null;
}) {
  const c = api(p.session.key);
  const quoteDecimals = useDecimals(p.session, p.chain, p.quote);
  const price = useApiAt(
    '/index/v1/{chain}/tokens/{address}/price',
    p.at,
    (asOf) =>
      c.GET('/index/v1/{chain}/tokens/{address}/price', {
        params: { path: { chain: p.chain, address: p.address }, query: { quote: p.quote, ...asOf } as never },
      }),
    [p.address, p.quote],
    3000,
  );
  return (
    <Answered title="Price" answer={price} testid="token-price">
      {(b) => {
        const d = b.data as {
          price: Rational | null;
          priceReason: string | null;
          priceUnit: string;
          venue: { pool: string; protocol: string } | null;
          quoteResolution: string;
        };
        const shift = p.decimals !== null && quoteDecimals !== null ? p.decimals - quoteDecimals : null;
        return (
          <KV
            rows={[
              ['quote', <Addr chain={p.chain} a={p.quote} page="token" />],
              ['venue', d.venue ? <PoolLink chain={p.chain} k={d.venue.pool} /> : '—'],
              [
                'price (exact)',
                d.price ? `${d.price.priceNumerator}/${d.price.priceDenominator}` : `— (${d.priceReason})`,
                'price-rational',
              ],
              ['unit', d.priceUnit],
              [
                'price (decimal)',
                d.price && shift !== null
                  ? `${ratioToDecimal(d.price.priceNumerator, d.price.priceDenominator, shift, 10)} per whole token`
                  : '—',
                'price-decimal',
              ],
            ]}
          />
        );
      }}
    </Answered>
  );
}

function TokenCandles(p: Props & { quote: string; decimals: number | null }) {
  const c = api(p.session.key);
  const [frame, setFrame] = useState<Frame>('1s');
  const quoteDecimals = useDecimals(p.session, p.chain, p.quote);
  if (p.decimals === null || quoteDecimals === null) return null;
  return (
    <section class="panel" data-testid="token-candles">
      <header>
        <h2>Candles (default venue, live)</h2>
        <FramePicker frame={frame} onChange={setFrame} />
      </header>
      <div class="body">
        <CandleChart
          key={frame}
          chain={p.chain}
          select={`token:${p.address}:${frame}:${p.quote}`}
          shift={p.decimals - quoteDecimals}
          renew={p.renew}
          history={async () => {
            const r = await c.GET('/index/v1/{chain}/tokens/{address}/candles', {
              params: {
                path: { chain: p.chain, address: p.address },
                query: { frame, quote: p.quote, ...historyWindow(frame), limit: 1000 },
              },
            });
            return r.data
              ? { rows: r.data.data as never, anchor: r.data.anchor.block }
              : { rows: [], anchor: null };
          }}
        />
      </div>
    </section>
  );
}

/**
 * Loads the token's identity, stats (every 5 s), top holders and ranked pools (every 10 s) at the
 * head, or once each as of block `at` (a section whose route does not take atBlock says why).
 */
function useTokenAnswers(session: Session, chain: string, address: string, at: number | null) {
  const c = api(session.key);
  const path = { chain, address };
  const token = useApiAt(
    '/index/v1/{chain}/tokens/{address}',
    at,
    (asOf) => c.GET('/index/v1/{chain}/tokens/{address}', { params: { path, query: asOf as never } }),
    [address],
    10_000,
  );
  const stats = useApiAt(
    '/index/v1/{chain}/tokens/{address}/stats',
    at,
    (asOf) => c.GET('/index/v1/{chain}/tokens/{address}/stats', { params: { path, query: asOf as never } }),
    [address],
    5000,
  );
  const holders = useApiAt(
    '/index/v1/{chain}/tokens/{address}/top-holders',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/tokens/{address}/top-holders', {
        params: { path, query: { limit: 10, ...asOf } },
      }),
    [address],
    10_000,
  );
  const pools = useApiAt(
    '/index/v1/{chain}/tokens/{address}/pools/ranked',
    at,
    (asOf) =>
      c.GET('/index/v1/{chain}/tokens/{address}/pools/ranked', {
        params: { path, query: { limit: 10, ...asOf } as never },
      }),
    [address],
    10_000,
  );
  return { token, stats, holders, pools };
}
