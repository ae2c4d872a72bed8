/**
 * The chain reader: raw chain records (headers, transactions, receipts, logs) exactly as the node
 * sent them, resolved as of an anchor block through a request's {@link View}.
 * Source: eth_getBlockByNumber / eth_getBlockReceipts, stored by ingest (src/ingest/apply.ts).
 */
import { DomainError } from '../errors/index.js';
import type { View } from '../storage/index.js';
import { HEADER, TX_BY_HASH, type TxLocation } from '../storage/tables/chain.js';

export interface ChainReader {
  /**
   * The canonical header JSON of block `n` (transactions as hashes), byte-exact.
   * @throws DomainError not_found when `n` is above the anchor `at` or not indexed.
   */
  header(view: View, at: number, n: number): string;
  /**
   * Where transaction `hash` is in the canonical chain as of `at`.
   * @throws DomainError not_found when it is not canonical at `at`.
   */
  txLocation(view: View, at: number, hash: string): TxLocation;
}

/** Creates the chain reader (stateless: it reads only through the view it is given). */
export function createChainReader(): ChainReader {
  return {
    header(view, at, n) {
      const v = n <= at ? view.get(HEADER, n) : undefined;
      if (v === undefined)
        throw new DomainError('not_found', `block ${n} is not indexed at the anchored block ${at}`);
      return v;
    },
    txLocation(view, at, hash) {
      const loc = view.get(TX_BY_HASH, hash.toLowerCase() as `0x${string}`);
      if (!loc || loc.number > at)
        throw new DomainError(
          'not_found',
          `transaction ${hash} is not in the canonical chain at the anchored block ${at}`,
        );
      return loc;
    },
  };
}
