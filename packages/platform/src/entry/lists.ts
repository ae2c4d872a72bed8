/** `@chain-indexer/platform/lists`: the one rule the list readers share to bound a walk's rows. */

/** A collector that keeps at most `bound` rows of a walk and says whether it cut the list. */
export { type BoundedRows, boundedRows } from '../bounded.js';
