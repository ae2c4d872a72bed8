/**
 * `@chain-indexer/indexer/types`: the rows the index answers with (client-facing shapes, as the
 * readers return them and the routes render them). Types only.
 */

/** An address's summary. */
export type { AddressSummary } from '../addresses/index.js';
/** A cohort of holders and one member of it. */
export type { CohortRow, MemberRow } from '../cohorts/index.js';
/** A pool, a swap, a token's trade, and an exact ratio. */
export type { PoolRow, Rational, SwapRow, TokenTrade } from '../markets/index.js';
/** A token's authority events, launch and transfers. */
export type { AuthorityEvent, LaunchRow, TransferRow } from '../schema/rows/tokens.js';
/** One funding edge of the wallets' funding graph. */
export type { FundingEdge } from '../schema/rows/wallets.js';
/** A token's list row, holder count and holder. */
export type { HolderCount, HolderRow, TokenListRow } from '../tokens/index.js';
/** A wallet's assets, trades, first funding, positions, PnL, first sighting and transfers. */
export type {
  AssetRow,
  FirstFunding,
  PnlAggregate,
  PositionView,
  TradeRow,
  WalletFirstSeen,
  WalletTransferRow,
} from '../wallets/index.js';
