/**
 * The screener: subjects (a pool, or a token pair aggregated over its pools against the quote)
 * with window figures read from the markets projection's 1-minute candles (maintained
 * incrementally during ingest; never recomputed from every swap), distinct traders from a bounded
 * swap scan, holder counts from the tokens projection. Filters and sort are the caller's; the
 * screener makes no editorial claim.
 */

import { DomainError } from '../errors/index.js';
import {
  candleAtBlock,
  poolAt,
  scanWindowSwaps,
  stateAt,
  WINDOW_SECONDS,
  type WindowName,
  windowFrom,
} from '../markets/index.js';
import { NO_TRADES, type PoolRow, type TradeFigures } from '../schema/rows/markets.js';
import type { TokenRow } from '../schema/rows/tokens.js';
import { TIME } from '../schema/tables/chain.js';
import { CANDLE, POOL_BY_CURRENCY } from '../schema/tables/markets.js';
import { blockTimestamp } from '../storage/headers.js';
import type { View } from '../storage/index.js';
import type { HolderCount } from '../tokens/index.js';

type Hex = `0x${string}`;

export { WINDOW_SECONDS, type WindowName };

/** Subjects the enumerator examines at most before refusing with suggestions (SCREENER_CEILING overrides, for tests). */
export const CANDIDATE_CEILING = Number(process.env.SCREENER_CEILING ?? 2_000);
/**
 * Pools the candidate walk examines at most (SCREENER_POOL_CEILING overrides, for tests): the walk
 * reads every pool of the walked currency (two point reads each) before the subject ceiling can be
 * checked, so the pool count is checked first, by a bounded count of the index, and a currency
 * with more pools is refused before any pool is read. Four pools per candidate subject.
 */
export const POOL_WALK_CEILING = Number(process.env.SCREENER_POOL_CEILING ?? 4 * CANDIDATE_CEILING);
/**
 * Size of the candidate set of sort=holders: the top subjects by total_volume_quote (spec: 100).
 * SCREENER_HOLDERS_PREFILTER overrides, for tests only (so the cut can be exercised on a devnet).
 */
export const HOLDERS_PREFILTER = Number(process.env.SCREENER_HOLDERS_PREFILTER ?? 100);

export const SORTS = [
  'total_volume_quote',
  'buy_volume_quote',
  'sell_volume_quote',
  'trades',
  'buys',
  'sells',
  'distinct_traders',
  'holders',
] as const;
export type Sort = (typeof SORTS)[number];

export interface Filters {
  min_total_volume_quote?: string;
  min_buy_volume_quote?: string;
  min_sell_volume_quote?: string;
  max_total_volume_quote?: string;
  min_trades?: number;
  min_buys?: number;
  min_sells?: number;
  max_trades?: number;
  max_buys?: number;
  max_sells?: number;
  min_distinct_traders_lower_bound?: number;
  min_covered_blocks?: number;
  require_window_fully_covered?: boolean;
  require_distinct_exact?: boolean;
}
export const FILTER_NAMES: Array<keyof Filters> = [
  'min_total_volume_quote',
  'min_buy_volume_quote',
  'min_sell_volume_quote',
  'max_total_volume_quote',
  'min_trades',
  'min_buys',
  'min_sells',
  'max_trades',
  'max_buys',
  'max_sells',
  'min_distinct_traders_lower_bound',
  'min_covered_blocks',
  'require_window_fully_covered',
  'require_distinct_exact',
];

export interface ScreenerQuery extends Filters {
  quote: string;
  grain: 'pool' | 'token_pair';
  base?: string;
  window: WindowName;
  sort: Sort;
  order: 'asc' | 'desc';
  allowScan?: boolean;
  recency_floor_block?: number;
}

export interface Row {
  subject: string;
  grain: 'pool' | 'token_pair';
  base: { address: string; symbol: string | null; name: string | null };
  quote: { address: string; symbol: string | null; name: string | null };
  pools: string[];
  totalVolumeQuote: bigint;
  buyVolumeQuote: bigint;
  sellVolumeQuote: bigint;
  trades: number;
  buys: number;
  sells: number;
  distinctTraders: { lowerBound: number; exact: boolean };
  distinctBuyers: { lowerBound: number; exact: boolean };
  distinctSellers: { lowerBound: number; exact: boolean };
  holderCount: HolderCount;
  lastTradeBlock: number;
}

