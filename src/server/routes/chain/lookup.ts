/**
 * Lookups shared by the chain routes: resolve a block number or tx hash at the request's anchor.
 */
import { decodeTxLocation, type TxLocation } from '../../../ingest/apply.js';
import type { BlockRef, Store } from '../../../storage/index.js';
import { headerKey, txHashKey } from '../../../storage/tables.js';
import { ApiError } from '../../errors.js';

/** The canonical header JSON of block `n` as of `anchor`. @throws ApiError not_found. */
export function headerAt(store: Store, anchor: BlockRef, n: number): Buffer {
  const v = n <= anchor.number ? store.rocks.get(headerKey(n)) : undefined;
  if (!v) throw new ApiError('not_found', `block ${n} is not indexed at the anchored block ${anchor.number}`);
  return v;
}

/** Location of transaction `hash` as of `anchor`. @throws ApiError not_found. */
export function txAt(store: Store, anchor: BlockRef, hash: string): TxLocation {
  const v = store.rocks.get(txHashKey(hash.toLowerCase()));
  const loc = v ? decodeTxLocation(v) : null;
  if (!loc || loc.number > anchor.number) {
    throw new ApiError(
      'not_found',
      `transaction ${hash} is not in the canonical chain at the anchored block ${anchor.number}`,
    );
  }
  return loc;
}
