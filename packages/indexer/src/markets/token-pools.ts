/**
 * Views of a token's pool membership: protocol-native liquidity of a pair, pools grouped by
 * counter currency, and the ranked pools (by trailing-24h volume or by liquidityUsd) whose first
 * rows are the overview's pool listing.
 */

import { TOKEN_POOLS_RANKED } from '../schema/cursors.js';
import type { PoolRow, PoolState } from '../schema/rows/markets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { cmp, type Rational } from './rational.js';
import { stateAt } from './read.js';
import { poolsWithQuote, type TokenMarket } from './token-market.js';
import { type DecimalsOf, type PoolLiquidityUsd, poolLiquidityUsd } from './usd.js';
import { counterOf, tokenIsBase, volume24h } from './venue.js';

/** A concentrated pool of a pair with its state (never merged with reserves). */
export interface ConcentratedPool {
  pool: PoolRow;
  tokenIsCurrency0: boolean;
  state: PoolState | null;
}

/** Liquidity of a (token, quote) pair: reserves summed per side, concentrated pools listed. */
export interface PairLiquidity {
  /** Σ reserves of the reserves pools (V2, curves), token and quote base units. */
  tokenReserve: bigint;
  quoteReserve: bigint;
  reservesPools: string[];
  concentrated: ConcentratedPool[];
}

/** Protocol-native liquidity of the pair over the token's pools against `quote`. */
export function pairLiquidity(view: View, m: TokenMarket, quote: string): PairLiquidity {
  const out: PairLiquidity = { tokenReserve: 0n, quoteReserve: 0n, reservesPools: [], concentrated: [] };
  for (const p of poolsWithQuote(m, quote)) {
    const st = stateAt(view, p.key, m.at.block);
    const base = tokenIsBase(p, m.address);
    if (p.protocol === 'v2' || p.protocol === 'launchpad') {
      if (!st?.reserve0 || !st.reserve1) continue;
      out.tokenReserve += BigInt(base ? st.reserve0 : st.reserve1);
      out.quoteReserve += BigInt(base ? st.reserve1 : st.reserve0);
      out.reservesPools.push(p.key);
    } else out.concentrated.push({ pool: p, tokenIsCurrency0: base, state: st });
  }
  return out;
}

/** Pools grouped in one aggregate response at most (Limits). */
export const AGGREGATE_POOLS = 200;

/** A pool of the aggregate with its trailing-24h figures (its own quote side). */
export interface AggregatePool {
  pool: PoolRow;
  volume24hQuote: bigint;
  trades24h: number;
}

/** Pools grouped by counter currency; beyond {@link AGGREGATE_POOLS}, the busiest by 24h volume. */
export function poolsAggregate(
  view: View,
  m: TokenMarket,
  quote: string | null,
): {
  groups: Array<{ counterCurrency: string; pools: AggregatePool[] }>;
  truncated: boolean;
  considered: number;
} {
  const pools = quote ? poolsWithQuote(m, quote) : m.pools.pools;
  const withVol = pools.map((p) => ({ p, v: volume24h(view, p, m.address, m.at, m.statsOf) }));
  const truncated = withVol.length > AGGREGATE_POOLS;
  if (truncated) withVol.sort((a, b) => (b.v.quote > a.v.quote ? 1 : b.v.quote < a.v.quote ? -1 : 0));
  const groups = new Map<string, AggregatePool[]>();
  for (const { p, v } of withVol.slice(0, AGGREGATE_POOLS)) {
    const c = counterOf(p, m.address);
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c)!.push({ pool: p, volume24hQuote: v.quote, trades24h: v.trades });
  }
  return {
    groups: [...groups.entries()].map(([counterCurrency, rows]) => ({ counterCurrency, pools: rows })),
    truncated: truncated || m.pools.truncated,
    considered: withVol.length,
  };
}

export type RankSort = 'volume_24h' | 'liquidity';

