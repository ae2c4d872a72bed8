/** Token routes (31): registry, balances, holders, launches (built) and market routes (pending issue E). */
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
import { tokenPendingRoutes } from './pending.js';
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
  ...tokenPendingRoutes,
];
