import { Type } from '@sinclair/typebox';
import { type Bar, poolRefKey, ratJson, type SwapRow, swapJson } from '../../../markets/index.js';
import { POOL_BARS, POOL_SWAPS, TICK_TAG } from '../../../schema/cursors.js';
import { paged } from '../../page.js';
import { defineRoute, type Route } from '../../route.js';
import { Address, AmountQuery, Paged, pageQuery } from '../../schemas.js';
import { poolRouteOf, refOf, type Variant } from './common.js';
import { BarSchema, MARKETS, PoolKey, SwapSchema, TickSchema } from './schemas.js';

const PageExtra = {
  pool: PoolKey,
  base: { ...Address, description: 'currency0' },
  quote: { ...Address, description: 'currency1' },
};
const extra = (p: { key: string; currency0: string; currency1: string }) => ({
  pool: p.key,
  base: p.currency0,
  quote: p.currency1,
});

const tickJson = (s: SwapRow) => {
  const p = swapJson(s) as { priceNumerator: string; priceDenominator: string; priceApprox: unknown };
  return `{"block":${s.block},"timestamp":${s.timestamp},"txIndex":${s.txIndex},"logIndex":${s.logIndex},"txHash":"${s.txHash}","origin":"${s.origin}","side":"${s.side}","amount0":"${s.amount0}","amount1":"${s.amount1}","priceNumerator":"${p.priceNumerator}","priceDenominator":"${p.priceDenominator}","priceApprox":${JSON.stringify(p.priceApprox)},"tick":${s.tick}}`;
};

const barJson = (b: Bar) =>
  JSON.stringify({
    first: b.first,
    last: b.last,
    trades: b.trades,
    open: ratJson(b.open),
    high: ratJson(b.high),
    low: ratJson(b.low),
    close: ratJson(b.close),
    volumeBase: b.volumeBase.toString(),
    volumeQuote: b.volumeQuote.toString(),
    complete: b.complete,
  });

const swapsRoute = (variant: Variant, kind: 'swaps' | 'ticks'): Route =>
  defineRoute({
    ...poolRouteOf(variant, kind, `/${kind}`),
    method: 'GET',
    summary:
      kind === 'swaps'
        ? 'Exact swaps in pool perspective (amount0/amount1 signed base units: positive = the pool received), with block, transaction and log coordinates, origin (transaction sender), sender/recipient, side, and the price after the trade as a rational (currency1 per currency0, base units). PAGE by (block, log index).'
        : 'Per-trade tick rows {block, timestamp, logIndex, txHash, origin, side, amount0, amount1, priceNumerator, priceDenominator, tick}; the cursor is the same (block, log index) coordinate as swaps and bars. PAGE. As of a block: atBlock / atBlockHash (the ticks at or below N: order=desc&limit=1 is the tick after the last trade at or before N; not_found before the pool was registered).',
    query: pageQuery(),
    response: Paged(kind === 'swaps' ? SwapSchema : TickSchema, PageExtra),
    errors: ['not_found', 'bad_cursor', 'stale_cursor'],
    requires: [MARKETS],
    batchable: true,
    anchored: true,
    // The tick rows are keyed by block: the walk stops at the anchor (poolPageRange).
    asOf: kind === 'ticks',
    handler(ctx) {
      const ref = refOf(variant, ctx.params);
      // Ticks and bars share one cursor coordinate: a tick cursor resumes bars and vice versa.
      const tag = POOL_SWAPS.tag(kind === 'ticks' ? TICK_TAG : this.id, poolRefKey(ref));
      const render = kind === 'swaps' ? (s: SwapRow) => JSON.stringify(swapJson(s)) : tickJson;
      return paged(
        ctx,
        tag,
        (q, sink) => extra(ctx.readers.markets.poolSwaps(ctx.view, ref, q, sink)),
        render,
      );
    },
  });

export const poolSwapsRoute = swapsRoute('address', 'swaps');
export const v4PoolSwapsRoute = swapsRoute('v4', 'swaps');
export const poolTicksRoute = swapsRoute('address', 'ticks');
export const v4PoolTicksRoute = swapsRoute('v4', 'ticks');

const barsRoute = (variant: Variant): Route =>
  defineRoute({
    ...poolRouteOf(variant, 'bars', '/ticks/bars'),
    method: 'GET',
    summary:
      "Bars folded over the tick sequence: rule=trade closes a bar every `size` trades; rule=volume closes it when the bar's quote volume (|amount1|, base units) reaches `size`. Rows {first, last (tick coordinates), trades, open/high/low/close rationals, volumeBase, volumeQuote, complete}. The cursor is the tick coordinate (block, log index) where the next bar starts. Ascending only.",
    query: {
      rule: Type.Union([Type.Literal('trade'), Type.Literal('volume')], {
        description: 'trade: every `size` trades; volume: when Σ|amount1| reaches `size`',
      }),
      size: AmountQuery,
      ...pageQuery({ orders: ['asc'] }),
    },
    response: Paged(BarSchema, {
      pool: PoolKey,
      rule: Type.Union([Type.Literal('trade'), Type.Literal('volume')], { description: 'the bar rule' }),
      size: Type.String({ pattern: '^[1-9][0-9]*$', description: 'the bar size, decimal string' }),
      volumeSide: Type.Literal('quote (currency1, |amount1|)', { description: 'the side volume bars count' }),
    }),
    errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor', 'query_too_broad'],
    requires: [MARKETS],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const ref = refOf(variant, ctx.params);
      const { rule } = ctx.query;
      const size = BigInt(ctx.query.size);
      return paged(
        ctx,
        POOL_BARS.tag(TICK_TAG, poolRefKey(ref)),
        (q, sink) => {
          const p = ctx.readers.markets.poolBars(ctx.view, ref, rule, size, q, sink);
          return { pool: p.key, rule, size: size.toString(), volumeSide: 'quote (currency1, |amount1|)' };
        },
        barJson,
        { order: 'asc' },
      );
    },
  });

export const poolBarsRoute = barsRoute('address');
export const v4PoolBarsRoute = barsRoute('v4');
