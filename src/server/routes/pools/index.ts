/** Pool routes (20). */
import type { Route } from '../../route.js';
import { poolBarsRoute, v4PoolBarsRoute } from './bars.js';
import { poolDetailRoute, v4PoolDetailRoute } from './detail.js';
import { poolAthRoute, poolAtlRoute } from './extremes.js';
import { poolLiquidityRoute, v4PoolLiquidityRoute } from './liquidity.js';
import { poolLiquidityEventsRoute } from './liquidity-events.js';
import { currencyPoolsRoute, newPoolsRoute, poolSearchRoute } from './lists.js';
import { poolOhlcvRoute, v4PoolOhlcvRoute } from './ohlcv.js';
import { poolStatsRoute, v4PoolStatsRoute } from './stats.js';
import { poolSwapsRoute, v4PoolSwapsRoute } from './swaps.js';
import { poolTicksRoute, v4PoolTicksRoute } from './ticks.js';

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
