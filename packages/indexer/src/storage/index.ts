/**
 * The store: the only owner of RocksDB batches. Ingest commits one atomic batch per block
 * (every projection row, the canonical hash, the undo record and the checkpoint together), so a
 * crash at any instant leaves exactly "all of block N" or "none of it".
 *
 * The folder's door: other code imports storage from here. Its parts: block-batch.ts (a block's
 * writes and their undo), commit.ts (the one write path, with the change log), blocks.ts (commit
 * and rollback of the blocks lane), wipe.ts, log-reader.ts (the change log as publishers read
 * it), snapshot.ts (export for replicas), keylist.ts (prefetch lists), meta.ts, invariants.ts,
 * store-types.ts (the Store interface), and binding.ts (the only module touching RocksDB).
 */
import { randomBytes } from 'node:crypto';
import { CANON, META, UNDO } from '../schema/tables/chain.js';
import type { WriteOp } from './binding.js';
import { openRocks } from './binding.js';
import { BlockBatch } from './block-batch.js';
import { endBlock, rollbackOps, sealBlock } from './blocks.js';
import { StateCache } from './cache.js';
import { createCommitter, type StoreState } from './commit.js';
import { prefetchEncoded } from './keylist.js';
import { openChangeLog } from './log-reader.js';
import { CHANGELOG_SEQ, CHECKPOINT, metaOp, putMetaRaw, REPLICA_APPLIED } from './meta.js';
import type { BlockRef } from './refs.js';
import { replicaApply } from './replica-apply.js';
import { exportSnapshot } from './snapshot.js';
import type { AppliedState, Store, StoreOptions } from './store-types.js';
import { appendUndo } from './undo.js';
import { rangeOf, viewOpener } from './view.js';
import { wipeRange } from './wipe.js';
import { createSyncWriter, createThreadWriter, type WriteQueue } from './writer.js';

export { K, type KeyPart, type Prefix, prefixEnd, V, type ValueCodec } from '../schema/codec.js';
export { type AnyTable, defineTable, type Invariant, type Table } from '../schema/table.js';
export type { Rocks, RocksTuning, ScanRange, WriteOp } from './binding.js';
export { DEFAULT_ROCKS_TUNING } from './binding.js';
export { BlockBatch, batchView } from './block-batch.js';
export type { ChangeEntry, ChangeKind } from './changelog.js';
export {
  createHistoryPruner,
  type HistoryPruner,
  type HistoryPrunerOptions,
  type PrunerStatus,
  pruneCutoff,
} from './history-prune.js';
export { checkInvariants } from './invariants.js';
export { encodeKeyList } from './keylist.js';
export type { BlockRef, ChainIdentity } from './refs.js';
export {
  type AppliedState,
  type ChangeLog,
  type Store,
  type StoreOptions,
  StoreWriteError,
} from './store-types.js';
export { nextSlice, setTurnBudget, turnBudget } from './turns.js';
export { type Bounds, inConsistentView, inView, type View } from './view.js';
export type { WriterMarks } from './writer.js';

/** Default bound of the ingest's state cache (StoreOptions.cacheBytes). */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Opens the store of `opts.dataDir` (creating it, and its generation id, when new): its write
 * queue (`thread` or `sync`), state cache, change log (when `opts.changeLog`) and the head its
 * checkpoint records.
 * @throws the binding's error when the directory is locked by another process or corrupt.
 */
