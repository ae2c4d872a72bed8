/**
 * Candles as of an anchor: a pool's series (pool grain, base = currency0), a token's series on
 * one or several pools (oriented quote per token, merged exactly per bucket), and all-time
 * extremes. Every stored candle is cut at the anchor (candleAtBlock, R2).
 */

import { DomainError } from '../errors/index.js';
import { CANDLE_BUCKETS } from '../schema/cursors.js';
import { type CandleRow, FRAME_IDS, FRAMES, type Frame, type PoolRow } from '../schema/rows/markets.js';
import { CANDLE } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { cmp, invert, priceFieldsJson, type Rational, ratJson, ratParse } from './rational.js';
import { type At, candleAtBlock, candlesIn, extreme } from './read.js';
import { orientCandle, tokenIsBase } from './venue.js';

type Hex = `0x${string}`;

/** Largest span of one candle request, in buckets of the requested frame. */
export const MAX_SPAN_BUCKETS = 10_000;

/** A bucket range: starts aligned down to the frame width, inclusive. */
export interface CandleRange {
  frame: Frame;
  from: number;
  to: number;
}

/**
 * Validates and aligns frame/from/to (unix seconds, inclusive, aligned down to the bucket width).
 * @throws DomainError bad_request when from > to or the span exceeds {@link MAX_SPAN_BUCKETS}.
 */
export function alignRange(frame: Frame, from: number, to: number): CandleRange {
  const width = FRAMES[frame];
  const f = Math.floor(from / width) * width;
  const t = Math.floor(to / width) * width;
  if (f > t) throw new DomainError('bad_request', '`from` must be ≤ `to`');
  if ((t - f) / width + 1 > MAX_SPAN_BUCKETS)
    throw new DomainError('bad_request', `span capped at ${MAX_SPAN_BUCKETS} buckets of ${frame}`);
  return { frame, from: f, to: t };
}

/** Resume key of a candle walk: the bucket start (the declared cursor, src/schema/cursors.ts). */
const bucketKey = (t: number) => CANDLE_BUCKETS.encode(t);

/**
 * Candles of pool `p` in `r` (bucket starts up to the anchor's timestamp), as of the page anchor,
 * in the page's order; empty buckets are absent. Resume key: the bucket start.
 */
export function walkPoolCandles(
  view: View,
  p: PoolRow,
  r: CandleRange,
  anchorTs: number,
  page: PageQuery,
  sink: PageSink<CandleRow>,
): void {
  const f = FRAME_IDS[r.frame];
  const k = p.key as Hex;
  const hiT = Math.min(r.to, anchorTs);
  if (hiT < r.from) return;
  view.each(
    CANDLE,
    {
      gte: [k, f, r.from],
      lte: [k, f, hiT],
      reverse: page.order === 'desc',
      resume: { under: [k, f], suffix: page.after },
    },
    (stored) => {
      const c = candleAtBlock(view, p.key, stored, FRAMES[r.frame], page.at);
      if (!c) return true;
      return sink(c, bucketKey(c.t));
    },
  );
}

/** A candle oriented for a token: prices quote base units per token base unit. */
export type OrientedCandle = ReturnType<typeof orientCandle>;

