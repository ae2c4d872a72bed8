/** Wallet routes (18), scope `wallet`. */
import type { Route } from '../../route.js';
import {
  walletFundedByAllRoute,
  walletFundedByRoute,
  walletFundedSiblingsRoute,
  walletFunderOfRoute,
} from './funding.js';
import {
  walletActivityRoute,
  walletFirstSeenRoute,
  walletTradesRoute,
  walletTransactionsRoute,
  walletTransfersRoute,
} from './history.js';
import {
  walletAssetsRoute,
  walletCohortsRoute,
  walletOverviewRoute,
  walletPortfolioRoute,
} from './holdings.js';
import { walletInternalRoute } from './internal.js';
import { walletPnlDailyRoute, walletPnlRoute, walletPnlTokenRoute, walletPositionsRoute } from './pnl.js';

export const walletRoutes: Route[] = [
  walletActivityRoute,
  walletAssetsRoute,
  walletCohortsRoute,
  walletFirstSeenRoute,
  walletFundedByRoute,
  walletFundedByAllRoute,
  walletFundedSiblingsRoute,
  walletFunderOfRoute,
  walletInternalRoute,
  walletOverviewRoute,
  walletPnlRoute,
  walletPnlDailyRoute,
  walletPnlTokenRoute,
  walletPortfolioRoute,
  walletPositionsRoute,
  walletTradesRoute,
  walletTransactionsRoute,
  walletTransfersRoute,
];
