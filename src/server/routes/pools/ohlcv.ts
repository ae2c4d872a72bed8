import { Type } from '@sinclair/typebox';
import { type CandleRow, FRAME_IDS, FRAMES, type Frame } from '../../../markets/model.js';
import { MarketTable } from '../../../markets/tables.js';
import { KeyBuilder } from '../../../storage/keys.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest } from '../../page.js';
import { defineRoute, type Route } from '../../route.js';
import { FrameQuery, OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { ByAddress, ByV4, candleAsOf, candleJson, resolvePool, timestampOf, type Variant } from './common.js';

/** Largest span of one candle request, in buckets of the requested frame. */
export const MAX_SPAN_BUCKETS = 10_000;

/** Validates and aligns frame/from/to. @throws ApiError bad_request. */
export function alignRange(
  frame: Frame,
  from: number,
  to: number,
): { from: number; to: number; width: number } {
  const width = FRAMES[frame];
  const f = Math.floor(from / width) * width;
  const t = Math.floor(to / width) * width;
  if (f > t) throw new ApiError('bad_request', '`from` must be ≤ `to`');
  if ((t - f) / width + 1 > MAX_SPAN_BUCKETS)
    throw new ApiError('bad_request', `span capped at ${MAX_SPAN_BUCKETS} buckets of ${frame}`);
  return { from: f, to: t, width };
}

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Ohlcv' : 'pools.ohlcv',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/ohlcv' : '/pools/{address}/ohlcv',
    scope: 'read',
    group: 'Pools',
    summary: `Candles at pool grain (base = currency0, quote = currency1): rational OHLC (currency1 per currency0 base units), volumeBase, volumeQuote, trades, buys, sells. frame 1s|30s|1m|1h|1d (all pools keep fine series: fineSeriesAvailable true); from/to unix seconds inclusive, aligned down; span ≤ ${MAX_SPAN_BUCKETS} buckets; empty buckets absent. PAGE by bucket start.`,
    params: variant === 'v4' ? ByV4 : ByAddress,
    query: { ...FrameQuery, ...pageQuery() },
    response: OpenPaged({ fineSeriesAvailable: Type.Boolean() }),
    errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const frame = ctx.query.frame as Frame;
      const { from, to } = alignRange(frame, ctx.query.from, ctx.query.to);
      const p0 = resolvePool(ctx as never, variant);
      const req = pageRequest(ctx as never, `${this.id}:${p0.key}:${frame}:${from}:${to}`);
      const p = resolvePool(ctx as never, variant, req.anchor.number);
      const anchorTs = timestampOf(ctx as never, req.anchor.number);
      const pre = new KeyBuilder(54).u8(MarketTable.CANDLE).hex(p.key).u8(FRAME_IDS[frame]).done();
      const key = (t: number) => Buffer.concat([pre, new KeyBuilder(8).u64(t).done()]);
      const hiT = Math.min(to, anchorTs);
      const lo = key(from);
      const hi = key(hiT + 1);
      const resume = req.after ? Buffer.concat([pre, req.after]) : null;
      const range =
        req.order === 'asc'
          ? resume
            ? { gt: resume, lt: hi }
            : { gte: lo, lt: hi }
          : { gte: lo, lt: resume ?? hi, reverse: true };
      const builder = new PageBuilder(ctx as never, req);
      ctx.chain.store.rocks.each(range, (k, v) => {
        const c = candleAsOf(
          ctx as never,
          p,
          JSON.parse(v.toString()) as CandleRow,
          frame,
          req.anchor.number,
        );
        if (!c) return true;
        return builder.push(JSON.stringify(candleJson(c)), k.subarray(54));
      });
      return builder.finish(
        `"pool":"${p.key}","frame":"${frame}","from":${from},"to":${to},"base":"${p.currency0}","quote":"${p.currency1}","priceUnit":"currency1 base units per currency0 base unit","fineSeriesAvailable":true`,
      );
    },
  });

export const poolOhlcvRoute = make('address');
export const v4PoolOhlcvRoute = make('v4');
