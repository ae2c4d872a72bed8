/**
 * Every route of the service, in contract order. The router and the OpenAPI document both read
 * this list (plus the /metrics entry, which lives on the loopback metrics listener only).
 */
import type { Route } from '../route.js';
import { addressLabelRoute, addressSummaryRoute, addressTypeRoute } from './addresses/addresses.js';
import { batchRoute } from './batch/batch.js';
import { blockRoute } from './chain/block.js';
import { blockAtRoute } from './chain/block-at.js';
import { blockByHashRoute } from './chain/block-by-hash.js';
import { blockLogsRoute } from './chain/block-logs.js';
import { blockLogsDecodedRoute } from './chain/block-logs-decoded.js';
import { blockTransactionsRoute } from './chain/block-transactions.js';
import { receiptRoute } from './chain/receipt.js';
import { transactionRoute } from './chain/transaction.js';
import { transactionCallsRoute } from './chain/transaction-calls.js';
import { transactionDecodedRoute } from './chain/transaction-decoded.js';
import { transactionInternalRoute } from './chain/transaction-internal.js';
import { transactionLogsRoute } from './chain/transaction-logs.js';
import { transactionLogsDecodedRoute } from './chain/transaction-logs-decoded.js';
import {
  cohortDetailRoute,
  cohortEdgesRoute,
  cohortMembersRoute,
  cohortsByTokenRoute,
} from './cohorts/cohorts.js';
import { contractCodeRoute } from './contracts/code.js';
import { checkpointsRoute } from './monitoring/checkpoints.js';
import { gapsRoute } from './monitoring/gaps.js';
import { chainHealthRoute } from './monitoring/health.js';
import { liveRoute, readyRoute } from './monitoring/root-health.js';
import { poolRoutes } from './pools/index.js';
import { rpcBalanceRoute, rpcCodeRoute, rpcHeadRoute, rpcTokenMetadataRoute } from './rpc/routes.js';
import { rankingRoute, rankingsRoute } from './screener/rankings.js';
import { screenerRoute } from './screener/screener.js';
import { streamRoutes } from './streams/index.js';
import { tokenRoutes } from './tokens/index.js';
import { walletRoutes } from './wallets/index.js';

export const routes: Route[] = [
  ...tokenRoutes,
  ...poolRoutes,
  ...walletRoutes,
  // Chain (13)
  blockAtRoute,
  blockByHashRoute,
  blockRoute,
  blockTransactionsRoute,
  blockLogsRoute,
  transactionRoute,
  receiptRoute,
  transactionLogsRoute,
  blockLogsDecodedRoute,
  transactionLogsDecodedRoute,
  transactionDecodedRoute,
  transactionCallsRoute,
  transactionInternalRoute,
  ...streamRoutes,
  screenerRoute,
  rankingsRoute,
  rankingRoute,
  cohortsByTokenRoute,
  cohortDetailRoute,
  cohortEdgesRoute,
  cohortMembersRoute,
  addressSummaryRoute,
  addressTypeRoute,
  addressLabelRoute,
  // Live RPC (4)
  rpcHeadRoute,
  rpcBalanceRoute,
  rpcCodeRoute,
  rpcTokenMetadataRoute,
  // Contracts (1)
  contractCodeRoute,
  // Batch (1)
  batchRoute,
  // Monitoring (5 here + /metrics on the loopback listener)
  liveRoute,
  readyRoute,
  chainHealthRoute,
  checkpointsRoute,
  gapsRoute,
];
