/** Reads of the stored block headers shared by every subsystem. */

import { BLOCK_TS, HEADER } from '../schema/tables/chain.js';
import type { Rocks } from './binding.js';
import type { Store } from './store-types.js';
import type { View } from './view.js';

/**
 * Timestamp (unix seconds) of stored block `n`, or null when the block is not stored. Reads the
 * BLOCK_TS row (one u64), falling back to the header JSON for blocks stored before that table.
 * Accepts a request's view, a store (opens a short view) or, transitionally, the raw binding.
 */
export function blockTimestamp(src: View | Store | Rocks, n: number): number | null {
  if ('view' in src) {
    const v = src.view();
    try {
      return blockTimestamp(v, n);
    } finally {
      v.close();
    }
  }
  if ('canonicalHash' in src) {
    const ts = src.get(BLOCK_TS, n);
    if (ts !== undefined) return ts;
    const h = src.get(HEADER, n);
    return h === undefined ? null : Number.parseInt((JSON.parse(h) as { timestamp: string }).timestamp, 16);
  }
  const b = src.get(BLOCK_TS.key(n));
  if (b) return BLOCK_TS.value.decode(b);
  const h = src.get(HEADER.key(n));
  return h ? Number.parseInt((JSON.parse(h.toString()) as { timestamp: string }).timestamp, 16) : null;
}
