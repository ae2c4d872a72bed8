/** `@chain-indexer/platform/version`: the products' version. */

/** The version both products report (/health, the contract, the CLI). */
export { VERSION } from '../version.js';
