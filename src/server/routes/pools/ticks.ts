import { Type } from '@sinclair/typebox';
import { ratParse } from '../../../markets/rational.js';
import { defineRoute, type Route } from '../../route.js';
import { OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { ByAddress, ByV4, type Variant } from './common.js';
import { swapWalk } from './swaps.js';

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Ticks' : 'pools.ticks',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/ticks' : '/pools/{address}/ticks',
    scope: 'read',
    group: 'Pools',
    summary:
      'Per-trade tick rows {block, timestamp, logIndex, txHash, origin, side, amount0, amount1, priceNumerator, priceDenominator, tick}; the cursor is the same (block, log index) coordinate as swaps and bars. PAGE.',
    params: variant === 'v4' ? ByV4 : ByAddress,
    query: pageQuery(),
    response: OpenPaged(),
    errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      return swapWalk(ctx, variant, 'pools.tickCoordinate', (s) => {
        const p = ratParse(s.price);
        return `{"block":${s.block},"timestamp":${s.timestamp},"txIndex":${s.txIndex},"logIndex":${s.logIndex},"txHash":"${s.txHash}","origin":"${s.origin}","side":"${s.side}","amount0":"${s.amount0}","amount1":"${s.amount1}","priceNumerator":"${p.n}","priceDenominator":"${p.d}","tick":${s.tick}}`;
      });
    },
  });

export const poolTicksRoute = make('address');
export const v4PoolTicksRoute = make('v4');