export interface Coverage {
  coveredBlocks: number;
  windowFullyCovered: boolean;
  windowStart: number;
}

/**
 * First second of a window ending at `nowTs` (unix seconds): the markets windows rule
 * (windowFrom), so a window is whole 1-minute buckets, the same as the pool and token stats, and
 * every figure of a row (volumes, counts, distinct traders, covered blocks) counts exactly the
 * trades and blocks with timestamp in [windowStart, anchor timestamp].
 */
export const windowStartOf = (nowTs: number, window: WindowName): number =>
  windowFrom(nowTs, WINDOW_SECONDS[window]);

/**
 * Blocks of the window the index holds (timestamp ≥ windowStart, number ≤ anchor), and whether
 * the index covers the whole window: it started at genesis (no block exists before it), or its
 * first block is no later than the window start.
 */
export function coverageOf(view: View, anchor: number, window: WindowName): Coverage {
  const start = windowStartOf(blockTimestamp(view, anchor) ?? 0, window);
  const first = view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  const row = view.first(TIME, { gte: [start, 0] });
  const firstIn = row ? row.key[1] : anchor + 1;
  return {
    coveredBlocks: Math.max(0, anchor - firstIn + 1),
    windowFullyCovered: first === 0 || (blockTimestamp(view, first) ?? 0) <= start,
    windowStart: start,
  };
}

/**
 * Window figures of one pool at `anchor`, oriented for `base`/`quote`: trades with timestamp in
 * [start, to] (`start` from {@link windowStartOf}, `to` the anchor's timestamp). Volumes and
 * counts from the 1-minute candles; distinct traders (transaction origins) from the markets
 * domain's bounded newest-first swap scan (DISTINCT_SCAN_LIMIT per pool).
 */
function poolFigures(view: View, p: PoolRow, base: string, start: number, to: number, anchor: number) {
  const baseIs0 = p.currency0 === base;
  const k = p.key as Hex;
  let total = 0n;
  let buyQ = 0n;
  let trades = 0;
  let buys = 0;
  let sells = 0;
  view.eachValue(CANDLE, { gte: [k, 3, start], lte: [k, 3, to] }, (row) => {
    // The bucket as of the anchor: a stored candle may already hold trades of later blocks (R1).
    const c: TradeFigures = candleAtBlock(view, p.key, row, 60, anchor) ?? NO_TRADES;
    const vq = BigInt(baseIs0 ? c.volume1 : c.volume0);
    const bq = baseIs0 ? BigInt(c.buyVolume1 ?? '0') : vq - BigInt(c.buyVolume0 ?? '0');
    total += vq;
    buyQ += bq;
    trades += c.trades;
    buys += baseIs0 ? c.buys : c.sells;
    sells += baseIs0 ? c.sells : c.buys;
  });
  const traders = new Set<string>();
  const buyers = new Set<string>();
  const sellers = new Set<string>();
  const exact = scanWindowSwaps(view, p.key, anchor, start, (s) => {
    traders.add(s.origin);
    const buy = baseIs0 ? s.side === 'buy' : s.side === 'sell';
    (buy ? buyers : sellers).add(s.origin);
  });
  return { total, buyQ, trades, buys, sells, traders, buyers, sellers, exact };
}

type Member = { p: PoolRow; last: number; base: string };

/**
 * The currency whose pools the candidate walk reads: the quote, or with `base` the side with fewer
 * pools (a base trades against few quotes; WETH or a stablecoin has thousands of pools). Counted
 * first, each count bounded by {@link POOL_WALK_CEILING} + 1 index rows.
 * @throws DomainError query_too_broad when the walked side has more pools than the ceiling.
 */
