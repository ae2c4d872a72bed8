/**
 * The rolling stats windows of the markets domain, listed once: 5m, 1h, 4h and 24h, each made of
 * whole 1-minute buckets. A trade at unix time t belongs to a window ending at the anchor iff
 * t ≥ {@link windowFrom}(anchor timestamp, seconds) and its block is at or before the anchor —
 * the same rule for volumes, counts, prices and distinct traders on every route (pool stats,
 * token stats, overview, detail, traders, screener).
 */

import { NO_TRADES, type SwapRow, type TradeFigures } from '../schema/rows/markets.js';
import { SWAP } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import {
  type CumRow,
  cumAt,
  distinctSince,
  firstBlockAtOrAfter,
  firstCumIn,
  poolsTradedSince,
} from './cumulative.js';
import { type Rational, ratParse } from './rational.js';
import type { At } from './read.js';

type Hex = `0x${string}`;

/** The window names, shortest first. */
export const WINDOW_NAMES = ['5m', '1h', '4h', '24h'] as const;
export type WindowName = (typeof WINDOW_NAMES)[number];
/** Seconds of each window. */
export const WINDOW_SECONDS: Record<WindowName, number> = {
  '5m': 300,
  '1h': 3600,
  '4h': 14400,
  '24h': 86400,
};
/** The windows as `[name, seconds]` pairs, shortest first. */
export const WINDOWS: Array<[WindowName, number]> = WINDOW_NAMES.map((w) => [w, WINDOW_SECONDS[w]]);

/** How windows are aligned, as stated on responses. */
export const WINDOW_ALIGNMENT = 'windows cover 1-minute buckets (t − window, t]';

/**
 * First second of a window of `secs` seconds ending at `nowTs` (unix seconds): the first 1-minute
 * bucket start strictly after nowTs − secs.
 */
export const windowFrom = (nowTs: number, secs: number): number => Math.floor((nowTs - secs) / 60) * 60 + 60;

/**
 * Swaps examined per pool and request for distinct traders (newest first); beyond it the counts
 * are lower bounds (`exact: false`). One bound for pool stats, token stats and the screener.
 * DISTINCT_SCAN_LIMIT overrides it (tests only, so the bound can be reached on a devnet).
 */
export const DISTINCT_SCAN_LIMIT = Number(process.env.DISTINCT_SCAN_LIMIT ?? 20_000);

/** Rolling window figures of one pool (pool perspective: currency0/currency1, base units). */
export interface WindowStats extends TradeFigures {
  window: WindowName;
  seconds: number;
  /** First and last trade price of the window (currency1 per currency0), null without trades. */
  open: Rational | null;
  close: Rational | null;
}

/** First block of each window (shortest first) as of `at`, memoised per read position. */
const windowStarts = new WeakMap<At, Array<number | undefined>>();
function startsOf(view: View, at: At): Array<number | undefined> {
  let s = windowStarts.get(at);
  if (!s) {
    s = WINDOWS.map(([, secs]) => firstBlockAtOrAfter(view, windowFrom(at.ts, secs)));
    windowStarts.set(at, s);
  }
  return s;
}

const emptyWindow = (name: WindowName, secs: number): WindowStats => ({
  window: name,
  seconds: secs,
  ...NO_TRADES,
  open: null,
  close: null,
});

/**
 * Window statistics of pool `key` exactly as of block `at.block`, from the running totals the
 * markets projection keeps (cumulative.ts): each window is the difference of the pool's last
 * totals row at or before the anchor and its last row before the window's first block; the open
 * is the first traded block's first price in the window, the close the anchor row's last price.
 * A constant number of seeks per window, whatever the pool's volume.
 */
export function windowStats(view: View, key: string, at: At): WindowStats[] {
  const hi = cumAt(view, key, at.block);
  return WINDOWS.map((_, i) => oneWindow(view, key, at, hi, i));
}

/** The 24h window alone (venue choice and pool rankings read only it): two seeks at most. */
export function dayWindow(view: View, key: string, at: At): WindowStats {
  return oneWindow(view, key, at, cumAt(view, key, at.block), WINDOWS.length - 1);
}

/** The 24h window of a pool known not to have traded in it. */
export const idleDay = (): WindowStats => emptyWindow('24h', WINDOW_SECONDS['24h']);

/**
 * The pools of `token` that traded in the 24h window as of `at` (see poolsTradedSince), or null
 * when that cannot be told without reading each pool.
 */
