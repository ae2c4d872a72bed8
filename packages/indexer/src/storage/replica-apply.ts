/**
 * A replica's side of the store: the writer's change-log entries applied in sequence, each as one
 * atomic batch with the replica's bookkeeping (REPLICA_APPLIED), and a snapshot imported to join.
 */
import type { Rocks, ScanRange, WriteOp } from './binding.js';
import type { ChangeKind } from './changelog.js';
import type { StoreState } from './commit.js';
import { metaOp, REPLICA_APPLIED } from './meta.js';
import { type AppliedState, type Store, StoreWriteError } from './store-types.js';

/**
 * The replica operations of a store over `rocks`. `applied`: what it had applied at open (none:
 * nothing); `wipe` empties a range unlogged; `refresh` re-reads the head and generation after a
 * change (the cache is cleared).
 */
export function replicaApply(o: {
  rocks: Rocks;
  st: StoreState;
  applied: AppliedState | undefined;
  wipe: (range: ScanRange, kind: ChangeKind | null) => void;
  refresh: () => void;
}): Pick<Store, 'applyChange' | 'applied' | 'importSnapshot'> {
  const { rocks, st } = o;
  let applied = o.applied ?? { seq: 0, committedAtMs: 0, head: null, streamSeq: 0 };
  return {
    applyChange(e, streamSeq = 0) {
      if (e.seq !== applied.seq + 1)
        throw new Error(`change log gap: applied ${applied.seq}, received ${e.seq}`);
      const next: AppliedState = { seq: e.seq, committedAtMs: e.committedAtMs, head: e.head, streamSeq };
      if (e.kind === 'wipe') o.wipe({}, null);
      const ops: WriteOp[] = [...e.ops, metaOp(REPLICA_APPLIED, next)];
      try {
        rocks.write(ops);
        st.lastWriteError = null;
      } catch (err) {
        st.lastWriteError = new StoreWriteError(`RocksDB refused the batch: ${(err as Error).message}`, {
          cause: err,
        });
        throw st.lastWriteError;
      }
      applied = next;
      o.refresh();
    },
    applied: () => applied,
    importSnapshot() {
      o.wipe({}, null);
      return {
        chunk(ops) {
          if (ops.length) rocks.write(ops);
        },
        end(state) {
          applied = state;
          rocks.write([metaOp(REPLICA_APPLIED, state)]);
          o.refresh();
        },
      };
    },
  };
}
