import { Type } from '@sinclair/typebox';
import { defineRoute, type Route, single } from '../../route.js';
import { Single } from '../../schemas.js';
import { ByAddress, ByV4, liquidityJson, resolvePool, stateAt, type Variant } from './common.js';
import { usdMarksOf } from './usd.js';

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Liquidity' : 'pools.liquidity',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/liquidity' : '/pools/{address}/liquidity',
    scope: 'read',
    group: 'Pools',
    summary:
      'Exact protocol-native liquidity at the anchor (V2/curve reserves in base units; V3/V4 sqrtPriceX96, tick and active liquidity L), never merged across kinds; liquidityUsd (exact rational USD through a documented stablecoin route, or null with a reason) with its stated liquidityUsdBasis: reserves for V2/curves, in_range_virtual_reserves for V3/V4 (L·2^96/sqrtPriceX96 and L·sqrtPriceX96/2^96, not the pool balance) and the valued amounts liquidityUsdAmounts; usdMarks provenance.',
    params: variant === 'v4' ? ByV4 : ByAddress,
    response: Single(Type.Object({}, { additionalProperties: true })),
    errors: ['not_found', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const p = resolvePool(ctx as never, variant);
      const st = stateAt(ctx.view, p.key, ctx.anchor.number);
      const usd = usdMarksOf(ctx as never, p, st);
      return single(
        ctx.anchor,
        JSON.stringify({ pool: p.key, protocol: p.protocol, liquidity: liquidityJson(p, st), ...usd }),
      );
    },
  });

export const poolLiquidityRoute = make('address');
export const v4PoolLiquidityRoute = make('v4');
