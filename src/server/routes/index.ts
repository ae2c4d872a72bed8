/** Every route of the service, in contract order. The router and the OpenAPI document both read this list. */
import type { Route } from '../route.js';
import { blockAtRoute } from './chain/block-at.js';
import { blockByHashRoute } from './chain/block-by-hash.js';
import { blockLogsRoute } from './chain/block-logs.js';
import { blockTransactionsRoute } from './chain/block-transactions.js';
import { blockRoute } from './chain/block.js';
import { receiptRoute } from './chain/receipt.js';
import { transactionLogsRoute } from './chain/transaction-logs.js';
import { transactionRoute } from './chain/transaction.js';
import { checkpointsRoute } from './monitoring/checkpoints.js';
import { gapsRoute } from './monitoring/gaps.js';
import { chainHealthRoute } from './monitoring/health.js';
import { liveRoute, readyRoute } from './monitoring/root-health.js';

export const routes: Route[] = [
  // Chain
  blockAtRoute,
  blockByHashRoute,
  blockRoute,
  blockTransactionsRoute,
  blockLogsRoute,
  transactionRoute,
  receiptRoute,
  transactionLogsRoute,
  // Monitoring
  liveRoute,
  readyRoute,
  chainHealthRoute,
  checkpointsRoute,
  gapsRoute,
];
