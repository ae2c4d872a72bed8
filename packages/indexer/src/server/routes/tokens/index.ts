/** Token routes (31): registry, balances, holders, launches, and market routes. */
import type { Route } from '../../route.js';
import { tokenAuthorityEventsRoute } from './authority-events.js';
import { tokenBalanceRoute } from './balance.js';
import { tokenCreatorRoute } from './creator.js';
import { creatorTokensRoute } from './creator-tokens.js';
import { tokenDetailRoute } from './detail.js';
import { tokenFirstSeenRoute } from './first-seen.js';
import { tokenHoldersRoute } from './holders.js';
import { tokenLaunchRoute } from './launch.js';
import { launchpadLaunchesRoute } from './launchpad-launches.js';
import { launchpadsRoute } from './launchpads.js';
import { tokensListRoute } from './list.js';
import { tokenCandlesRoute, tokenMcapSeriesRoute, tokenOhlcvRoute } from './market/candles.js';
import { tokenOverviewRoute } from './market/overview.js';
import {
  tokenLiquidityRoute,
  tokenPoolsAggregateRoute,
  tokenPoolsByCurrencyRoute,
  tokenPoolsRankedRoute,
} from './market/pools.js';
import {
  tokenAthRoute,
  tokenAtlRoute,
  tokenMcapRoute,
  tokenPriceRoute,
  tokenVenueRoute,
} from './market/price.js';
import { tokenStatsRoute } from './market/stats.js';
import { tokenSwapsRoute, tokenTicksRoute, tokenTradersRoute } from './market/trades.js';
import { tokensSearchRoute } from './search.js';
import { tokenTopHoldersRoute } from './top-holders.js';
import { tokenTransfersRoute } from './transfers.js';

export const tokenRoutes: Route[] = [
  tokensListRoute,
  tokensSearchRoute,
  tokenDetailRoute,
  tokenCreatorRoute,
  tokenFirstSeenRoute,
  tokenAuthorityEventsRoute,
  tokenBalanceRoute,
  tokenHoldersRoute,
  tokenTopHoldersRoute,
  tokenTransfersRoute,
  tokenLaunchRoute,
  creatorTokensRoute,
  launchpadsRoute,
  launchpadLaunchesRoute,
  tokenOverviewRoute,
  tokenStatsRoute,
  tokenOhlcvRoute,
  tokenCandlesRoute,
  tokenMcapRoute,
  tokenMcapSeriesRoute,
  tokenAthRoute,
  tokenAtlRoute,
  tokenLiquidityRoute,
  tokenPoolsAggregateRoute,
  tokenPoolsRankedRoute,
  tokenPoolsByCurrencyRoute,
  tokenVenueRoute,
  tokenPriceRoute,
  tokenSwapsRoute,
  tokenTradersRoute,
  tokenTicksRoute,
];
