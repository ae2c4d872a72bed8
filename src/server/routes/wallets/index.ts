/** Wallet routes (18), scope `wallet`: internal transfers built; the rest pending issue F. */
import type { Route } from '../../route.js';
import { walletInternalRoute } from './internal.js';
import { walletPendingRoutes } from './pending.js';

export const walletRoutes: Route[] = [walletInternalRoute, ...walletPendingRoutes];