function walkedCurrency(view: View, q: ScreenerQuery, anchor: number): Hex {
  const poolsOf = (c: string) => view.count(POOL_BY_CURRENCY, { prefix: [c as Hex] }, POOL_WALK_CEILING + 1);
  const nQuote = poolsOf(q.quote);
  const nBase = q.base && nQuote > 0 ? poolsOf(q.base) : Number.POSITIVE_INFINITY;
  const [walked, n] = nBase < nQuote ? [q.base!, nBase] : [q.quote, nQuote];
  if (n > POOL_WALK_CEILING)
    throw new DomainError(
      'query_too_broad',
      `the screener walks at most ${POOL_WALK_CEILING} pools per request and ${walked} holds more; name a base (its pools are walked instead when fewer) or use a quote with fewer pools`,
      { ceiling: POOL_WALK_CEILING, rankedAtBlock: anchor },
    );
  return walked as Hex;
}

/**
 * The subjects trading against the quote at `anchor` (a pool, or a base token's pools), filtered
 * by base and recency floor.
 * @throws DomainError projection_unavailable with the candidate-set ceiling fields past the ceiling.
 */
function subjects(view: View, q: ScreenerQuery, anchor: number): Map<string, Member[]> {
  const all = new Map<string, Member[]>();
  view.each(POOL_BY_CURRENCY, { prefix: [walkedCurrency(view, q, anchor)] }, (_v, [, key]) => {
    const p = poolAt(view, key, anchor);
    if (!p) return true;
    // Walking the base's pools: only those against the quote.
    if (p.currency0 !== q.quote && p.currency1 !== q.quote) return true;
    const base = p.currency0 === q.quote ? p.currency1 : p.currency0;
    if (q.base && base !== q.base) return true;
    // Last trade as of the anchor (the current state may already hold later trades).
    const last = stateAt(view, p.key, anchor)?.lastSwapBlock ?? -1;
    if (last < 0) return true;
    const subject = q.grain === 'pool' ? p.key : base;
    all.set(subject, [...(all.get(subject) ?? []), { p, last, base }]);
    return true;
  });
  const lastOf = (ms: Member[]) => Math.max(...ms.map((m) => m.last));
  const groups = new Map(
    [...all].filter(([, ms]) => q.recency_floor_block === undefined || lastOf(ms) >= q.recency_floor_block),
  );
  if (groups.size > CANDIDATE_CEILING) {
    // The smallest floor that keeps at most `ceiling` subjects (ties at the cut are excluded).
    const recency = [...groups.values()].map(lastOf).sort((a, b) => b - a);
    throw new DomainError(
      'projection_unavailable',
      `the candidate set (${groups.size} subjects) exceeds the enumerator ceiling ${CANDIDATE_CEILING}; narrow it with recency_floor_block`,
      {
        suggestedRecencyFloorBlock: recency[CANDIDATE_CEILING] + 1,
        candidatesScanned: groups.size,
        ceiling: CANDIDATE_CEILING,
        rankedAtBlock: anchor,
      },
    );
  }
  return groups;
}

/**
 * The token reads of the screener (the tokens reader satisfies it): a token row as of a block and
 * the uniform holder count of a row.
 */
export interface ScreenerTokens {
  /** The token row at `at`, or null when first seen after `at` (or never). */
  find(view: View, address: string, at: number): TokenRow | null;
  /** The uniform holder count at `at` (a null row: not indexed). */
  holderCount(view: View, token: TokenRow | null, at: number): HolderCount;
}

/**
 * Computes the screener rows at `anchor` (unsorted, unfiltered by figures); holder counts are the
 * tokens reader's uniform shape. Each subject's base token row is read once.
 * @throws DomainError projection_unavailable past the candidate-set ceiling.
 */
