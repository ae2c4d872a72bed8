/** Row shapes of the wallets projection. Amounts are base-unit strings; costs exact rationals "n/d". */

/** A weighted-average-cost position of a wallet in `token`, valued in `quote`. */
export interface Position {
  token: string;
  quote: string;
  /** Token units held from trades (base units). */
  qty: string;
  /** Cost of the held quantity, quote base units, exact rational "n/d". */
  cost: string;
  /** Realised PnL, quote base units, exact rational "n/d". */
  realised: string;
  buys: number;
  sells: number;
  boughtQty: string;
  soldQty: string;
  /** Token units sold beyond what trades bought (inventory from transfers: zero cost basis). */
  unexplainedSold: string;
  firstBlock: number;
  lastBlock: number;
}

/**
 * A version of a {@link Position} as stored in `wallets.position_history`: the position at the end
 * of a block that traded it, without the parts its key holds (wallet, token, quote, and the block,
 * which is its `lastBlock`).
 */
export type PositionVersion = Omit<Position, 'token' | 'quote' | 'lastBlock'>;

/** One funder edge: value moved from `funder` to the wallet in one asset. */
export interface FundingEdge {
  funder: string;
  assetKind: 'native' | 'erc20';
  asset: string | null;
  first: { block: number; txIndex: number; logIndex: number | null; txHash: string; value: string };
  lastBlock: number;
  count: number;
  total: string;
}

/** A direction-aware transfer row of a wallet (native rows: assetKind `native`, asset null). */
export interface WalletTransferRow {
  block: number;
  txIndex: number;
  /** null for a native (top-level value) transfer. */
  logIndex: number | null;
  txHash: string;
  assetKind: 'native' | 'erc20';
  asset: string | null;
  from: string;
  to: string;
  /** Base units, decimal string. */
  value: string;
  direction: 'in' | 'out' | 'self';
}

/** The earliest incoming value transfer of a wallet in one asset. */
export interface FirstFunding {
  funder: string;
  assetKind: 'native' | 'erc20';
  asset: string | null;
  block: number;
  txIndex: number;
  logIndex: number | null;
  txHash: string;
  value: string;
}

/** When and how a wallet was first observed. */
export interface WalletFirstSeen {
  block: number;
  txIndex: number;
  logIndex: number | null;
  txHash: string;
  timestamp: number;
  evidence: string;
}

/** Block numbers at which an address was first seen as origin, created, or emitting logs. */
export interface AddressFlags {
  origin?: number;
  created?: number;
  emitted?: number;
}

/** The first buy of a cohort candidate. */
export interface CohortCandidate {
  block: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
}

/**
 * Children of one activity parent `(wallet, block, txIndex)`: the wallet's role bits in the
 * transaction (1 origin, 2 recipient; 0 when it is only a transfer party or swap origin), the
 * ordinals of its TRANSFER rows in that transaction (ascending: ERC-20 log indexes, then the native
 * ordinal 2^31 + txIndex) and the log indexes of its TRADE rows (ascending).
 */
export interface ActivityRefs {
  roles: number;
  transfers: number[];
  trades: number[];
}
