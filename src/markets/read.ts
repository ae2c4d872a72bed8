/** Reads of the markets projection as of an anchor block. */
import type { View } from '../storage/index.js';
import { CANDLE, POOL, STATE_HIST, SWAP } from '../storage/tables/markets.js';
import type { CandleRow, PoolRow, PoolState } from './model.js';
import { FRAME_IDS } from './model.js';
import { cmp, type Rational, ratParse } from './rational.js';
import { poolPrefix } from './tables.js';

type Hex = `0x${string}`;

/** A read position: the anchor block and its timestamp (unix seconds). */
export interface At {
  block: number;
  ts: number;
}

/** The pool registered under `key` at or before `anchor`. */
export function poolAt(view: View, key: string, anchor: number): PoolRow | null {
  const p = view.get(POOL, key as Hex);
  return p && p.created.block <= anchor ? p : null;
}

/** State at the end of block `anchor` (latest history row ≤ anchor). */
export function stateAt(view: View, key: string, anchor: number): PoolState | null {
  return (
    view.first(STATE_HIST, { prefix: [key as Hex], lte: [key as Hex, anchor], reverse: true })?.value ?? null
  );
}

/** Candles of one frame with bucket start in [from, to], ascending. */
export function candlesIn(
  view: View,
  key: string,
  frame: keyof typeof FRAME_IDS,
  from: number,
  to: number,
): CandleRow[] {
  const f = FRAME_IDS[frame];
  const out: CandleRow[] = [];
  view.eachValue(CANDLE, { gte: [key as Hex, f, from], lte: [key as Hex, f, to] }, (c) => {
    out.push(c);
  });
  return out;
}

/**
 * The candle `c` (bucket width `width` seconds) exactly as of block `anchor`: the stored row when
 * its last trade is at or before the anchor; null when its first trade is after it; otherwise
 * recomputed from the pool's swap rows (0x65) of blocks first..anchor inside the bucket. A later
 * block in the same bucket never leaks into a read at an older anchor (R2).
 */
export function candleAtBlock(
  view: View,
  key: string,
  c: CandleRow,
  width: number,
  anchor: number,
): CandleRow | null {
  if (c.last[0] <= anchor) return c;
  if (c.first[0] > anchor) return null;
  let out: CandleRow | null = null;
  view.eachValue(SWAP, { gte: [key as Hex, c.first[0], c.first[1]], lt: [key as Hex, anchor + 1] }, (s) => {
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
export function windowStats(view: View, key: string, at: At): WindowStats[] {
  const nowTs = at.ts;
  const all: CandleRow[] = [];
  for (const c of candlesIn(view, key, '1m', windowFrom(nowTs, 86400), nowTs)) {
    const x = candleAtBlock(view, key, c, 60, at.block);
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
  view: View,
  key: string,
  anchorTs: number,
  which: 'high' | 'low',
): { price: Rational; bucket: number } | null {
  let best: { price: Rational; bucket: number } | null = null;
  for (const c of candlesIn(view, key, '1d', 0, anchorTs)) {
    const p = ratParse(which === 'high' ? c.high : c.low);
    if (!best || (which === 'high' ? cmp(p, best.price) > 0 : cmp(p, best.price) < 0))
      best = { price: p, bucket: c.t };
  }
  return best;
}

export { poolPrefix };
