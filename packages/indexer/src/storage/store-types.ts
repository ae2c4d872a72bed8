/** The store's interface and options (createStore in index.ts implements them). */
import type { AnyTable, Table } from '../schema/table.js';
import type { Rocks, RocksTuning, WriteOp } from './binding.js';
import type { BlockBatch } from './block-batch.js';
import type { ChangeEntry } from './changelog.js';
import type { BlockRef } from './refs.js';
import type { View } from './view.js';
import type { WriterMarks } from './writer.js';

/** What a replica has applied: the writer's change sequence, its commit time and head. */
export interface AppliedState {
  seq: number;
  committedAtMs: number;
  head: BlockRef | null;
  /** JetStream sequence of the message that carried `seq` (replication bookkeeping; 0 when unknown). */
  streamSeq: number;
}

export interface StoreOptions {
  /** The RocksDB directory, or `{handle}` to attach to the database another thread of this process opened (the owner closes it). */
  dataDir: string | { handle: bigint };
  /** Blocks of undo data kept below the head; a reorg deeper than this cannot be rolled back. */
  unfinalisedWindow: number;
  /**
   * Record every committed write in the change log (the writer role of scale-out): each entry is
   * written in the same batch as its change. Off by default (no cost when no replica exists).
   */
  changeLog?: boolean;
  /** RocksDB tuning (defaults: DEFAULT_ROCKS_TUNING). */
  rocks?: RocksTuning;
  /**
   * Who commits write batches: `thread` — a writer thread on the same database, so the main
   * thread never waits for a write and HTTP reads are never blocked by one (a serving process);
   * `sync` (default) — committed before the call returns (tests, tools, replicas).
   */
  writer?: 'thread' | 'sync';
  /**
   * With the `thread` writer: commit a single live block's batch, submitted while none is in
   * flight, on the submitting thread (writer.ts `createThreadWriter`). Default: true unless the
   * environment says WRITER_INLINE=off.
   */
  inlineWrites?: boolean;
  /** Bound of the ingest's state cache, bytes (default 64 MiB; see cache.ts). */
  cacheBytes?: number;
}

/** The store's change log (see changelog.ts). */
export interface ChangeLog {
  readonly enabled: boolean;
  /** Sequence of the last committed entry (0 when none). */
  last(): number;
  /** Entries with seq in (after, after + max], in order (those not pruned yet). */
  read(after: number, max: number): ChangeEntry[];
  /** The same entries still encoded (what the publisher ships). */
  readRaw(after: number, max: number): Array<{ seq: number; raw: Buffer }>;
  /** Deletes entries with seq ≤ upTo (shipped); not itself logged. */
  prune(upTo: number): void;
  /** Called after every committed entry (publishers wake up); returns the unsubscribe function. */
  onAppend(listener: (seq: number) => void): () => void;
}

/** Error thrown when RocksDB refuses a write (disk full, I/O error). Ingest halts; reads go on. */
export class StoreWriteError extends Error {
  override readonly name = 'StoreWriteError';
}

