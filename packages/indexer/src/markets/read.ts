/** Reads of the markets projection as of an anchor block. */

import type { CandleRow, PoolProvenance, PoolRow, PoolState } from '../schema/rows/markets.js';
import { FRAME_IDS } from '../schema/rows/markets.js';
import { CANDLE, POOL, STATE_HIST, SWAP } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import { cmp, type Rational, ratParse } from './rational.js';

type Hex = `0x${string}`;
/** Width of a 1d candle bucket, seconds. */
const DAY_SECONDS = 86_400;

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

/**
 * How the pool was found: its factory event, or first sight after START_BLOCK (verified against
 * its factory, state seeded by eth_call at the block before). Rows written before provenance
 * existed were registered by their factory event.
 */
export function provenanceOf(p: PoolRow): PoolProvenance {
  return (
    p.provenance ?? {
      discovery: 'factory_event',
      verifiedAtBlock: p.created.block,
      seededAtBlock: null,
      creation: p.created,
    }
  );
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

/**
 * The candle frames an extreme at a block descends through, with their widths in seconds: a
 * bucket holding trades after the anchor is read through its sub-buckets of the next frame, down
 * to one second, whose trades up to the anchor are folded ({@link candleAtBlock}).
 */
const EXTREME_FRAMES = [
  ['1d', DAY_SECONDS],
  ['1h', 3_600],
  ['1m', 60],
  ['30s', 30],
  ['1s', 1],
] as const;

/**
 * All-time extreme of pool `key` as of block `at.block` over its 1d candles up to `at.ts`: high
 * (max of highs) or low (min of lows), price as a rational (currency1 per currency0 base units)
 * with its day bucket (unix seconds). A candle holding trades after the anchor is read as of the
 * anchor, through its 1h, 1m, 30s then 1s candles (every frame covers the same swaps), and the one
 * second holding the anchor from its swaps ({@link candleAtBlock}); so a later trade of the same
 * day never leaks into an older read, and a read mid-day costs at most 24 + 60 + 2 + 30 candles and
 * one second's swaps beside the day candles, not the day's swaps up to the anchor. Only the bucket
 * holding the anchor's timestamp can hold later trades (timestamps never decrease), and it is the
 * last of its frame read; it is not descended into when even its whole high (low) does not beat
 * the extreme of the buckets before it.
 */
export function extreme(
  view: View,
  key: string,
  at: At,
  which: 'high' | 'low',
): { price: Rational; bucket: number } | null {
  // The pool's state at the anchor carries its all-time extremes (markets v8): one reverse seek.
  const st = stateAt(view, key, at.block);
  if (!st) return null; // no state row at or below N: the pool had not traded
  if (st.high || st.swaps === 0) {
    const x = which === 'high' ? st.high : st.low;
    return x ? { price: ratParse(x.price), bucket: x.day } : null;
  }
  return extremeFromCandles(view, key, at, which);
}

/**
 * {@link extreme} from the 1d candles up to `at.ts`, for a state row written before markets v8
 * (no running extremes). A store is rebuilt at a version change, so no current store takes this
 * path; the e2e suites hold the running extremes to the swaps at or below N instead.
 */
export function extremeFromCandles(
  view: View,
  key: string,
  at: At,
  which: 'high' | 'low',
): { price: Rational; bucket: number } | null {
  let best: { price: Rational; bucket: number } | null = null;
  const consider = (c: CandleRow, day: number) => {
    const p = ratParse(which === 'high' ? c.high : c.low);
    if (!best || (which === 'high' ? cmp(p, best.price) > 0 : cmp(p, best.price) < 0))
      best = { price: p, bucket: day };
  };
  // A bucket read as of the anchor holds a subset of its trades: its high (low) is at most (least)
  // the stored one, so it cannot beat `best` when the stored one does not.
  const couldBeat = (c: CandleRow) => {
    const b = best as { price: Rational } | null;
    if (!b) return true;
    const x = cmp(ratParse(which === 'high' ? c.high : c.low), b.price);
    return which === 'high' ? x > 0 : x < 0;
  };
  const walk = (level: number, from: number, to: number, day: number | null) => {
    const [frame, width] = EXTREME_FRAMES[level];
    for (const stored of candlesIn(view, key, frame, from, to)) {
      const d = day ?? stored.t;
      if (stored.last[0] <= at.block) consider(stored, d);
      else if (stored.first[0] > at.block || !couldBeat(stored)) continue;
      else if (level + 1 < EXTREME_FRAMES.length)
        walk(level + 1, stored.t, Math.min(stored.t + width - 1, at.ts), d);
      else {
        const c = candleAtBlock(view, key, stored, width, at.block);
        if (c) consider(c, d);
      }
    }
  };
  walk(0, 0, at.ts, null);
  return best;
}
