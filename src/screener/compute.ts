/**
 * The screener: subjects (a pool, or a token pair aggregated over its pools against the quote)
 * with window figures read from the markets projection's 1-minute candles (maintained
 * incrementally during ingest; never recomputed from every swap), distinct traders from a bounded
 * swap scan, holder counts from the tokens projection. Filters and sort are the caller's; the
 * screener makes no editorial claim.
 */

import type { CandleRow, PoolRow, SwapRow } from '../markets/model.js';
import { candleAtBlock, poolAt, stateAt } from '../markets/read.js';
import { MarketTable, poolPrefix, swapKey } from '../markets/tables.js';
import { ApiError } from '../server/errors.js';
import type { ChainContext } from '../server/route.js';
import { blockTimestamp } from '../storage/headers.js';
import { KeyBuilder, prefixEnd } from '../storage/keys.js';
import { Table, timeKey } from '../storage/tables.js';
import { holderCountJson, statsAt, tokenAt } from '../tokens/read.js';

export const WINDOW_SECONDS = { '5m': 300, '1h': 3600, '4h': 14400, '24h': 86400 } as const;
export type WindowName = keyof typeof WINDOW_SECONDS;

/** Subjects the enumerator examines at most before refusing with suggestions (SCREENER_CEILING overrides, for tests). */
export const CANDIDATE_CEILING = Number(process.env.SCREENER_CEILING ?? 2_000);
/**
 * Swaps scanned per pool (newest first) for distinct traders; beyond it counts are lower bounds
 * (`exact: false`). SCREENER_DISTINCT_SCAN overrides, for tests only.
 */
export const DISTINCT_SCAN = Number(process.env.SCREENER_DISTINCT_SCAN ?? 2_000);
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
  holderCount: { value: number | null; status: string; asOfBlock: number; burnSinkHolders: number | null };
  lastTradeBlock: number;
}

export interface Coverage {
  coveredBlocks: number;
  windowFullyCovered: boolean;
  windowStart: number;
}

const tsOf = (chain: ChainContext, n: number): number => blockTimestamp(chain.store.rocks, n) ?? 0;

/**
 * First second of a window ending at `nowTs` (unix seconds): the first 1-minute bucket boundary
 * after `nowTs − W`. A window is therefore whole 1-minute buckets (the same alignment as the pool
 * stats windows), and every figure of a row (volumes, counts, distinct traders, covered blocks)
 * counts exactly the trades and blocks with timestamp in [windowStart, anchor timestamp].
 */
export function windowStartOf(nowTs: number, window: WindowName): number {
  return Math.floor((nowTs - WINDOW_SECONDS[window]) / 60) * 60 + 60;
}

/**
 * Blocks of the window the index holds (timestamp ≥ windowStart, number ≤ anchor), and whether
 * the index covers the whole window: it started at genesis (no block exists before it), or its
 * first block is no later than the window start.
 */
export function coverageOf(chain: ChainContext, anchor: number, window: WindowName): Coverage {
  const start = windowStartOf(tsOf(chain, anchor), window);
  const first = chain.store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
  const rows = chain.store.rocks.scan({
    gte: timeKey(start, 0),
    lt: Buffer.from([Table.TIME + 1]),
    limit: 1,
  });
  const firstIn = rows.length
    ? rows[0][0].readUInt32BE(9) * 0x1_0000_0000 + rows[0][0].readUInt32BE(13)
    : anchor + 1;
  return {
    coveredBlocks: Math.max(0, anchor - firstIn + 1),
    windowFullyCovered: first === 0 || tsOf(chain, first) <= start,
    windowStart: start,
  };
}

const meta = (chain: ChainContext, a: string, anchor: number) => {
  const t = tokenAt(chain.store.view(), a, anchor);
  return { address: a, symbol: t?.metadata?.symbol.value ?? null, name: t?.metadata?.name.value ?? null };
};

/** The figures of one 1-minute candle the screener sums (pool perspective, base units). */
type BucketFigures = Pick<
  CandleRow,
  'volume0' | 'volume1' | 'trades' | 'buys' | 'sells' | 'buyVolume0' | 'buyVolume1'
>;

