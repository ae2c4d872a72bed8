/**
 * The tokens domain: registry, balances (R9), holders, transfers, authority events, launches and
 * reconciliation against the node. Exports the projection factory and the reader.
 */

export { type BalanceFidelity, type FidelityStatus, fidelityFrom } from './fidelity.js';
export type { LaunchpadDeployments } from './launchpads.js';
export { balanceAt, tokenAt } from './read.js';
export {
  type BalanceWithCoverage,
  createTokensReader,
  type HolderCount,
  type HolderIdRow,
  type HolderRow,
  type OverviewHolderCount,
  type TokenCoverage,
  type TokensPrimitives,
  type TokensReader,
} from './reader.js';
export { type TokenIdentity, type TokenListRow, tokenIdentity, tokenListRow } from './render.js';
export type {
  HolderSort,
  HoldersPageExtras,
  HoldersPageRow,
  TokenBalance,
  TokenDetail,
  TokenResponses,
  TopHolderRow,
  TopHoldersExtras,
} from './responses.js';
