/**
 * The rolling stats windows of the markets domain, listed once: 5m, 1h, 4h and 24h, each made of
 * whole 1-minute buckets. A trade at unix time t belongs to a window ending at the anchor iff
 * t ≥ {@link windowFrom}(anchor timestamp, seconds) and its block is at or before the anchor —
 * the same rule for volumes, counts, prices and distinct traders on every route (pool stats,
 * token stats, overview, detail, traders, screener).
 */
import type { View } from '../storage/index.js';
import { SWAP } from '../storage/tables/markets.js';
import type { CandleRow, SwapRow } from './model.js';
import { type Rational, ratParse } from './rational.js';
import { type At, candleAtBlock, candlesIn } from './read.js';

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
export interface WindowStats {
  window: WindowName;
  seconds: number;
  volume0: string;
  volume1: string;
  trades: number;
  buys: number;
  sells: number;
  /** |amount0| and |amount1| of buy trades (trader received currency0), base units. */
  buyVolume0: string;
  buyVolume1: string;
  /** First and last trade price of the window (currency1 per currency0), null without trades. */
  open: Rational | null;
  close: Rational | null;
}

/**
 * Window statistics of pool `key` from its 1-minute candles, exactly as of block `at.block`: the
 * anchor's own bucket is cut at the anchor (candleAtBlock), so later blocks of the same minute
 * never count.
 */
export function windowStats(view: View, key: string, at: At): WindowStats[] {
  const all: CandleRow[] = [];
  for (const c of candlesIn(view, key, '1m', windowFrom(at.ts, 86400), at.ts)) {
    const x = candleAtBlock(view, key, c, 60, at.block);
    if (x) all.push(x);
  }
  return WINDOWS.map(([name, secs]) => {
    const from = windowFrom(at.ts, secs);
    const cs = all.filter((c) => c.t >= from);
    const sum = (f: (c: CandleRow) => string) => cs.reduce((a, c) => a + BigInt(f(c) ?? '0'), 0n).toString();
    return {
      window: name,
      seconds: secs,
      volume0: sum((c) => c.volume0),
      volume1: sum((c) => c.volume1),
      trades: cs.reduce((a, c) => a + c.trades, 0),
      buys: cs.reduce((a, c) => a + c.buys, 0),
      sells: cs.reduce((a, c) => a + c.sells, 0),
      buyVolume0: sum((c) => c.buyVolume0),
      buyVolume1: sum((c) => c.buyVolume1),
      open: cs.length ? ratParse(cs[0].open) : null,
      close: cs.length ? ratParse(cs[cs.length - 1].close) : null,
    };
  });
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

/** Distinct traders (transaction origins) of pool `key` per window as of `at`. */
export function distinctTraders(view: View, key: string, at: At): Record<WindowName, DistinctCount> {
  const from = Object.fromEntries(WINDOWS.map(([w, s]) => [w, windowFrom(at.ts, s)])) as Record<
    WindowName,
    number
  >;
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