/** A ranked pool: its 24h volume and, for sort=liquidity, its USD liquidity or quote-side amount. */
export interface RankedPool {
  rank: number;
  pool: PoolRow;
  quoteAsset: string;
  /** Trailing-24h quote-side volume, quote base units; `volume24hUsd` the same at par when the quote is a USD stablecoin. */
  volume24hQuote: bigint;
  volume24hUsd: bigint | null;
  /** sort=liquidity only. */
  liquidity: { l: PoolLiquidityUsd; quoteSide: Rational | null } | null;
}

interface Ranked {
  p: PoolRow;
  q: string;
  v: bigint;
  usd: bigint | null;
  liq: { l: PoolLiquidityUsd; quoteSide: Rational | null } | null;
}

/**
 * Order of sort=liquidity: pools with a liquidityUsd first, by liquidityUsd descending; then the
 * unpriced pools grouped by quote (ascending address), each group by quote-side amount descending
 * (pools without amounts last); ties by pool key.
 */
function byLiquidity(a: Ranked, b: Ranked): number {
  const la = a.liq!;
  const lb = b.liq!;
  if ((la.l.usd === null) !== (lb.l.usd === null)) return la.l.usd === null ? 1 : -1;
  let c = 0;
  if (la.l.usd && lb.l.usd) c = cmp(lb.l.usd, la.l.usd);
  else if (a.q !== b.q) return a.q < b.q ? -1 : 1;
  else if ((la.quoteSide === null) !== (lb.quoteSide === null)) return la.quoteSide === null ? 1 : -1;
  else if (la.quoteSide && lb.quoteSide) c = cmp(lb.quoteSide, la.quoteSide);
  return c || (a.p.key < b.p.key ? -1 : 1);
}

/**
 * Order of sort=volume_24h: quote-side volume desc, ties by pool key; without a quote, pools of
 * quotes without a USD stablecoin route last, grouped by quote.
 */
const byVolume = (withQuote: boolean) => (a: Ranked, b: Ranked) => {
  if (!withQuote && (a.usd === null) !== (b.usd === null)) return a.usd === null ? 1 : -1;
  if (!withQuote && a.usd === null && a.q !== b.q) return a.q < b.q ? -1 : 1;
  return b.v > a.v ? 1 : b.v < a.v ? -1 : a.p.key < b.p.key ? -1 : 1;
};

/** The token's pools (against `quote`, or all) in ranking order. */
export function rankPools(
  view: View,
  m: TokenMarket,
  sort: RankSort,
  quote: string | null,
  stables: ReadonlySet<string>,
  decimalsOf: DecimalsOf,
): RankedPool[] {
  const pools = quote ? poolsWithQuote(m, quote) : m.pools.pools;
  const rows: Ranked[] = pools.map((p) => {
    const q = counterOf(p, m.address);
    const v = volume24h(view, p, m.address, m.at, m.statsOf).quote;
    let liq: Ranked['liq'] = null;
    if (sort === 'liquidity') {
      const l = poolLiquidityUsd(stables, decimalsOf, p, stateAt(view, p.key, m.at.block));
      liq = { l, quoteSide: l.amounts ? l.amounts[tokenIsBase(p, m.address) ? 1 : 0] : null };
    }
    return { p, q, v, usd: stables.has(q) ? v : null, liq };
  });
  rows.sort(sort === 'liquidity' ? byLiquidity : byVolume(quote !== null));
  return rows.map((r, i) => ({
    rank: i + 1,
    pool: r.p,
    quoteAsset: r.q,
    volume24hQuote: r.v,
    volume24hUsd: r.usd,
    liquidity: r.liq,
  }));
}

/** Pages ranked rows by rank (resume key: the rank, u32). */
export function pageRanked(rows: RankedPool[], page: PageQuery, sink: PageSink<RankedPool>): void {
  const start = page.after ? TOKEN_POOLS_RANKED.decode(page.after)[0] : 0;
  for (let i = start; i < rows.length; i++) {
    if (!sink(rows[i], TOKEN_POOLS_RANKED.encode(i + 1))) return;
  }
}
