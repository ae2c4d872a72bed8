/** Stream routes (11), scope `stream`. */
import type { Route } from '../../route.js';
import { candleStreamRoute } from './candles.js';
import { subscribeRoute } from './subscribe.js';
import { topicStreamRoutes } from './topics.js';

export const streamRoutes: Route[] = [...topicStreamRoutes, candleStreamRoute, subscribeRoute];