export function enumerate(
  view: View,
  tokens: ScreenerTokens,
  q: ScreenerQuery,
  anchor: number,
): { rows: Row[]; scanned: number } {
  const now = blockTimestamp(view, anchor) ?? 0;
  const start = windowStartOf(now, q.window);
  const groups = subjects(view, q, anchor);
  const metaOf = (a: string, t: TokenRow | null) => ({
    address: a,
    symbol: t?.metadata?.symbol.value ?? null,
    name: t?.metadata?.name.value ?? null,
  });
  let quoteMeta: ReturnType<typeof metaOf> | null = null;
  const rows: Row[] = [];
  for (const [subject, members] of groups) {
    const base = members[0].base;
    const baseRow = tokens.find(view, base, anchor);
    const f = members.map((m) => poolFigures(view, m.p, base, start, now, anchor));
    const union = (k: 'traders' | 'buyers' | 'sellers') => new Set(f.flatMap((x) => [...x[k]])).size;
    const exact = f.every((x) => x.exact);
    const total = f.reduce((a, x) => a + x.total, 0n);
    const buyQ = f.reduce((a, x) => a + x.buyQ, 0n);
    rows.push({
      subject,
      grain: q.grain,
      base: metaOf(base, baseRow),
      quote: (quoteMeta ??= metaOf(q.quote, tokens.find(view, q.quote, anchor))),
      pools: members.map((m) => m.p.key),
      totalVolumeQuote: total,
      buyVolumeQuote: buyQ,
      sellVolumeQuote: total - buyQ,
      trades: f.reduce((a, x) => a + x.trades, 0),
      buys: f.reduce((a, x) => a + x.buys, 0),
      sells: f.reduce((a, x) => a + x.sells, 0),
      distinctTraders: { lowerBound: union('traders'), exact },
      distinctBuyers: { lowerBound: union('buyers'), exact },
      distinctSellers: { lowerBound: union('sellers'), exact },
      holderCount: tokens.holderCount(view, baseRow, anchor),
      lastTradeBlock: Math.max(...members.map((m) => m.last)),
    });
  }
  return { rows, scanned: groups.size };
}

/** Applies the inclusive filters. */
export function passes(r: Row, f: Filters, cov: Coverage): boolean {
  const big = (x: string | undefined) => (x === undefined ? undefined : BigInt(x));
  if (f.min_total_volume_quote !== undefined && r.totalVolumeQuote < big(f.min_total_volume_quote)!)
    return false;
  if (f.max_total_volume_quote !== undefined && r.totalVolumeQuote > big(f.max_total_volume_quote)!)
    return false;
  if (f.min_buy_volume_quote !== undefined && r.buyVolumeQuote < big(f.min_buy_volume_quote)!) return false;
  if (f.min_sell_volume_quote !== undefined && r.sellVolumeQuote < big(f.min_sell_volume_quote)!)
    return false;
  if (f.min_trades !== undefined && r.trades < f.min_trades) return false;
  if (f.max_trades !== undefined && r.trades > f.max_trades) return false;
  if (f.min_buys !== undefined && r.buys < f.min_buys) return false;
  if (f.max_buys !== undefined && r.buys > f.max_buys) return false;
  if (f.min_sells !== undefined && r.sells < f.min_sells) return false;
  if (f.max_sells !== undefined && r.sells > f.max_sells) return false;
  if (
    f.min_distinct_traders_lower_bound !== undefined &&
    r.distinctTraders.lowerBound < f.min_distinct_traders_lower_bound
  )
    return false;
  if (f.min_covered_blocks !== undefined && cov.coveredBlocks < f.min_covered_blocks) return false;
  if (f.require_window_fully_covered && !cov.windowFullyCovered) return false;
  if (f.require_distinct_exact && !r.distinctTraders.exact) return false;
  return true;
}

/** Sort value of a row (bigint for comparisons). */
export function sortValue(r: Row, s: Sort): bigint {
  switch (s) {
    case 'total_volume_quote':
      return r.totalVolumeQuote;
    case 'buy_volume_quote':
      return r.buyVolumeQuote;
    case 'sell_volume_quote':
      return r.sellVolumeQuote;
    case 'trades':
      return BigInt(r.trades);
    case 'buys':
      return BigInt(r.buys);
    case 'sells':
      return BigInt(r.sells);
    case 'distinct_traders':
      return BigInt(r.distinctTraders.lowerBound);
    case 'holders':
      return BigInt(r.holderCount.value ?? -1);
  }
}