/** A bucket with no trade at or before the anchor. */
const EMPTY_BUCKET: BucketFigures = {
  volume0: '0',
  volume1: '0',
  trades: 0,
  buys: 0,
  sells: 0,
  buyVolume0: '0',
  buyVolume1: '0',
};

/**
 * Window figures of one pool at `anchor`, oriented for `base`/`quote`: trades with timestamp in
 * [start, to] (`start` from {@link windowStartOf}, `to` the anchor's timestamp). Volumes and
 * counts from the 1-minute candles; distinct traders (transaction origins) from a newest-first
 * scan of the pool's swaps bounded by {@link DISTINCT_SCAN}.
 */
function poolFigures(
  chain: ChainContext,
  p: PoolRow,
  base: string,
  start: number,
  to: number,
  anchor: number,
) {
  const baseIs0 = p.currency0 === base;
  const pre = new KeyBuilder(54).u8(MarketTable.CANDLE).hex(p.key).u8(3).done();
  const lo = Buffer.concat([pre, new KeyBuilder(8).u64(start).done()]);
  const hi = Buffer.concat([pre, new KeyBuilder(8).u64(to + 1).done()]);
  let total = 0n;
  let buyQ = 0n;
  let trades = 0;
  let buys = 0;
  let sells = 0;
  for (const [, v] of chain.store.rocks.scan({ gte: lo, lt: hi })) {
    const row = JSON.parse(v.toString()) as CandleRow;
    // The bucket as of the anchor: a stored candle may already hold trades of later blocks (R1).
    const c: BucketFigures = candleAtBlock(chain.store.view(), p.key, row, 60, anchor) ?? EMPTY_BUCKET;
    const vq = BigInt(baseIs0 ? c.volume1 : c.volume0);
    const bq = baseIs0 ? BigInt(c.buyVolume1 ?? '0') : vq - BigInt(c.buyVolume0 ?? '0');
    total += vq;
    buyQ += bq;
    trades += c.trades;
    buys += baseIs0 ? c.buys : c.sells;
    sells += baseIs0 ? c.sells : c.buys;
  }
  // Distinct traders by transaction origin, newest first, bounded.
  const traders = new Set<string>();
  const buyers = new Set<string>();
  const sellers = new Set<string>();
  let scanned = 0;
  let exact = true;
  const sp = poolPrefix(MarketTable.SWAP, p.key);
  chain.store.rocks.each({ gte: sp, lt: swapKey(p.key, anchor + 1, 0), reverse: true }, (_k, v) => {
    const s = JSON.parse(v.toString()) as SwapRow;
    if (s.timestamp < start) return false;
    if (++scanned > DISTINCT_SCAN) {
      exact = false;
      return false;
    }
    traders.add(s.origin);
    const buy = baseIs0 ? s.side === 'buy' : s.side === 'sell';
    (buy ? buyers : sellers).add(s.origin);
    return true;
  });
  return { total, buyQ, trades, buys, sells, traders, buyers, sellers, exact };
}

/**
 * Computes the screener rows at `anchor` (unsorted, unfiltered by figures).
 * @throws ApiError with the candidate-set ceiling fields (503) when the enumerator would scan past it.
 */
