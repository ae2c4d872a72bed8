/** A consistent export of the store's rows, for a replica to join from (replication/snapshot.ts). */
import { CHANGELOG, META } from '../schema/tables/chain.js';
import type { Rocks, WriteOp } from './binding.js';
import { CHANGELOG_SEQ, REPLICA_APPLIED } from './meta.js';
import type { BlockRef } from './refs.js';
import type { Store } from './store-types.js';

/** Keys a snapshot leaves out: the writer's own change-log bookkeeping. */
const BOOKKEEPING = new Set([
  META.key(CHANGELOG_SEQ).toString('latin1'),
  META.key(REPLICA_APPLIED).toString('latin1'),
]);

/**
 * Opens a snapshot of `rocks`: every row but the change log and its bookkeeping, read in chunks
 * from one RocksDB view, with the change-log sequence that view holds (`seq`), and `head` and
 * `generation` as the store knows them. The caller closes it.
 */
export function exportSnapshot(
  rocks: Rocks,
  head: BlockRef | null,
  generation: string,
): ReturnType<Store['snapshot']> {
  // The iterator pins RocksDB's view at creation; the change-log sequence is read from RocksDB
  // in the same instant (no commit in between: RocksDB's own sequence did not move), so the two
  // agree even while the writer thread commits.
  let it: ReturnType<Rocks['cursor']>;
  let seq = 0;
  for (;;) {
    const at = rocks.sequence();
    it = rocks.cursor({});
    const v = rocks.get(META.key(CHANGELOG_SEQ));
    seq = v ? (META.value.decode(v) as number) : 0;
    if (rocks.sequence() === at) break;
    it.close();
  }
  return {
    seq,
    head,
    generation,
    next(max) {
      const out: WriteOp[] = [];
      for (;;) {
        const rows = it.next(max - out.length);
        for (const [k, v] of rows) {
          if (k[0] === CHANGELOG.id || BOOKKEEPING.has(k.toString('latin1'))) continue;
          out.push({ key: Buffer.from(k), value: Buffer.from(v) });
        }
        if (rows.length === 0 || out.length >= max) return out;
      }
    },
    close: () => it.close(),
  };
}
