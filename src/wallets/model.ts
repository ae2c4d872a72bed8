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