export function enumerate(
  chain: ChainContext,
  q: ScreenerQuery,
  anchor: number,
): { rows: Row[]; scanned: number } {
  const rocks = chain.store.rocks;
  const now = tsOf(chain, anchor);
  const start = windowStartOf(now, q.window);
  const pre = new KeyBuilder(21).u8(MarketTable.POOL_BY_CURRENCY).hex(q.quote).done();
  const candidates: Array<{ p: PoolRow; last: number; base: string }> = [];
  rocks.each({ gte: pre, lt: prefixEnd(pre) }, (k) => {
    const p = poolAt(chain.store.view(), `0x${k.toString('hex', 21)}`, anchor);
    if (!p) return true;
    const base = p.currency0 === q.quote ? p.currency1 : p.currency0;
    if (q.base && base !== q.base) return true;
    // Last trade as of the anchor (the current state may already hold later trades).
    const last = stateAt(chain.store.view(), p.key, anchor)?.lastSwapBlock ?? -1;
    if (last < 0) return true;
    candidates.push({ p, last, base });
    return true;
  });
  // Subjects (a pool, or a base token's pools against the quote) with their last trade block.
  const all = new Map<string, Array<{ p: PoolRow; last: number; base: string }>>();
  for (const c of candidates) {
    const key = q.grain === 'pool' ? c.p.key : c.base;
    all.set(key, [...(all.get(key) ?? []), c]);
  }
  const lastOf = (ms: Array<{ last: number }>) => Math.max(...ms.map((m) => m.last));
  const groups = new Map(
    [...all].filter(([, ms]) => q.recency_floor_block === undefined || lastOf(ms) >= q.recency_floor_block),
  );
  const scanned = groups.size;
  if (scanned > CANDIDATE_CEILING) {
    // The smallest floor that keeps at most `ceiling` subjects (ties at the cut are excluded).
    const recency = [...groups.values()].map(lastOf).sort((a, b) => b - a);
    throw new ApiError(
      'projection_unavailable',
      `the candidate set (${scanned} subjects) exceeds the enumerator ceiling ${CANDIDATE_CEILING}; narrow it with recency_floor_block`,
      {
        suggestedRecencyFloorBlock: recency[CANDIDATE_CEILING] + 1,
        candidatesScanned: scanned,
        ceiling: CANDIDATE_CEILING,
        rankedAtBlock: anchor,
      },
    );
  }
  const fullCoverage = (chain.store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0) === 0;
  const rows: Row[] = [];
  for (const [subject, members] of groups) {
    const base = members[0].base;
    let total = 0n;
    let buyQ = 0n;
    let trades = 0;
    let buys = 0;
    let sells = 0;
    let exact = true;
    const traders = new Set<string>();
    const buyers = new Set<string>();
    const sellers = new Set<string>();
    for (const m of members) {
      const f = poolFigures(chain, m.p, base, start, now, anchor);
      total += f.total;
      buyQ += f.buyQ;
      trades += f.trades;
      buys += f.buys;
      sells += f.sells;
      exact &&= f.exact;
      for (const t of f.traders) traders.add(t);
      for (const t of f.buyers) buyers.add(t);
      for (const t of f.sellers) sellers.add(t);
    }
    const stats = statsAt(chain.store.view(), base, anchor);
    rows.push({
      subject,
      grain: q.grain,
      base: meta(chain, base, anchor),
      quote: meta(chain, q.quote, anchor),
      pools: members.map((m) => m.p.key),
      totalVolumeQuote: total,
      buyVolumeQuote: buyQ,
      sellVolumeQuote: total - buyQ,
      trades,
      buys,
      sells,
      distinctTraders: { lowerBound: traders.size, exact },
      distinctBuyers: { lowerBound: buyers.size, exact },
      distinctSellers: { lowerBound: sellers.size, exact },
      // The uniform holderCount of every holder-bearing route (the token routes' own rule).
      holderCount: JSON.parse(
        holderCountJson(stats, tokenAt(chain.store.view(), base, anchor), anchor, fullCoverage),
      ) as Row['holderCount'],
      lastTradeBlock: Math.max(...members.map((m) => m.last)),
    });
  }
  return { rows, scanned };
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

export function rowJson(
  r: Row,
  cov: Coverage,
  rank: number | null,
  rankWithinPrefilterSet: number | null,
): Record<string, unknown> {
  return {
    rank,
    rankWithinPrefilterSet,
    subject: r.subject,
    grain: r.grain,
    base: r.base,
    quote: r.quote,
    pools: r.pools,
    totalVolumeQuote: r.totalVolumeQuote.toString(),
    buyVolumeQuote: r.buyVolumeQuote.toString(),
    sellVolumeQuote: r.sellVolumeQuote.toString(),
    trades: r.trades,
    buys: r.buys,
    sells: r.sells,
    distinctTraders: r.distinctTraders,
    distinctBuyers: r.distinctBuyers,
    distinctSellers: r.distinctSellers,
    window: { coveredBlocks: cov.coveredBlocks, windowFullyCovered: cov.windowFullyCovered },
    holderCount: r.holderCount,
    lastTradeBlock: r.lastTradeBlock,
  };
}
