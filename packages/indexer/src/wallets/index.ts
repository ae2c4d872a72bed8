/**
 * The wallets domain: per-wallet transactions, transfers, trades and activity, weighted-average-cost
 * positions and PnL, the funding graph, holdings and the portfolio, address observations. Exports
 * the projection factory and the reader.
 */

export type {
  FirstFunding,
  FundingEdge,
  WalletFirstSeen,
  WalletTransferRow,
} from '../schema/rows/wallets.js';
export { EDGE_LIST_BOUND, type FundedByAll, type FundedEdge, type FundedSiblings } from './funding.js';
export type { ActivityEvent, ActivityRow, TradeRow, WalletTxRow } from './history.js';
export {
  type AssetRow,
  type AssetSort,
  type Portfolio,
  type PortfolioPredicate,
  SORT_BUDGET,
} from './holdings.js';
export {
  type DailyPnl,
  PNL_SCAN_BOUND,
  type PnlAggregate,
  type PositionFilter,
  type PositionView,
  type QuoteSum,
  type RationalWithFloor,
} from './pnl.js';
export {
  type AddressInternalRow,
  createWalletsReader,
  type InternalCoverage,
  type WalletOverview,
  type WalletsReader,
  type WalletsReaderDeps,
} from './reader.js';
