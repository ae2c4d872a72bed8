/**
 * Token-grain series: candles on the default venue only, and candles aggregated exactly over the
 * token's pools against one quote (open = first trade across pools by chain coordinate, close =
 * last, high/low extremes, volumes summed; all oriented quote per token).
 */

import { type CandleRow, FRAME_IDS, type Frame, type PoolRow } from '../../../../markets/model.js';
import { cmp, type Rational, ratJson } from '../../../../markets/rational.js';
import { MarketTable } from '../../../../markets/tables.js';
import { orientCandle } from '../../../../markets/venue.js';
import { KeyBuilder } from '../../../../storage/keys.js';
import type { Ctx } from '../../../route.js';
import { candleAsOf } from '../../pools/common.js';

export type OrientedCandle = ReturnType<typeof orientCandle>;

/** Oriented candles of `pools` in [from, to] (bucket starts), merged per bucket, ascending. */
export function mergedCandles(
  ctx: Ctx<unknown, unknown>,
  pools: PoolRow[],
  token: string,
  frame: Frame,
  from: number,
  to: number,
  anchor: number,
  anchorTs: number,
): OrientedCandle[] {
  const byT = new Map<number, OrientedCandle>();
  const hiT = Math.min(to, anchorTs);
  for (const p of pools) {
    const pre = new KeyBuilder(54).u8(MarketTable.CANDLE).hex(p.key).u8(FRAME_IDS[frame]).done();
    const lo = Buffer.concat([pre, new KeyBuilder(8).u64(from).done()]);
    const hi = Buffer.concat([pre, new KeyBuilder(8).u64(hiT + 1).done()]);
    ctx.chain.store.rocks.each({ gte: lo, lt: hi }, (_k, v) => {
      const raw = candleAsOf(ctx, p, JSON.parse(v.toString()) as CandleRow, frame, anchor);
      if (!raw) return true;
      const c = orientCandle(p, token, raw);
      const have = byT.get(c.t);
      if (!have) {
        byT.set(c.t, c);
        return true;
      }
      const before = (a: [number, number], b: [number, number]) =>
        a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
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
      return true;
    });
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

export function orientedJson(
  c: OrientedCandle,
  scale?: (r: Rational, c: OrientedCandle) => Rational,
): Record<string, unknown> {
  const f = (r: Rational) => ratJson(scale ? scale(r, c) : r);
  return {
    t: c.t,
    open: f(c.open),
    high: f(c.high),
    low: f(c.low),
    close: f(c.close),
    ...f(c.close),
    volumeBase: c.volumeBase,
    volumeQuote: c.volumeQuote,
    trades: c.trades,
    buys: c.buys,
    sells: c.sells,
  };
}
