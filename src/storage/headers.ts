/** Reads of the stored block headers shared by every subsystem. */
import type { Rocks } from './binding.js';
import { headerKey } from './tables.js';

/** Timestamp (unix seconds) of stored block `n`, or null when the block is not stored. */
export function blockTimestamp(rocks: Rocks, n: number): number | null {
  const h = rocks.get(headerKey(n));
  return h ? Number.parseInt((JSON.parse(h.toString()) as { timestamp: string }).timestamp, 16) : null;
}
