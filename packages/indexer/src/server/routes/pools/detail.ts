import { Type } from '@sinclair/typebox';
import { liquidityJson, poolIdentity, poolStatsJson } from '../../../markets/index.js';
import type { Route } from '../../route.js';
import { singleRoute } from '../../route-shapes.js';
import { Obj } from '../../schemas.js';
import { poolRouteOf, refOf, type Variant } from './common.js';
import {
  AS_OF_POOL,
  MARKETS,
  PoolStateSchema,
  PoolWindowStats,
  poolIdentityProps,
  poolStatsProps,
} from './schemas.js';

const make = (variant: Variant): Route =>
  singleRoute({
    ...poolRouteOf(variant, 'detail', ''),
    cached: true,
    summary:
      (variant === 'v4'
        ? 'V4 pool identity (contract = PoolManager, poolId, currencies, fee, tickSpacing, hooks, creation coordinate, provenance: factory_event or first_sight with verifiedAtBlock/seededAtBlock) with state and embedded stats.'
        : 'V2/V3 pool identity (protocol, currencies, fee, tick spacing, factory coordinate, provenance: factory_event or first_sight with verifiedAtBlock/seededAtBlock) with state and embedded stats. V4 pools: /pools/v4/{manager}/{pool_id}.') +
      AS_OF_POOL,
    data: Obj({ ...poolIdentityProps, state: PoolStateSchema, stats: PoolWindowStats }),
    errors: ['not_found'],
    requires: [MARKETS],
    asOf: true,
    read(ctx) {
      const d = ctx.readers.markets.poolDetail(ctx.view, refOf(variant, ctx.params), ctx.anchor.number);
      return {
        ...poolIdentity(d.pool),
        state: {
          ...liquidityJson(d.pool, d.state),
          swaps: d.state?.swaps ?? 0,
          lastSwapBlock: d.state?.lastSwapBlock ?? null,
        },
        stats: poolStatsJson(d.pool, d.stats),
      };
    },
  });

export const poolDetailRoute = make('address');
export const v4PoolDetailRoute = make('v4');

const makeStats = (variant: Variant): Route =>
  singleRoute({
    ...poolRouteOf(variant, 'stats', '/stats'),
    cached: true,
    summary:
      'Rolling 5m/1h/4h/24h statistics (windows of whole 1-minute buckets): two-sided volumes (base units), trades, buys, sells, exact price change (rational), and distinctTraders {lowerBound, exact} per window (by transaction origin; exact when the bounded newest-first swap scan covered the window).' +
      AS_OF_POOL,
    data: Obj({
      pool: Type.String({ pattern: '^0x[0-9a-f]{104}$', description: 'pool key' }),
      ...poolStatsProps,
      distinctTradersBasis: Type.Literal('transaction origin', { description: 'who counts as a trader' }),
    }),
    errors: ['not_found'],
    requires: [MARKETS],
    asOf: true,
    read(ctx) {
      const s = ctx.readers.markets.poolStats(ctx.view, refOf(variant, ctx.params), ctx.anchor.number);
      return {
        pool: s.pool.key,
        ...poolStatsJson(s.pool, s.stats),
        distinctTradersBasis: 'transaction origin',
      };
    },
  });

export const poolStatsRoute = makeStats('address');
export const v4PoolStatsRoute = makeStats('v4');
