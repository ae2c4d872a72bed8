import { Type } from '@sinclair/typebox';
import { MarketTable, poolPrefix } from '../../../markets/tables.js';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { resolvePool } from './common.js';

/** GET /pools/{address}/liquidity-events (the pool group's twentieth route). */
export const poolLiquidityEventsRoute = defineRoute({
  id: 'pools.liquidityEvents',
  method: 'GET',
  path: '/pools/{address}/liquidity-events',
  scope: 'read',
  group: 'Pools',
  summary:
    'Liquidity adds and removes of a V2/V3 pool in coordinate order: V2 Mint/Burn (amounts in base units), V3 Mint/Burn (liquidity L, tick range, amounts) and Collect; each with origin. PAGE by (block, log index).',
  params: { address: Address },
  query: pageQuery(),
  response: OpenPaged(),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const p = resolvePool(ctx as never, 'address');
    const req = pageRequest(ctx, `${this.id}:${p.key}`);
    const pre = poolPrefix(MarketTable.LIQ_EVENT, p.key);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) =>
      readU64(k, 53) > req.anchor.number ? null : [v.toString(), k.subarray(53)],
    ).finish(`"pool":"${p.key}"`);
  },
});
