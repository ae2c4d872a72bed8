/** Deleting a key range of the store through its write path (projection resets, store wipes). */
import type { Rocks, ScanRange, WriteOp } from './binding.js';
import type { StateCache } from './cache.js';
import type { ChangeKind } from './changelog.js';
import type { StoreState, WriteFn } from './commit.js';

/** Deletions per write while wiping (bounds the batch's memory). */
const WIPE_CHUNK_ROWS = 10_000;

/**
 * Deletes every row of `range`: those RocksDB holds and those of writes still in flight (the
 * state cache knows them), through `write` in chunks of {@link WIPE_CHUNK_ROWS}. `kind` null: not
 * logged (a whole-store wipe, announced to replicas by its own entry).
 * @throws StoreWriteError from `write`.
 */
export function wipeRange(
  rocks: Rocks,
  cache: StateCache,
  write: WriteFn,
  st: StoreState,
  range: ScanRange,
  kind: ChangeKind | null,
): void {
  const ops: WriteOp[] = [];
  const seen = new Set<string>();
  const flush = () => {
    const chunk = ops.splice(0);
    if (kind) write(chunk, kind);
    else write(chunk, 'reset', st.head, undefined, false);
  };
  const lo = (range.gte ?? range.gt)?.toString('latin1') ?? '';
  const hi = range.lt?.toString('latin1') ?? null;
  for (const k of cache.presentKeysIn(lo, hi)) {
    seen.add(k);
    ops.push({ key: Buffer.from(k, 'latin1'), value: null });
  }
  rocks.each(range, (key) => {
    if (seen.has(key.toString('latin1'))) return true;
    ops.push({ key: Buffer.from(key), value: null });
    if (ops.length >= WIPE_CHUNK_ROWS) flush();
    return true;
  });
  if (ops.length) flush();
}
