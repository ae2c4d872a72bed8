/** Reads of the markets projection as of an anchor block. */
import type { Rocks } from '../storage/index.js';
import { KeyBuilder } from '../storage/keys.js';
import type { CandleRow, PoolRow, PoolState } from './model.js';
import { FRAME_IDS } from './model.js';
import { cmp, type Rational, ratParse } from './rational.js';
import { MarketTable, poolKey, poolPrefix, stateHistKey } from './tables.js';

/** The pool registered under `key` at or before `anchor`. */
export function poolAt(rocks: Rocks, key: string, anchor: number): PoolRow | null {
  const v = rocks.get(poolKey(key));
  if (!v) return null;
  const p = JSON.parse(v.toString()) as PoolRow;
  return p.created.block <= anchor ? p : null;
}

/** State at the end of block `anchor` (latest history row ≤ anchor). */
export function stateAt(rocks: Rocks, key: string, anchor: number): PoolState | null {
  const lo = stateHistKey(key, 0);
  const rows = rocks.scan({ gte: lo, lt: stateHistKey(key, anchor + 1), reverse: true, limit: 1 });
  return rows.length ? (JSON.parse(rows[0][1].toString()) as PoolState) : null;
}

/** Candles of one frame with bucket start in [from, to], ascending. */
export function candlesIn(
  rocks: Rocks,
  key: string,
  frame: keyof typeof FRAME_IDS,
  from: number,
  to: number,
): CandleRow[] {
  const p = new KeyBuilder(54).u8(MarketTable.CANDLE).hex(key).u8(FRAME_IDS[frame]).done();
  const lo = Buffer.concat([p, new KeyBuilder(8).u64(from).done()]);
  const hi = Buffer.concat([p, new KeyBuilder(8).u64(to + 1).done()]);
  return rocks.scan({ gte: lo, lt: hi }).map(([, v]) => JSON.parse(v.toString()) as CandleRow);
}

/** Rolling window figures for one pool ending at `nowTs` (unix seconds), from 1m candles. */
export interface WindowStats {
  window: string;
  seconds: number;
  volume0: string;
  volume1: string;
  trades: number;
  buys: number;
  sells: number;
  open: Rational | null;
  close: Rational | null;
}

export const WINDOWS: Array<[string, number]> = [
  ['5m', 300],
  ['1h', 3600],
  ['4h', 14400],
  ['24h', 86400],
];

/**
 * First 1-minute bucket start of a rolling window of `secs` seconds ending at `nowTs`: the first
 * bucket starting strictly after now − secs. A trade at unix time t belongs to the window iff
 * t ≥ windowFrom(nowTs, secs) (and its block is at or before the anchor), the same rule for
 * volumes, counts, prices and distinct traders.
 */
export const windowFrom = (nowTs: number, secs: number): number => Math.floor((nowTs - secs) / 60) * 60 + 60;

/**
 * Window statistics from 1m candles whose bucket lies in (now − window, now], so a window is
 * aligned to minute buckets (stated on responses). Candles can include trades of blocks after the
 * anchor only if their bucket is the anchor's; callers pass candles filtered by the anchor's time.
 */
export function windowStats(rocks: Rocks, key: string, nowTs: number): WindowStats[] {
  const all = candlesIn(rocks, key, '1m', windowFrom(nowTs, 86400), nowTs);
  return WINDOWS.map(([name, secs]) => {
    const from = windowFrom(nowTs, secs);
    const cs = all.filter((c) => c.t >= from);
    let v0 = 0n;
    let v1 = 0n;
    let trades = 0;
    let buys = 0;
    let sells = 0;
    for (const c of cs) {
      v0 += BigInt(c.volume0);
      v1 += BigInt(c.volume1);
      trades += c.trades;
      buys += c.buys;
      sells += c.sells;
    }
    return {
      window: name,
      seconds: secs,
      volume0: v0.toString(),
      volume1: v1.toString(),
      trades,
      buys,
      sells,
      open: cs.length ? ratParse(cs[0].open) : null,
      close: cs.length ? ratParse(cs[cs.length - 1].close) : null,
    };
  });
}

/** All-time extreme over 1d candles up to `anchorTs`: high (max of highs) or low (min of lows). */
export function extreme(
  rocks: Rocks,
  key: string,
  anchorTs: number,
  which: 'high' | 'low',
): { price: Rational; bucket: number } | null {
  let best: { price: Rational; bucket: number } | null = null;
  for (const c of candlesIn(rocks, key, '1d', 0, anchorTs)) {
    const p = ratParse(which === 'high' ? c.high : c.low);
    if (!best || (which === 'high' ? cmp(p, best.price) > 0 : cmp(p, best.price) < 0))
      best = { price: p, bucket: c.t };
  }
  return best;
}

export { poolPrefix };
