import { poolRefKey } from '../../../markets/index.js';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';
import { ByAddress, refOf } from './common.js';
import { LiquidityEvent, MARKETS, PoolKey } from './schemas.js';

/** GET /pools/{address}/liquidity-events (the pool group's twentieth route). */
export const poolLiquidityEventsRoute = defineRoute({
  id: 'pools.liquidityEvents',
  method: 'GET',
  path: '/pools/{address}/liquidity-events',
  scope: 'read',
  group: 'Pools',
  summary:
    'Liquidity adds and removes of a V2/V3 pool in coordinate order: V2 Mint/Burn (amounts in base units), V3 Mint/Burn (liquidity L, tick range, amounts) and Collect; each with origin. PAGE by (block, log index).',
  params: ByAddress,
  query: pageQuery(),
  response: Paged(LiquidityEvent, { pool: PoolKey }),
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  requires: [MARKETS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const ref = refOf('address', ctx.params);
    return paged(ctx, `${this.id}:${poolRefKey(ref)}`, (q, sink) => ({
      pool: ctx.readers.markets.liquidityEvents(ctx.view, ref, q, sink).key,
    }));
  },
});