export function tradedInDay(view: View, token: string, at: At): Set<string> | null {
  const b0 = startsOf(view, at)[WINDOWS.length - 1];
  if (b0 === undefined || b0 > at.block) return new Set();
  return poolsTradedSince(view, token, b0, at.block);
}

/** Window `i` of {@link WINDOWS} from the anchor's totals row `hi` (see {@link windowStats}). */
function oneWindow(view: View, key: string, at: At, hi: CumRow | undefined, i: number): WindowStats {
  const [name, secs] = WINDOWS[i];
  const b0 = startsOf(view, at)[i];
  if (!hi || b0 === undefined || b0 > at.block || hi.block < b0) return emptyWindow(name, secs);
  const lo = cumAt(view, key, b0 - 1)?.cum;
  const first = firstCumIn(view, key, b0, at.block)!;
  const h = hi.cum;
  return {
    window: name,
    seconds: secs,
    volume0: (h.volume0 - (lo?.volume0 ?? 0n)).toString(),
    volume1: (h.volume1 - (lo?.volume1 ?? 0n)).toString(),
    trades: h.trades - (lo?.trades ?? 0),
    buys: h.buys - (lo?.buys ?? 0),
    sells: h.sells - (lo?.sells ?? 0),
    buyVolume0: (h.buyVolume0 - (lo?.buyVolume0 ?? 0n)).toString(),
    buyVolume1: (h.buyVolume1 - (lo?.buyVolume1 ?? 0n)).toString(),
    // The open is the first traded block's first price: read only when the window had trades.
    open: ratParse(first.cum.open),
    close: ratParse(h.close),
  };
}

/** A distinct count: exact when every swap of the window was examined. */
export interface DistinctCount {
  lowerBound: number;
  exact: boolean;
}

/**
 * Visits the swaps of pool `key` with block ≤ `anchor` and timestamp ≥ `fromTs`, newest first, at
 * most {@link DISTINCT_SCAN_LIMIT}. Returns whether every such swap was visited.
 */
export function scanWindowSwaps(
  view: View,
  key: string,
  anchor: number,
  fromTs: number,
  visit: (s: SwapRow) => void,
): boolean {
  let scanned = 0;
  let exact = true;
  view.eachValue(SWAP, { prefix: [key as Hex], lte: [key as Hex, anchor], reverse: true }, (s) => {
    if (s.timestamp < fromTs) return false;
    if (++scanned > DISTINCT_SCAN_LIMIT) {
      exact = false;
      return false;
    }
    visit(s);
    return true;
  });
  return exact;
}

/**
 * Distinct traders (transaction origins) of pool `key` per window as of `at`: a count over the
 * last-swap index (one row per origin) when the pool has not traded after the anchor, else a
 * bounded newest-first walk over its swaps.
 */
export function distinctTraders(view: View, key: string, at: At): Record<WindowName, DistinctCount> {
  const from = Object.fromEntries(WINDOWS.map(([w, s]) => [w, windowFrom(at.ts, s)])) as Record<
    WindowName,
    number
  >;
  const starts = startsOf(view, at);
  if (starts.every((b) => b === undefined || b > at.block))
    return Object.fromEntries(WINDOW_NAMES.map((w) => [w, { lowerBound: 0, exact: true }])) as Record<
      WindowName,
      DistinctCount
    >;
  const indexed = distinctSince(
    view,
    key,
    at.block,
    starts.map((b) => b ?? at.block + 1),
    DISTINCT_SCAN_LIMIT,
  );
  if (indexed)
    return Object.fromEntries(
      WINDOW_NAMES.map((w, i) => [w, { lowerBound: indexed.counts[i], exact: indexed.exact }]),
    ) as Record<WindowName, DistinctCount>;
  const sets = Object.fromEntries(WINDOW_NAMES.map((w) => [w, new Set<string>()])) as Record<
    WindowName,
    Set<string>
  >;
  const exact = scanWindowSwaps(view, key, at.block, from['24h'], (s) => {
    for (const w of WINDOW_NAMES) if (s.timestamp >= from[w]) sets[w].add(s.origin);
  });
  return Object.fromEntries(WINDOW_NAMES.map((w) => [w, { lowerBound: sets[w].size, exact }])) as Record<
    WindowName,
    DistinctCount
  >;
}
