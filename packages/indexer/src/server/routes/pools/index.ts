/** Pool routes (20). */
import type { Route } from '../../route.js';
import { poolDetailRoute, poolStatsRoute, v4PoolDetailRoute, v4PoolStatsRoute } from './detail.js';
import { poolAthRoute, poolAtlRoute, poolLiquidityRoute, v4PoolLiquidityRoute } from './liquidity.js';
import { poolLiquidityEventsRoute } from './liquidity-events.js';
import { currencyPoolsRoute, newPoolsRoute, poolSearchRoute } from './lists.js';
import { poolOhlcvRoute, v4PoolOhlcvRoute } from './ohlcv.js';
import {
  poolBarsRoute,
  poolSwapsRoute,
  poolTicksRoute,
  v4PoolBarsRoute,
  v4PoolSwapsRoute,
  v4PoolTicksRoute,
} from './swaps.js';

export const poolRoutes: Route[] = [
  currencyPoolsRoute,
  poolDetailRoute,
  poolAthRoute,
  poolAtlRoute,
  poolLiquidityRoute,
  poolLiquidityEventsRoute,
  poolOhlcvRoute,
  poolStatsRoute,
  poolSwapsRoute,
  poolTicksRoute,
  poolBarsRoute,
  newPoolsRoute,
  poolSearchRoute,
  v4PoolDetailRoute,
  v4PoolLiquidityRoute,
  v4PoolOhlcvRoute,
  v4PoolStatsRoute,
  v4PoolSwapsRoute,
  v4PoolTicksRoute,
  v4PoolBarsRoute,
];
