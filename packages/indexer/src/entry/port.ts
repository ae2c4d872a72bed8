/**
 * `@chain-indexer/indexer/port`: the narrow port the scanner reads the index through — the
 * domains' readers, the refusal they throw, and the few helpers the scanner's answers share with
 * the indexer's routes. Row types are in `@chain-indexer/indexer/types`.
 */

/** The domains' readers (one per served chain), as the scanner's IndexPort hands them out. */
export type { AddressesReader } from '../addresses/index.js';
/** Blocks, transactions, receipts and logs of a chain. */
export type { ChainReader } from '../chain/index.js';
/** Holder cohorts of a token. */
export type { CohortsReader } from '../cohorts/index.js';
/** The default directory of verified ABIs. */
export { defaultVerifiedAbisDir } from '../decode/abis-dir.js';
/** Verified contract ABIs (VERIFIED_ABIS_DIR) and their default directory. */
export { loadVerifiedAbis } from '../decode/index.js';
/** A reader's refusal (a code of the registry). */
export { DomainError } from '../errors/index.js';
/** The quote assets a chain's markets configuration prices against. */
export { quoteAssetsOf } from '../markets/config.js';
/** Pools, swaps and prices. */
export type { MarketsReader } from '../markets/index.js';
/** Tokens, holders, transfers, launches. */
export type { TokensReader } from '../tokens/index.js';
/** A token's list row as the routes render it. */
export { tokenListRow } from '../tokens/index.js';
/** Wallets: holdings, history, PnL, funding. */
export type { WalletsReader } from '../wallets/index.js';
/** The rows a holdings sort may visit before it answers with what it has. */
export { SORT_BUDGET } from '../wallets/index.js';