export interface Store {
  /** @deprecated transition only: read through {@link Store.view} and write through batches. */
  readonly rocks: Rocks;
  /** Random id minted when the data directory was created; binds stream sequences and cursors. */
  readonly generation: string;
  readonly unfinalisedWindow: number;
  /**
   * The head of the blocks lane as ingest last wrote it (its write may still be in flight on the
   * writer thread), or null before the first block. Cached, O(1).
   */
  head(): BlockRef | null;
  /** The head of the blocks lane as RocksDB holds it now (what a new view anchors at). */
  committedHead(): BlockRef | null;
  /**
   * Opens an anchored view at the committed head (see view.ts). The caller closes it when its
   * synchronous work is done, and checks {@link View.consistent} before trusting what it read.
   */
  view(): View;
  /**
   * RocksDB's sequence: moves with every committed write batch (blocks, segments, rollbacks,
   * observations, process rows). Two reads at the same value saw the same contents.
   */
  writes(): number;
  /**
   * Reads the rows of encoded key lists ({@link encodeKeyList}: a decode worker's list of the state
   * a block reads) that neither an in-flight write nor the state cache holds, in one multi-get,
   * into the state cache (small values). Purely an optimisation. The multi-get runs off the main
   * thread; values of keys a batch committed meanwhile are not cached (they may be older).
   */
  prefetchEncoded(lists: readonly ArrayBuffer[]): Promise<void>;
  /** Resolves once at most `max` write batches are in flight (0: every write committed). */
  settled(max?: number): Promise<void>;
  /** Write batches and bytes submitted to the writer and not committed yet. */
  inFlight(): { batches: number; bytes: number };
  /** Figures of the ingest's state cache (entries, bytes, bound, hit and miss counts). */
  cacheStats(): import('./cache.js').CacheStats;
  /** The writer thread's heap as it last reported it, bytes (null: no writer thread, or no report yet). */
  writerHeap(): import('../schema/delta.js').WorkerHeap | null;
  /**
   * Called once when a write batch is refused (writer thread): ingest halts. Returns the
   * unsubscribe function.
   */
  onWriteError(listener: (err: StoreWriteError) => void): () => void;
  /**
   * Called after every write batch leaves the queue, committed or refused (`inFlight()` is one
   * lower already): what shows the writes in flight learns of it at once. Returns the unsubscribe
   * function.
   */
  onWriteSettled(listener: () => void): () => void;
  /** Canonical hash at `n`, or undefined. */
  canonicalHash(n: number): `0x${string}` | undefined;
  getMeta<T>(name: string): T | undefined;
  putMeta(name: string, value: unknown): void;
  /** Deletes a META record (through the change log, so replicas drop it too). */
  deleteMeta(name: string): void;
  /**
   * Writes rows of an observation table (node observations made outside block batches, such as
   * reconciliation verdicts), atomically.
   * @throws Error when `t` is not an observation table; StoreWriteError when RocksDB refuses.
   */
  putObservation<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void;
  /**
   * Writes one row of a `process` table (ingest gaps, lane state) outside any block, through the
   * change log so replicas hold the same rows. @throws StoreWriteError; Error for another kind.
   */
  putProcess<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void;
  /** A RocksDB property (e.g. `rocksdb.estimate-live-data-size`), for metrics. */
  property(name: string): string;
  /**
   * Native handle of the database, for another thread of this process to attach to it
   * (`createStore({dataDir: {handle}})`: the ingest engine thread). This store stays its owner.
   */
  handle(): bigint;
  /** The last write error, if writes are refused. */
  writeError(): Error | null;
  /**
   * Commits block `ref` atomically: `build` fills the batch; the canonical row, undo record,
   * checkpoint and pruning of undo past the window are added here.
   * @throws StoreWriteError when RocksDB refuses the batch (nothing of the block is written).
   */
  commitBlock(ref: BlockRef, build: (batch: BlockBatch) => void, extraMeta?: Record<string, unknown>): void;
  /**
   * An empty batch over this store, for a block built in several steps (see commitBatch). With
   * `undo: false`, a history segment: many final blocks, no undo record, written once.
   */
  newBatch(opts?: { undo?: boolean }): BlockBatch;
  /**
   * Commits block `ref` from a batch filled beforehand (commitBlock without the build callback) —
   * or, for a history batch (`undo: false`), the segment of final blocks ending at `ref`, with no
   * undo record. The caller must make sure the head did not move since the batch was started.
   * `onCommitted` runs once the write is visible to reads (after the writer thread committed it),
   * with the writer thread's marks of its way there (thread writer only).
   * @throws StoreWriteError when RocksDB refuses the batch (nothing of the block is written) or an
   * earlier write was refused.
   */
  commitBatch(
    ref: BlockRef,
    batch: BlockBatch,
    extraMeta?: Record<string, unknown>,
    onCommitted?: (marks?: WriterMarks) => void,
  ): void;
  /**
   * Ends block `ref` in a live batch that goes on with the next block (several blocks, one write):
   * its canonical row and its own undo record, so a rollback takes it back alone. The batch is
   * committed by {@link commitBatch} with its last block.
   */
  endBlock(ref: BlockRef, batch: BlockBatch): void;
  /**
   * Rolls back the head block atomically from its undo record; the checkpoint moves to its parent.
   * @throws Error when the head has no undo record (older than the unfinalised window).
   */
  rollbackHead(
    extraMeta?: (newHead: BlockRef | null) => Record<string, unknown>,
    extraOps?: (dropped: BlockRef, newHead: BlockRef | null) => WriteOp[],
    onCommitted?: () => void,
  ): BlockRef;
  /**
   * Commits late writes for an already committed block `n` (a projection rebuilding from stored
   * data) atomically, appending their undo entries to block n's undo record when it is still in
   * the unfinalised window, so a later rollback of n unwinds them too.
   */
  commitLate(n: number, build: (batch: BlockBatch) => void, extraMeta?: Record<string, unknown>): void;
  /**
   * Deletes rows (`deletes`: full keys) and writes the META records of `meta` (name → value) in one
   * atomic batch outside any block, through the change log as kind `prune` (replicas delete them
   * too): the history pruner's write (history-prune.ts). Its keys do not enter the state cache.
   * `onCommitted` runs once RocksDB holds the batch.
   * @throws StoreWriteError when an earlier batch was refused, or (sync writer) this one is.
   */
  prune(deletes: readonly Buffer[], meta: Record<string, unknown>, onCommitted?: () => void): void;
  /** Deletes every row of the given tables (a projection reset before its rebuild). */
  wipeTables(tables: readonly AnyTable[]): void;
  /** Deletes every key (data reset for a devnet that was replaced). */
  wipe(): void;
  /** The change log (enabled with StoreOptions.changeLog). */
  readonly changeLog: ChangeLog;
  /**
   * Replica side: applies a writer's entry atomically (its ops plus this store's applied
   * sequence), then refreshes the cached head and generation. Entries must come in sequence order.
   * @throws Error on a sequence gap; StoreWriteError when RocksDB refuses.
   */
  applyChange(e: ChangeEntry, streamSeq?: number): void;
  /** Replica side: the last applied writer sequence (0 when none) and when the writer committed it. */
  applied(): AppliedState;
  /**
   * Writer side: a consistent snapshot of every row (change-log bookkeeping excluded) at change
   * sequence `seq`, read in chunks across event-loop turns (RocksDB pins the view at creation).
   */
  snapshot(): {
    seq: number;
    head: BlockRef | null;
    generation: string;
    next(max: number): WriteOp[];
    close(): void;
  };
  /**
   * Replica side: replaces every row with a writer's snapshot, chunk by chunk (`begin` wipes,
   * `chunk` writes rows, `end` records the snapshot as applied up to `state.seq`). A replica
   * imports before it serves, so no read sees a half-imported store.
   */
  importSnapshot(): { chunk(ops: WriteOp[]): void; end(state: AppliedState): void };
  close(): Promise<void>;
}
