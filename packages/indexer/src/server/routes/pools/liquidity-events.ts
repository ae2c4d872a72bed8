import { poolRefKey } from '../../../markets/index.js';
import { POOL_LIQUIDITY_EVENTS } from '../../../schema/cursors.js';
import { pagedRoute } from '../../route-shapes.js';
import { ByAddress, refOf } from './common.js';
import { LiquidityEvent, MARKETS, PoolKey } from './schemas.js';

/** GET /pools/{address}/liquidity-events (the pool group's twentieth route). */
export const poolLiquidityEventsRoute = pagedRoute({
  id: 'pools.liquidityEvents',
  cursor: POOL_LIQUIDITY_EVENTS,
  path: '/pools/{address}/liquidity-events',
  scope: 'read',
  group: 'Pools',
  summary:
    'Liquidity adds and removes of a V2/V3 pool in coordinate order: V2 Mint/Burn (amounts in base units), V3 Mint/Burn (liquidity L, tick range, amounts) and Collect; each with origin. PAGE by (block, log index).',
  params: ByAddress,
  row: LiquidityEvent,
  extra: { pool: PoolKey },
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  requires: [MARKETS],
  subject: (ctx) => poolRefKey(refOf('address', ctx.params)),
  walk: (ctx, q, sink) => ({
    pool: ctx.readers.markets.liquidityEvents(ctx.view, refOf('address', ctx.params), q, sink).key,
  }),
});
