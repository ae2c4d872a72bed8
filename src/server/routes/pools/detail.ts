import { Type } from '@sinclair/typebox';
import { defineRoute, type Route, single } from '../../route.js';
import { Single } from '../../schemas.js';
import {
  ByAddress,
  ByV4,
  liquidityJson,
  poolIdentity,
  resolvePool,
  stateAt,
  statsJson,
  timestampOf,
  type Variant,
} from './common.js';

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Detail' : 'pools.detail',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}' : '/pools/{address}',
    scope: 'read',
    group: 'Pools',
    summary:
      variant === 'v4'
        ? 'V4 pool identity (contract = PoolManager, poolId, currencies, fee, tickSpacing, hooks, creation coordinate, provenance: factory_event or first_sight with verifiedAtBlock/seededAtBlock) with state and embedded stats.'
        : 'V2/V3 pool identity (protocol, currencies, fee, tick spacing, factory coordinate, provenance: factory_event or first_sight with verifiedAtBlock/seededAtBlock) with state and embedded stats. V4 pools: /pools/v4/{manager}/{pool_id}.',
    params: variant === 'v4' ? ByV4 : ByAddress,
    response: Single(Type.Object({}, { additionalProperties: true })),
    errors: ['not_found', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const p = resolvePool(ctx as never, variant);
      const A = ctx.anchor.number;
      const st = stateAt(ctx.view, p.key, A);
      return single(
        ctx.anchor,
        JSON.stringify({
          ...poolIdentity(p),
          state: { ...liquidityJson(p, st), swaps: st?.swaps ?? 0, lastSwapBlock: st?.lastSwapBlock ?? null },
          stats: statsJson(ctx as never, p, { block: A, ts: timestampOf(ctx as never, A) }),
        }),
      );
    },
  });

export const poolDetailRoute = make('address');
export const v4PoolDetailRoute = make('v4');
