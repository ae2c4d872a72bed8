/** Reads of the markets projection as of an anchor block. */
import type { Rocks } from '../storage/index.js';
import { KeyBuilder } from '../storage/keys.js';
import type { CandleRow, PoolRow, PoolState, SwapRow } from './model.js';
import { FRAME_IDS } from './model.js';
import { cmp, type Rational, ratParse } from './rational.js';
import { MarketTable, poolKey, poolPrefix, stateHistKey, swapKey } from './tables.js';

/** A read position: the anchor block and its timestamp (unix seconds). */
export interface At {
  block: number;
  ts: number;
}

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

/**
 * The candle `c` (bucket width `width` seconds) exactly as of block `anchor`: the stored row when
 * its last trade is at or before the anchor; null when its first trade is after it; otherwise
 * recomputed from the pool's swap rows (0x65) of blocks first..anchor inside the bucket. A later
 * block in the same bucket never leaks into a read at an older anchor (R2).
 */
export function candleAtBlock(
  rocks: Rocks,
  key: string,
  c: CandleRow,
  width: number,
  anchor: number,
): CandleRow | null {
  if (c.last[0] <= anchor) return c;
  if (c.first[0] > anchor) return null;
  let out: CandleRow | null = null;
  rocks.each({ gte: swapKey(key, c.first[0], c.first[1]), lt: swapKey(key, anchor + 1, 0) }, (_k, v) => {
    const s = JSON.parse(v.toString()) as SwapRow;
    if (s.timestamp < c.t) return true;
    if (s.timestamp >= c.t + width) return false;
    const price = ratParse(s.price);
    const a0 = BigInt(s.amount0) < 0n ? -BigInt(s.amount0) : BigInt(s.amount0);
    const a1 = BigInt(s.amount1) < 0n ? -BigInt(s.amount1) : BigInt(s.amount1);
    const buy = s.side === 'buy';
    if (!out) {
      out = {
        t: c.t,
        open: s.price,
        high: s.price,
        low: s.price,
        close: s.price,
        volume0: a0.toString(),
        volume1: a1.toString(),
        trades: 1,
        buys: buy ? 1 : 0,
        sells: buy ? 0 : 1,
        buyVolume0: buy ? a0.toString() : '0',
        buyVolume1: buy ? a1.toString() : '0',
        first: [s.block, s.logIndex],
        last: [s.block, s.logIndex],
      };
      return true;
    }
    const o = out as CandleRow;
    o.close = s.price;
    o.last = [s.block, s.logIndex];
    if (cmp(price, ratParse(o.high)) > 0) o.high = s.price;
    if (cmp(price, ratParse(o.low)) < 0) o.low = s.price;
    o.volume0 = (BigInt(o.volume0) + a0).toString();
    o.volume1 = (BigInt(o.volume1) + a1).toString();
    o.trades++;
    if (buy) {
      o.buys++;
      o.buyVolume0 = (BigInt(o.buyVolume0) + a0).toString();
      o.buyVolume1 = (BigInt(o.buyVolume1) + a1).toString();
    } else o.sells++;
    return true;
  });
  return out;
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
 * aligned to minute buckets (stated on responses), as of block `at.block` exactly: the anchor's own
 * bucket is cut at the anchor (candleAtBlock), so later blocks of the same minute never count.
 */
export function windowStats(rocks: Rocks, key: string, at: At): WindowStats[] {
  const nowTs = at.ts;
  const all: CandleRow[] = [];
  for (const c of candlesIn(rocks, key, '1m', windowFrom(nowTs, 86400), nowTs)) {
    const x = candleAtBlock(rocks, key, c, 60, at.block);
    if (x) all.push(x);
  }
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
