/** Row shapes of the tokens projection (stored as JSON; amounts as decimal strings). */

/** A chain coordinate: block, transaction index, and log index (null for a creation). */
export interface Coordinate {
  block: number;
  txIndex: number;
  logIndex: number | null;
  txHash: string;
}

/** How the token was first observed. */
export type FirstSeenEvidence = 'top_level_creation' | 'launch_event' | 'transfer_log' | 'weth_deposit';

export interface TokenRow {
  address: string;
  firstSeen: Coordinate & { evidence: FirstSeenEvidence };
  /** Where and by whom the contract was created; null with `creationReason` when not observed. */
  creation:
    | (Coordinate & { deployer: string; via: 'transaction' | 'launchpad'; factory: string | null })
    | null;
  creationReason: 'creation_not_observed' | null;
  /** Coordinate of the first ERC-20 Transfer from this address; null = creation-only candidate. */
  confirmedAt: Coordinate | null;
  metadata: TokenMetadata | null;
  metadataReason: 'not_probed' | null;
  /** Block the metadata was probed at (eth_call). */
  metadataBlock: number | null;
  /**
   * The token had code before the indexed range (eth_getCode at START_BLOCK − 1 at first sight, on
   * a chain indexed from a late START_BLOCK): its balances and supply were seeded, and only wallets
   * seen since are known. Absent (false) when every transfer of the token was seen.
   */
  predatesIndexedRange?: boolean;
}

/** Per-token counters as of the end of a block. */
export interface TokenStats {
  /** Wallets with a positive balance, burn sinks excluded. */
  holders: number;
  /** Burn-sink addresses (0x0, 0x…dead) with a non-zero balance. */
  burnSinkHolders: number;
  /** Wallets whose running sum is negative (tokens whose balances do not follow their events). */
  negativeBalances: number;
  transfers: number;
  /** Minted minus burned to the zero address (WETH: deposits minus withdrawals), base units. */
  supplyFromTransfers: string;
  lastChangeBlock: number;
  /**
   * For a token created before START_BLOCK: the block whose end state seeded the supply
   * (totalSupply() by eth_call at the block before its first observed transfer); absent otherwise.
   */
  seededAtBlock?: number;
  /** Seeds the node could not answer (pruned state): those balances started at zero and are partial. */
  seedFailures?: number;
}

export interface LaunchRow {
  launchpad: string;
  token: string;
  creator: string;
  launchSequence: string;
  state: 'new' | 'graduating' | 'graduated';
  name: string;
  symbol: string;
  metadataUri: string | null;
  metadataUriReason: string | null;
  imageUri: string | null;
  imageUriReason: string | null;
  imageProvenance: { source: 'launch_event'; scheme: string | null; raw: string };
  created: Coordinate;
  graduationStarted: Coordinate | null;
  graduated: (Coordinate & { pool: string }) | null;
}

export const ZERO = '0x0000000000000000000000000000000000000000';
/** Addresses treated as burn sinks: excluded from the balance-ranked holder index. */
export const BURN_SINKS = new Set([ZERO, '0x000000000000000000000000000000000000dead']);

/** A token transfer row (TRANSFER table): mints come from, burns go to, the zero address. */
export interface TransferRow {
  block: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
  from: string;
  to: string;
  /** Base units, decimal string. */
  value: string;
  /** `transfer` (ERC-20 Transfer), `mint` (WETH Deposit), `burn` (WETH Withdrawal). */
  kind: 'transfer' | 'mint' | 'burn';
}

/** A privileged-action log shape (evidence only, no verdict). */
export type AuthorityEvent = Coordinate &
  (
    | { kind: 'ownership_transferred'; previousOwner: string; newOwner: string }
    | { kind: 'post_creation_mint'; to: string; value: string }
  );

/** Why a metadata field has no value. */
export type AbsenceReason =
  | 'no_code' // the address holds no contract at that block
  | 'reverted' // the call reverted (method missing without fallback, or failing)
  | 'empty_return' // the call succeeded but returned no data (method missing, fallback accepted)
  | 'undecodable' // returned data fits neither ABI string nor bytes32
  | 'non_utf8' // a string whose bytes are not valid UTF-8 (raw kept in `raw`)
  | 'out_of_range' // decimals above 255
  | 'node_state_unavailable'; // the node cannot answer calls at that block (pruned history)

export interface MetaField<T> {
  value: T | null;
  reason: AbsenceReason | null;
  /** How a string was encoded: ABI `string`, or `bytes32` (e.g. MKR); null for non-strings. */
  encoding: 'string' | 'bytes32' | null;
  /** Raw return data when the value could not be decoded. */
  raw?: `0x${string}`;
}

export interface TokenMetadata {
  name: MetaField<string>;
  symbol: MetaField<string>;
  decimals: MetaField<number>;
  /** Exact total supply in base units, decimal string. */
  totalSupply: MetaField<string>;
  /** keccak256 of the runtime code at the probed block, or null with `codeReason`. */
  codeHash: `0x${string}` | null;
}

/** Verdict of the last check of a token. */
export interface Reconciliation {
  status: 'consistent' | 'mismatch' | 'not_checkable';
  checkedAtBlock: number;
  /** totalSupply() at that block, base units; null when the call failed (reason in `reason`). */
  supplyOnChain: string | null;
  supplyFromTransfers: string;
  holdersChecked: number;
  holdersMismatched: number;
  reason: string | null;
  /**
   * Metadata re-probed at the check block (eth_call name/symbol/decimals), and whether it differs
   * from what was probed when the token was first seen (metadata "on change").
   */
  metadataNow: { name: string | null; symbol: string | null; decimals: number | null } | null;
  metadataChanged: boolean;
  /**
   * The node fault standing when a mismatch was found (ingest/node-check.ts: the node could no
   * longer return a block it served, or names a parent it does not have): the figures follow the
   * blocks the node served, the node's own state does not. Absent or null: none.
   */
  nodeFault?: string | null;
}
