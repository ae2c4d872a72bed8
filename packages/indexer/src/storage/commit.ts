/**
 * The store's one write path: every batch goes through {@link createCommitter}'s `write`, which
 * makes it readable through the state cache at once, adds the change-log entry describing it
 * (when the log is on) to the same atomic batch, and hands it to the write queue (writer.ts).
 */
import { CHANGELOG } from '../schema/tables/chain.js';
import type { Rocks, WriteOp } from './binding.js';
import type { OpMap, StateCache } from './cache.js';
import { type ChangeKind, encodeChange } from './changelog.js';
import { CHANGELOG_SEQ, metaOp } from './meta.js';
import type { BlockRef } from './refs.js';
import { StoreWriteError } from './store-types.js';
import { laterSlice } from './turns.js';
import { eachOp, type WriteQueue, type WriterMarks } from './writer.js';

/** A committed batch of at most this many keys leaves its small values cached (live blocks). */
const PROMOTE_MAX_OPS = 20_000;

/** Ops by latin1 key (the last op on a key wins). */
const opMapOf = (ops: readonly WriteOp[]): OpMap => {
  const m: OpMap = new Map();
  for (const op of ops) m.set(op.key.toString('latin1'), op.value);
  return m;
};

/** What the store and its write path share: the head as ingest sees it, and the first refusal. */
export interface StoreState {
  head: BlockRef | null;
  lastWriteError: StoreWriteError | null;
}

/**
 * Submits `ops` as one atomic batch of change kind `kind`; `headAfter` (default: the current head)
 * is the head the change-log entry records; `onCommitted` runs when RocksDB holds the batch;
 * `logged` false keeps it out of the change log; `parts` are rows encoded elsewhere; `inline`
 * false keeps the batch off the submitting thread (writer.ts `createThreadWriter`; default true).
 * @throws StoreWriteError when an earlier batch was refused, or (sync writer) this one is.
 */
export type WriteFn = (
  ops: WriteOp[] | OpMap,
  kind: ChangeKind,
  headAfter?: BlockRef | null,
  onCommitted?: (marks?: WriterMarks) => void,
  logged?: boolean,
  parts?: ArrayBuffer[],
  inline?: boolean,
) => void;

/** The write path of one store. */
export interface Committer {
  write: WriteFn;
  /** The last change-log entry RocksDB holds (0 when none). */
  logCommitted(): number;
  /** Listens for the first refused batch; returns the unsubscribe function. */
  onWriteError(listener: (err: StoreWriteError) => void): () => void;
  /** Listens for every committed change-log entry; returns the unsubscribe function. */
  onAppend(listener: (seq: number) => void): () => void;
  /**
   * Listens for every batch leaving the write queue, committed or refused (after its own
   * callbacks: the writes in flight are one fewer); returns the unsubscribe function.
   */
  onSettled(listener: () => void): () => void;
}

/**
 * The write path over `rocks`, its state cache and write queue. `logSeq`: the change log's last
 * sequence as RocksDB holds it at open (entries are numbered on from it when `logOn`).
 * `committedHead` reads the head RocksDB holds (the head again after a refusal).
 */
export function createCommitter(o: {
  rocks: Rocks;
  cache: StateCache;
  queue: WriteQueue;
  logOn: boolean;
  logSeq: number;
  st: StoreState;
  committedHead: () => BlockRef | null;
}): Committer {
  const { rocks, cache, queue, logOn, st } = o;
  const errorListeners = new Set<(err: StoreWriteError) => void>();
  const logListeners = new Set<(seq: number) => void>();
  const settledListeners = new Set<() => void>();
  const settled = () => {
    for (const l of settledListeners) l();
  };
  let writeIds = 0;
  let logSeq = o.logSeq;
  /** The last change-log entry RocksDB holds (logSeq counts entries submitted). */
  let logCommitted = logSeq;
  /** Runs the state cache's retirement of a large committed batch in slices, one per turn. */
  let retiring = false;
  const retireLater = () => {
    if (retiring) return;
    retiring = true;
    const step = () => {
      if (cache.retireSlice()) laterSlice(step);
      else retiring = false;
    };
    laterSlice(step);
  };
  const write: WriteFn = (
    ops,
    kind,
    headAfter = st.head,
    onCommitted,
    logged = true,
    parts = [],
    inline = true,
  ) => {
    if (st.lastWriteError) throw st.lastWriteError;
    let seq = 0;
    // Readable by ingest at once (an overlay of the state cache) until RocksDB holds it.
    const map: OpMap = Array.isArray(ops) ? opMapOf(ops) : ops;
    if (logOn && logged) {
      seq = logSeq + 1;
      const listed: WriteOp[] = [];
      for (const p of parts)
        eachOp(p, (key, value) => listed.push({ key: Buffer.from(key), value: value && Buffer.from(value) }));
      for (const [k, value] of map) listed.push({ key: Buffer.from(k, 'latin1'), value });
      const entry = encodeChange({ kind, seq, committedAtMs: Date.now(), head: headAfter, ops: listed });
      map.set(CHANGELOG.key(seq).toString('latin1'), entry);
      const seqOp = metaOp(CHANGELOG_SEQ, seq);
      map.set(seqOp.key.toString('latin1'), seqOp.value);
      logSeq = seq;
    }
    const id = ++writeIds;
    // Small batches (live blocks, process rows) stay cached once committed; segments do not, nor
    // the history pruner's deletes (keys ingest never reads again: their absence would evict hot values).
    cache.write(id, map, kind !== 'prune' && map.size <= PROMOTE_MAX_OPS);
    let refused: StoreWriteError | null = null;
    const done = (err: Error | null, marks?: WriterMarks) => {
      if (err) {
        refused =
          err instanceof StoreWriteError
            ? err
            : new StoreWriteError(`RocksDB refused the batch: ${err.message}`, { cause: err });
        if (!st.lastWriteError) {
          st.lastWriteError = refused;
          // What the cache holds beyond RocksDB was never written: RocksDB is the truth again.
          cache.clear();
          st.head = o.committedHead();
          for (const l of errorListeners) l(refused);
        }
        settled();
        return;
      }
      rocks.retireIterators(); // an idle pooled iterator would pin the version before this write
      if (logOn && logged) {
        logCommitted = seq;
        for (const l of logListeners) l(seq);
      }
      // The commit is announced before the state cache takes the batch's values in (a live
      // block's promotion is thousands of map puts): readers see RocksDB, not the cache, and
      // ingest reads the same values from the batch's overlay until then, in this same turn.
      onCommitted?.(marks);
      if (cache.committed(id)) retireLater();
      settled();
    };
    try {
      queue.submit(map, done, parts, inline);
    } catch (err) {
      // A sync writer's refusal (typed above); anything else is the caller's callback failing.
      throw refused ?? err;
    }
  };
  return {
    write,
    logCommitted: () => logCommitted,
    onWriteError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    onAppend(listener) {
      logListeners.add(listener);
      return () => logListeners.delete(listener);
    },
    onSettled(listener) {
      settledListeners.add(listener);
      return () => settledListeners.delete(listener);
    },
  };
}
