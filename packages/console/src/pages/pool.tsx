/**
 * A pool (V2, V3 or V4): identity, state and liquidity, window stats, candles with frame switching
 * 1s … 1d (history from `/ohlcv`, then live from `/stream/candles`), and the latest ticks.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type Answer, api, type Session, useApiAt } from '../api.js';
import { BlockPicker, LiveOff } from '../as-of.js';
import { CandleChart, type Frame, FramePicker, historyWindow } from '../chart.js';
import { ratioToDecimal, short } from '../format.js';
import { Addr, Answered, KV, type Route, Table, WindowCells } from '../ui.js';
import { type TokenMeta, Units, UnitsCell, Usd, useTokenMetas } from '../units.js';
import { useDecimals } from './token.js';

interface Props {
  session: Session;
  chain: string;
  /** `[address]` (V2/V3) or `['v4', manager, poolId]`. */
  args: string[];
  renew(): Promise<unknown>;
  /** The page's route: its `at` is the block the page is shown as of (null: the head, live). */
  route: Route;
}

type Rational = { priceNumerator: string; priceDenominator: string };

export function PoolPage({ session, chain, args, renew, route }: Props) {
  const c = api(session.key);
  const at = route.at;
  const v4 = args[0] === 'v4';
  const [manager, poolId] = v4 ? [args[1], args[2]] : ['', ''];
  const address = v4 ? '' : args[0];
  const template = (suffix: string) =>
    v4
      ? `/index/v1/{chain}/pools/v4/{manager}/{pool_id}${suffix}`
      : `/index/v1/{chain}/pools/{address}${suffix}`;
  const load = <T,>(
    suffix: '' | '/liquidity' | '/ticks',
    query?: Record<string, unknown>,
  ): Promise<{ data?: T; error?: unknown; response: Response }> =>
    (v4
      ? c.GET(template(suffix) as '/index/v1/{chain}/pools/v4/{manager}/{pool_id}', {
          params: { path: { chain, manager, pool_id: poolId }, query: query as never },
        })
      : c.GET(template(suffix) as '/index/v1/{chain}/pools/{address}', {
          params: { path: { chain, address }, query: query as never },
        })) as Promise<{ data?: T; error?: unknown; response: Response }>;
  // At the head each section refreshes; as of a block each reads once with atBlock, or says why not.
  const pool = useApiAt(template(''), at, (asOf) => load<PoolAnswer>('', asOf), [args.join('/')], 3000);
  const liq = useApiAt(
    template('/liquidity'),
    at,
    (asOf) => load<LiqAnswer>('/liquidity', asOf),
    [args.join('/')],
    5000,
  );
  const ticks = useApiAt(
    template('/ticks'),
    at,
    (asOf) => load<TicksAnswer>('/ticks', { order: 'desc', limit: 20, ...asOf }),
    [args.join('/')],
    3000,
  );
  const p = pool.kind === 'ok' ? pool.body.data : null;
  const base = p?.stats?.base ?? p?.currency0 ?? '';
  const quote = p?.stats?.quote ?? p?.currency1 ?? '';
  const baseDec = useDecimals(session, chain, base || '0x0000000000000000000000000000000000000000');
  const quoteDec = useDecimals(session, chain, quote || '0x0000000000000000000000000000000000000000');
  const shift = p && baseDec !== null && quoteDec !== null ? baseDec - quoteDec : null;
  // currency0 / currency1 amounts in token units with their symbols (base units on hover).
  const metas = useTokenMetas(session, chain, p ? [p.currency0, p.currency1] : []);
  const m0 = p ? metas.get(p.currency0.toLowerCase()) : undefined;
  const m1 = p ? metas.get(p.currency1.toLowerCase()) : undefined;
  const [frame, setFrame] = useState<Frame>('1s');
  const streamId = v4 ? `${manager}:${poolId}` : address;
  return (
    <div class="page">
      <h1>
        Pool {p ? `${p.protocol}` : ''} <code>{v4 ? `${short(manager)} / ${poolId}` : address}</code>
      </h1>
      <BlockPicker session={session} chain={chain} route={route} />
      <div class="grid">
        <PoolIdentityPanel chain={chain} answer={pool} m0={m0} m1={m1} />
        <LiquidityPanel answer={liq} />
      </div>
      {p?.stats && (
        <section
          class="panel"
          data-testid="pool-stats"
          data-anchor={pool.kind === 'ok' ? pool.body.anchor.block : ''}
        >
          <header>
            <h2>Window stats</h2>
          </header>
          <div class="body">
            <Table head={['window', 'trades', 'buys / sells', 'volume0', 'volume1', 'close']}>
              {Object.entries(p.stats.windows).map(([w, x]) => (
                <tr data-window={w}>
                  <WindowCells w={w} x={x} />
                  <UnitsCell raw={x.volume0} meta={m0} />
                  <UnitsCell raw={x.volume1} meta={m1} />
                  <td class="num">
                    {x.close && shift !== null
                      ? ratioToDecimal(x.close.priceNumerator, x.close.priceDenominator, shift)
                      : '—'}
                  </td>
                </tr>
              ))}
            </Table>
          </div>
        </section>
      )}
      {at !== null && (
        <LiveOff
          path="/index/v1/{chain}/stream/candles"
          at={at}
          title="Candles (live)"
          testid="pool-candles"
        />
      )}
      {shift !== null && at === null && (
        <section class="panel" data-testid="pool-candles">
          <header>
            <h2>Candles (live)</h2>
            <FramePicker frame={frame} onChange={setFrame} />
          </header>
          <div class="body">
            <CandleChart
              key={frame}
              chain={chain}
              select={`pool:${streamId}:${frame}`}
              shift={shift}
              renew={renew}
              history={async () => {
                const query = { frame, ...historyWindow(frame), limit: 1000 };
                const r = await (v4
                  ? c.GET('/index/v1/{chain}/pools/v4/{manager}/{pool_id}/ohlcv', {
                      params: { path: { chain, manager, pool_id: poolId }, query },
                    })
                  : c.GET('/index/v1/{chain}/pools/{address}/ohlcv', {
                      params: { path: { chain, address }, query },
                    }));
                return r.data
                  ? { rows: r.data.data as never, anchor: r.data.anchor.block }
                  : { rows: [], anchor: null };
              }}
            />
          </div>
        </section>
      )}
      <Answered title="Latest ticks" answer={ticks} testid="pool-ticks">
        {(b) => (
          <Table head={['block', 'side', 'amount0', 'amount1', 'price', 'tick', 'origin']}>
            {b.data.map((t) => (
              <tr>
                <td>{t.block}</td>
                <td>{t.side}</td>
                <UnitsCell raw={t.amount0} meta={m0} />
                <UnitsCell raw={t.amount1} meta={m1} />
                <td class="num">
                  {shift !== null ? ratioToDecimal(t.priceNumerator, t.priceDenominator, shift) : '—'}
                </td>
                <td>{t.tick ?? '—'}</td>
                <td>
                  <Addr chain={chain} a={t.origin} page="wallet" />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Answered>
    </div>
  );
}

/** The pool's identity and state: reserves (V2) or liquidity, tick and price (V3/V4), swaps. */
function PoolIdentityPanel({
  chain,
  answer,
  m0,
  m1,
}: {
  chain: string;
  answer: Answer<PoolAnswer>;
  m0: TokenMeta | undefined;
  m1: TokenMeta | undefined;
}) {
  return (
    <Answered title="Identity and state" answer={answer} testid="pool-identity">
      {(b) => {
        const d = b.data;
        const s = d.state;
        return (
          <KV
            rows={[
              ['protocol', d.protocol, 'pool-protocol'],
              ['currency0', <Addr chain={chain} a={d.currency0} page="token" />],
              ['currency1', <Addr chain={chain} a={d.currency1} page="token" />],
              ['fee', d.fee === null ? '—' : `${d.fee} (${d.feeUnit})`],
              ['tick spacing', d.tickSpacing ?? '—'],
              ['hooks', d.hooks ?? '—'],
              ['factory / manager', <Addr chain={chain} a={d.factory} />],
              ['created', `block ${d.created.block}`],
              ['state', s ? s.kind : '—'],
              ...(s && s.kind === 'concentrated'
                ? ([
                    ['active liquidity (L)', s.liquidity ?? '—', 'pool-liquidity'],
                    ['tick', s.tick ?? '—', 'pool-tick'],
                    ['sqrtPriceX96', s.sqrtPriceX96 ?? '—'],
                  ] as Array<[string, string | number, string]>)
                : s
                  ? ([
                      [
                        'reserve0',
                        s.reserve0 ? <Units raw={s.reserve0} meta={m0} testid="pool-reserve0" /> : '—',
                      ],
                      [
                        'reserve1',
                        s.reserve1 ? <Units raw={s.reserve1} meta={m1} testid="pool-reserve1" /> : '—',
                      ],
                    ] as Array<[string, ComponentChildren]>)
                  : []),
              ['swaps', s?.swaps ?? '—', 'pool-swaps'],
              ['last swap block', s?.lastSwapBlock ?? '—'],
            ]}
          />
        );
      }}
    </Answered>
  );
}

/** The pool's liquidity in USD: exact rational, its decimal, and the method (or why none). */
function LiquidityPanel({ answer }: { answer: Answer<LiqAnswer> }) {
  return (
    <Answered title="Liquidity (USD)" answer={answer} testid="pool-liquidity-usd">
      {(b) => {
        const d = b.data;
        return (
          <KV
            rows={[
              [
                'liquidity (USD, exact)',
                d.liquidityUsd ? `${d.liquidityUsd.numerator}/${d.liquidityUsd.denominator}` : '—',
                'pool-liq-usd-rational',
              ],
              [
                'liquidity (USD)',
                d.liquidityUsd ? (
                  <Usd
                    n={d.liquidityUsd.numerator}
                    d={d.liquidityUsd.denominator}
                    approx={d.liquidityUsd.approx}
                    testid="pool-liq-usd"
                  />
                ) : (
                  `— (${d.liquidityUsdReason})`
                ),
              ],
              ['method', d.liquidityUsdMethod ?? '—'],
            ]}
          />
        );
      }}
    </Answered>
  );
}

type Anchor = { block: number; hash: string };
interface PoolAnswer {
  anchor: Anchor;
  data: {
    protocol: string;
    currency0: string;
    currency1: string;
    fee: number | null;
    feeUnit: string;
    tickSpacing: number | null;
    hooks: string | null;
    factory: string;
    created: { block: number };
    state: {
      kind: string;
      liquidity?: string | null;
      tick?: number | null;
      sqrtPriceX96?: string | null;
      reserve0?: string | null;
      reserve1?: string | null;
      swaps: number;
      lastSwapBlock: number | null;
    } | null;
    stats: {
      base: string;
      quote: string;
      windows: Record<
        string,
        {
          trades: number;
          buys: number;
          sells: number;
          volume0: string;
          volume1: string;
          close: Rational | null;
        }
      >;
    } | null;
  };
}
interface LiqAnswer {
  anchor: Anchor;
  data: {
    liquidityUsd: { numerator: string; denominator: string; approx: { decimal: string } } | null;
    liquidityUsdReason: string | null;
    liquidityUsdMethod: string | null;
  };
}
interface TicksAnswer {
  anchor: Anchor;
  data: Array<{
    block: number;
    side: string;
    amount0: string;
    amount1: string;
    priceNumerator: string;
    priceDenominator: string;
    tick: number | null;
    origin: string;
  }>;
}
