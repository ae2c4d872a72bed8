import { Type } from '@sinclair/typebox';
import type { SwapRow } from '../../../markets/model.js';
import { MarketTable, poolPrefix } from '../../../markets/tables.js';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute, type Route } from '../../route.js';
import { OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { ByAddress, ByV4, resolvePool, swapJson, type Variant } from './common.js';

/** Walks a pool's swaps at the page anchor; shared by swaps and ticks. */
export function swapWalk(
  ctx: Parameters<Route['handler']>[0],
  variant: Variant,
  routeId: string,
  render: (s: SwapRow) => string,
) {
  const p0 = resolvePool(ctx as never, variant);
  const req = pageRequest(ctx as never, `${routeId}:${p0.key}`);
  resolvePool(ctx as never, variant, req.anchor.number);
  const pre = poolPrefix(MarketTable.SWAP, p0.key);
  return walkRange(ctx as never, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) =>
    readU64(k, 53) > req.anchor.number ? null : [render(JSON.parse(v.toString()) as SwapRow), k.subarray(53)],
  ).finish(`"pool":"${p0.key}","base":"${p0.currency0}","quote":"${p0.currency1}"`);
}

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Swaps' : 'pools.swaps',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/swaps' : '/pools/{address}/swaps',
    scope: 'read',
    group: 'Pools',
    summary:
      'Exact swaps in pool perspective (amount0/amount1 signed base units: positive = the pool received), with block, transaction and log coordinates, origin (transaction sender), sender/recipient, side, and the price after the trade as a rational (currency1 per currency0, base units). PAGE by (block, log index).',
    params: variant === 'v4' ? ByV4 : ByAddress,
    query: pageQuery(),
    response: OpenPaged(),
    errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      return swapWalk(ctx, variant, this.id, (s) => JSON.stringify(swapJson(s)));
    },
  });

export const poolSwapsRoute = make('address');
export const v4PoolSwapsRoute = make('v4');