const before = (a: [number, number], b: [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/**
 * Oriented candles of `pools` in `r`, merged per bucket (open = first trade across pools by chain
 * coordinate, close = last, high/low extremes, volumes and counts summed), ascending.
 */
export function mergedCandles(
  view: View,
  pools: PoolRow[],
  token: string,
  r: CandleRange,
  anchor: number,
  anchorTs: number,
): OrientedCandle[] {
  const byT = new Map<number, OrientedCandle>();
  const hiT = Math.min(r.to, anchorTs);
  for (const p of pools) {
    for (const stored of candlesIn(view, p.key, r.frame, r.from, hiT)) {
      const raw = candleAtBlock(view, p.key, stored, FRAMES[r.frame], anchor);
      if (!raw) continue;
      const c = orientCandle(p, token, raw);
      const have = byT.get(c.t);
      if (!have) {
        byT.set(c.t, c);
        continue;
      }
      if (before(c.first, have.first)) {
        have.open = c.open;
        have.first = c.first;
      }
      if (before(have.last, c.last)) {
        have.close = c.close;
        have.last = c.last;
      }
      if (cmp(c.high, have.high) > 0) have.high = c.high;
      if (cmp(c.low, have.low) < 0) have.low = c.low;
      have.volumeBase = (BigInt(have.volumeBase) + BigInt(c.volumeBase)).toString();
      have.volumeQuote = (BigInt(have.volumeQuote) + BigInt(c.volumeQuote)).toString();
      have.trades += c.trades;
      have.buys += c.buys;
      have.sells += c.sells;
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

/** Pushes merged candles into a page in its order, resuming after the bucket start of the cursor. */
export function pageCandles<R>(
  rows: OrientedCandle[],
  page: PageQuery,
  render: (c: OrientedCandle) => R,
  sink: PageSink<R>,
): void {
  const list = page.order === 'desc' ? [...rows].reverse() : rows;
  const after = page.after ? CANDLE_BUCKETS.decode(page.after)[0] : null;
  for (const c of list) {
    if (after !== null && (page.order === 'asc' ? c.t <= after : c.t >= after)) continue;
    if (!sink(render(c), bucketKey(c.t))) return;
  }
}

/** A token's all-time extreme across pools: the price, the pool and day bucket, and whether it was inverted. */
export interface TokenExtreme {
  price: Rational;
  pool: string;
  bucket: number;
  inverted: boolean;
}

/**
 * All-time high or low of `token` over `pools` as of `at` (1d candles up to its timestamp, each
 * read as of its block), oriented quote per token: a pool listing the token as currency1 is
 * inverted, so its lows become the token's highs.
 */
export function tokenExtreme(
  view: View,
  pools: PoolRow[],
  token: string,
  at: At,
  which: 'high' | 'low',
): TokenExtreme | null {
  let best: TokenExtreme | null = null;
  for (const p of pools) {
    const base = tokenIsBase(p, token);
    const x = extreme(view, p.key, at, base === (which === 'high') ? 'high' : 'low');
    if (!x) continue;
    const price = base ? x.price : invert(x.price);
    if (!best || (which === 'high' ? cmp(price, best.price) > 0 : cmp(price, best.price) < 0))
      best = { price, pool: p.key, bucket: x.bucket, inverted: !base };
  }
  return best;
}

/**
 * The candle row every surface serves (REST /pools/…/ohlcv and /tokens/…/candles, and the candle
 * stream frames), as JSON text: rational OHLC as {priceNumerator, priceDenominator}, the close
 * repeated flat, volumeBase/volumeQuote in base units, trades, buys and sells.
 */
export function orientedCandleJson(c: Omit<OrientedCandle, 'first' | 'last'>): string {
  return JSON.stringify({
    t: c.t,
    open: ratJson(c.open),
    high: ratJson(c.high),
    low: ratJson(c.low),
    close: ratJson(c.close),
    ...priceFieldsJson(c.close),
    volumeBase: c.volumeBase,
    volumeQuote: c.volumeQuote,
    trades: c.trades,
    buys: c.buys,
    sells: c.sells,
  });
}

/** A stored candle at pool grain (base = currency0, quote = currency1) as {@link orientedCandleJson}. */
export function poolCandleJson(c: CandleRow): string {
  return orientedCandleJson({
    t: c.t,
    open: ratParse(c.open),
    high: ratParse(c.high),
    low: ratParse(c.low),
    close: ratParse(c.close),
    volumeBase: c.volume0,
    volumeQuote: c.volume1,
    trades: c.trades,
    buys: c.buys,
    sells: c.sells,
  });
}