export async function createStore(opts: StoreOptions): Promise<Store> {
  const rocks = await openRocks(opts.dataDir, opts.rocks);
  const cache = new StateCache(opts.cacheBytes ?? DEFAULT_CACHE_BYTES);
  /** A point read as ingest sees it: its own in-flight writes first (cache.ts), then RocksDB. */
  const readRaw = (key: Buffer): Buffer | undefined => {
    const c = cache.get(key.toString('latin1'));
    if (c !== undefined) return c ?? undefined;
    return rocks.get(key);
  };
  const readMeta = <T>(name: string): T | undefined => {
    const v = readRaw(META.key(name));
    return v ? (META.value.decode(v) as T) : undefined;
  };
  let generation: string = readMeta<string>('generation') ?? '';
  if (!generation) {
    generation = randomBytes(8).toString('hex');
    rocks.write([metaOp('generation', generation)]);
  }
  const st: StoreState = { head: readMeta<BlockRef>(CHECKPOINT) ?? null, lastWriteError: null };
  const queue: WriteQueue =
    opts.writer === 'thread'
      ? createThreadWriter(rocks, opts.inlineWrites ?? process.env.WRITER_INLINE !== 'off')
      : createSyncWriter(rocks);
  const logOn = opts.changeLog === true;
  /** The committed head, read from RocksDB (never from the cache): what a view anchors at. */
  const committedHead = (): BlockRef | null => {
    const v = rocks.get(META.key(CHECKPOINT));
    return v ? (META.value.decode(v) as BlockRef) : null;
  };
  const committer = createCommitter({
    rocks,
    cache,
    queue,
    logOn,
    logSeq: readMeta<number>(CHANGELOG_SEQ) ?? 0,
    st,
    committedHead,
  });
  const write = committer.write;
  const wipe = (range: Parameters<typeof wipeRange>[4], kind: Parameters<typeof wipeRange>[5]) =>
    wipeRange(rocks, cache, write, st, range, kind);
  const setGeneration = (g: string) => {
    generation = g;
    (store as { generation: string }).generation = generation;
  };
  const refresh = () => {
    cache.clear();
    st.head = readMeta<BlockRef>(CHECKPOINT) ?? null;
    setGeneration(readMeta<string>('generation') ?? generation);
  };
  const canonicalHash = (n: number) => {
    const v = readRaw(CANON.key(n));
    return v ? CANON.value.decode(v) : undefined;
  };

  const store: Store = {
    rocks,
    generation,
    unfinalisedWindow: opts.unfinalisedWindow,
    head: () => st.head,
    committedHead,
    view: viewOpener(rocks, committedHead),
    canonicalHash,
    getMeta: readMeta,
    putMeta(name, value) {
      write([metaOp(name, value)], 'meta');
    },
    deleteMeta(name) {
      write([{ key: META.key(name), value: null }], 'meta');
    },
    putObservation(t, key, value) {
      if (t.kind !== 'observation') throw new Error(`${t.name} is not an observation table`);
      write([{ key: t.key(...key), value: t.value.encode(value) }], 'observation');
    },
    putProcess(t, key, value) {
      if (t.kind !== 'process') throw new Error(`${t.name} is not a process table`);
      write([{ key: t.key(...key), value: t.value.encode(value) }], 'observation');
    },
    property: (name) => rocks.property(name),
    handle: () => rocks.handle(),
    writes: () => rocks.sequence(),
    prefetchEncoded: (lists) => prefetchEncoded(rocks, cache, lists),
    settled: (max = 0) => queue.drain(max),
    inFlight: () => ({ batches: queue.inFlight(), bytes: queue.inFlightBytes() }),
    cacheStats: () => cache.stats(),
    writerHeap: () => queue.heap(),
    onWriteError: committer.onWriteError,
    onWriteSettled: committer.onSettled,
    writeError: () => st.lastWriteError,
    commitBlock(ref, build, extraMeta) {
      const batch = new BlockBatch(rocks, cache);
      build(batch);
      store.commitBatch(ref, batch, extraMeta);
    },
    newBatch: (o) => new BlockBatch(rocks, cache, o),
    commitBatch(ref, batch, extraMeta, onCommitted) {
      // Only one live block commits in place (writer.ts): segments and catch-up batches keep the thread.
      const single = batch.undo !== null && batch.blocksEnded === 0;
      sealBlock(batch, ref, opts.unfinalisedWindow, extraMeta);
      const next = { number: ref.number, hash: ref.hash };
      write(batch.opMap, 'block', next, onCommitted, true, batch.parts, single);
      st.head = next;
    },
    endBlock(ref, batch) {
      endBlock(batch, ref, opts.unfinalisedWindow);
    },
    rollbackHead(extraMeta, extraOps, onCommitted) {
      const head = st.head;
      if (!head) throw new Error('rollback with no head');
      const { ops, newHead } = rollbackOps(head, readRaw, canonicalHash, extraMeta, extraOps);
      write(ops, 'rollback', newHead, onCommitted);
      st.head = newHead;
      return head;
    },
    commitLate(n, build, extraMeta) {
      const batch = new BlockBatch(rocks, cache);
      build(batch);
      const record = readRaw(UNDO.key(n));
      if (record && batch.undo?.length) batch.raw(UNDO.key(n), appendUndo(record, batch.undo));
      putMetaRaw(batch, extraMeta);
      write(batch.opMap, 'late', st.head, undefined, true, batch.parts);
    },
    prune(deletes, meta, onCommitted) {
      const ops: WriteOp[] = deletes.map((key) => ({ key, value: null }));
      for (const [name, value] of Object.entries(meta)) ops.push(metaOp(name, value));
      write(ops, 'prune', st.head, onCommitted && (() => onCommitted()));
    },
    wipeTables(tables) {
      for (const t of tables) wipe(rangeOf(t, {}), 'reset');
    },
    wipe() {
      // Not logged row by row: the entry below tells replicas to wipe themselves. The log's own
      // sequence survives (it is kept in memory and rewritten with the entry), so it stays gap-free.
      wipe({}, null);
      st.head = null;
      const g = randomBytes(8).toString('hex');
      generation = g;
      write([metaOp('generation', g)], 'wipe', null);
      setGeneration(g);
    },
    changeLog: openChangeLog(rocks, logOn, committer, st),
    snapshot: () => exportSnapshot(rocks, st.head, generation),
    ...replicaApply({ rocks, st, applied: readMeta<AppliedState>(REPLICA_APPLIED), wipe, refresh }),
    async close() {
      await queue.close();
      await rocks.close();
    },
  };
  return store;
}
