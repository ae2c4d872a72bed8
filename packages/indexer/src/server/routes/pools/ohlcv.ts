import { Type } from '@sinclair/typebox';
import {
  alignRange,
  type Frame,
  MAX_SPAN_BUCKETS,
  poolCandleJson,
  poolRefKey,
} from '../../../markets/index.js';
import { CANDLE_BUCKETS } from '../../../schema/cursors.js';
import { paged } from '../../page.js';
import { defineRoute, type Route } from '../../route.js';
import { Address, FrameQuery, Paged, pageQuery, UnixSeconds } from '../../schemas.js';
import { poolRouteOf, refOf, type Variant } from './common.js';
import { candleSchema, MARKETS, POOL_PRICE_UNIT, PoolKey } from './schemas.js';

const make = (variant: Variant): Route =>
  defineRoute({
    ...poolRouteOf(variant, 'ohlcv', '/ohlcv'),
    method: 'GET',
    summary: `Candles at pool grain (base = currency0, quote = currency1): rational OHLC (currency1 per currency0 base units), volumeBase, volumeQuote, trades, buys, sells. frame 1s|30s|1m|1h|1d (all pools keep fine series: fineSeriesAvailable true); from/to unix seconds inclusive, aligned down; span ≤ ${MAX_SPAN_BUCKETS} buckets; empty buckets absent. PAGE by bucket start.`,
    query: { ...FrameQuery, ...pageQuery() },
    response: Paged(candleSchema(POOL_PRICE_UNIT, 'currency0', 'currency1'), {
      pool: PoolKey,
      frame: Type.Union(
        ['1s', '30s', '1m', '1h', '1d'].map((f) => Type.Literal(f)),
        { description: 'bucket width' },
      ),
      from: UnixSeconds('first bucket start (aligned down)'),
      to: UnixSeconds('last bucket start (aligned down)'),
      base: { ...Address, description: 'currency0' },
      quote: { ...Address, description: 'currency1' },
      priceUnit: Type.Literal(POOL_PRICE_UNIT, { description: 'unit of the prices' }),
      fineSeriesAvailable: Type.Boolean({ description: 'true: every pool keeps 1s and 30s series' }),
    }),
    errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor'],
    requires: [MARKETS],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const ref = refOf(variant, ctx.params);
      const frame = ctx.query.frame as Frame;
      // The cursor is bound to the aligned range (bad_request before any read).
      const r = alignRange(frame, ctx.query.from, ctx.query.to);
      return paged(
        ctx,
        CANDLE_BUCKETS.tag(this.id, poolRefKey(ref), frame, r.from, r.to),
        (q, sink) => {
          const { pool: p, range } = ctx.readers.markets.poolCandles(ctx.view, ref, r, q, sink);
          const [base, quote] = [p.currency0, p.currency1];
          return {
            pool: p.key,
            frame,
            from: range.from,
            to: range.to,
            base,
            quote,
            priceUnit: POOL_PRICE_UNIT,
            fineSeriesAvailable: true,
          };
        },
        poolCandleJson,
      );
    },
  });

export const poolOhlcvRoute = make('address');
export const v4PoolOhlcvRoute = make('v4');
