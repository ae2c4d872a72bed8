/**
 * The tokens reader's primitives and their row shapes: what the token routes, the query layer
 * (src/queries) and the scanner read of the tokens projection, as of an anchor block. Types only;
 * the reader (./reader.ts) implements them, the one-call answers (./responses.ts) build on them.
 */
import type { AuthorityEvent, LaunchRow, TokenRow, TokenStats, TransferRow } from '../schema/rows/tokens.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import type { BalanceFidelity } from './fidelity.js';
import type { LaunchpadDeployment } from './launchpads.js';
import type { TokenListRow } from './render.js';
/** The uniform holder count of every holder-bearing route (spec: `{value, status, asOfBlock, burnSinkHolders}`). */
export interface HolderCount {
  /** Wallets with a positive transfer-sum balance, burn sinks excluded; null when the token is not indexed. */
  value: number | null;
  status: 'exact' | 'backfilling' | 'token_not_indexed';
  asOfBlock: number;
  /** Burn sinks (0x0, 0x…dead) holding a non-zero balance; null when the token is not indexed. */
  burnSinkHolders: number | null;
}

/**
 * The overview's richer holder count (spec: `{status, count, retainedListSize, retainedListCap,
 * asOfBlock, burnSinkHolders}`). This index retains every holder (no capped list), so the
 * retained list is the whole set: `exact_retained_list` never caps, and
 * `unknown_retained_list_saturated` cannot occur.
 */
export interface OverviewHolderCount {
  status: 'exact' | 'backfilling' | 'token_not_indexed';
  count: number | null;
  retainedListSize: number | null;
  /** null: the index retains every holder (no cap). */
  retainedListCap: null;
  asOfBlock: number;
  burnSinkHolders: number | null;
}

/** A balance with what it covers (see {@link TokensPrimitives.balanceCoverage}). */
export interface BalanceWithCoverage {
  /** Signed transfer-sum balance, base units; null when unknown (see `balanceReason`). */
  balance: bigint | null;
  balanceReason: 'not_observed_since_start_block' | null;
  coverage: 'since_creation' | 'since_first_sight' | 'not_observed';
}

/** What of a token's figures is complete. */
export interface TokenCoverage {
  /** The first indexed block of the chain (START_BLOCK). */
  indexedFromBlock: number;
  /** The token existed before the indexed range (its creation was not observed, START_BLOCK > 0). */
  predatesIndexedRange: boolean;
  /** Block whose totalSupply() seeded the supply (predating tokens); null otherwise. */
  supplySeededAtBlock: number | null;
  /** Seeds the node could not answer (pruned state): those balances started at zero. */
  seedFailures: number;
  /** Whether holder counts and balances cover every holder (false: only wallets seen since START_BLOCK). */
  holdersComplete: boolean;
}

/** A balance-ordered holder row; `rank` is 1-based across the whole walk. */
export interface HolderRow {
  rank: number;
  wallet: string;
  /** Transfer-sum balance, base units (positive). */
  balance: bigint;
}

/** A wallet-id ordered holder row (every non-zero balance, negatives and burn sinks included). */
export interface HolderIdRow {
  walletId: number;
  wallet: string;
  /** Signed transfer-sum balance, base units. */
  balance: bigint;
}

/** A registered launchpad and its deployments on this chain. */
export interface LaunchpadEntry {
  name: string;
  displayName: string;
  deployments: LaunchpadDeployment[];
  deploymentsReason: 'not_configured_for_this_chain' | null;
}

/** The node's re-probe of a token's metadata made with its last reconciliation (eth_call name/symbol/decimals). */
export interface MetadataNow {
  now: { name: string | null; symbol: string | null; decimals: number | null } | null;
  /** The re-probe differs from the metadata read at first sight. */
  changed: boolean;
  checkedAtBlock: number | null;
}

/** The reader's primitives (other domains and the scanner read through these). */
export interface TokensPrimitives {
  /** The token row at `at`, or null when it was first seen after `at`. */
  find(view: View, address: string, at: number): TokenRow | null;
  /** The token row at `at`. @throws DomainError not_found. */
  token(view: View, address: string, at: number): TokenRow;
  /** Per-token counters as of the end of block `at` (null before its first transfer). */
  stats(view: View, token: string, at: number): TokenStats | null;
  /** Exact supply from transfers at `at`, base units (mints minus burns). */
  supply(view: View, token: string, at: number): bigint;
  /** The uniform holder count at `at` (token null: not indexed). */
  holderCount(view: View, token: TokenRow | null, at: number): HolderCount;
  /** The overview's holder count at `at`. */
  overviewHolderCount(view: View, token: TokenRow | null, at: number): OverviewHolderCount;
  /** The token's balance fidelity (last reconciliation verdict). */
  fidelityOf(view: View, token: string): BalanceFidelity;
  /** Node re-probe of metadata made with the last reconciliation (metadata "on change"). */
  metadataNow(view: View, token: string): MetadataNow;
  /** Both of the above from one read of the token's last reconciliation row. */
  reconciliation(view: View, token: string): { fidelity: BalanceFidelity; metadataNow: MetadataNow };
  /** Signed transfer-sum balance of `wallet` at `at`, base units (R9). */
  balance(view: View, token: string, wallet: string, at: number): bigint;
  /**
   * The balance with its coverage: a token created before START_BLOCK only knows wallets it has
   * seen since (seeded with balanceOf at the block before their first observed transfer); a wallet
   * it has not seen has an unknown balance (null with a reason), never a zero.
   */
  balanceCoverage(view: View, token: TokenRow, wallet: string, at: number): BalanceWithCoverage;
  /** What of a token's figures is complete: whether it predates the indexed range and was seeded. */
  coverage(view: View, token: TokenRow, at: number): TokenCoverage;
  /** Balance-ordered holders at the page's anchor (desc only; burn sinks excluded). */
  holdersByBalance(view: View, token: string, page: PageQuery, sink: PageSink<HolderRow>): void;
  /** Every non-zero balance in interned wallet-id order. */
  holdersByWalletId(view: View, token: string, page: PageQuery, sink: PageSink<HolderIdRow>): void;
  /** Transfers in chain order. */
  transfers(view: View, token: string, page: PageQuery, sink: PageSink<TransferRow>): void;
  /** Authority events in chain order. */
  authorityEvents(view: View, token: string, page: PageQuery, sink: PageSink<AuthorityEvent>): void;
  /** Tokens a deployer created, by creation coordinate. */
  creatorTokens(view: View, deployer: string, page: PageQuery, sink: PageSink<TokenListRow>): void;
  /** Every token observed, in first-seen coordinate order. */
  catalogue(view: View, page: PageQuery, sink: PageSink<TokenListRow>): void;
  /**
   * Search by symbol, name or 0x-address prefix at `at`, ranked by match class, then confirmed
   * ERC-20 first, then older first-seen coordinate.
   * @throws DomainError bad_request for an address prefix longer than 40 hex digits.
   */
  search(
    view: View,
    q: string,
    at: number,
    limit: number,
  ): { rows: Array<TokenListRow & { matchClass: number }>; truncated: boolean };
  /** The launch of `token` as of `at`, or null when no registered launchpad launched it. */
  launch(view: View, token: string, at: number): LaunchRow | null;
  /** The registered launchpad table with this chain's deployments. */
  launchpads(): LaunchpadEntry[];
  /** Launches of one pad in chain order (state as of the page anchor). @throws DomainError not_found. */
  padLaunches(view: View, pad: string, page: PageQuery, sink: PageSink<LaunchRow>): void;
}
