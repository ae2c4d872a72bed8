/**
 * The store: the only owner of RocksDB batches. Ingest commits one atomic batch per block
 * (every projection row, the canonical hash, the undo record and the checkpoint together), so a
 * crash at any instant leaves exactly "all of block N" or "none of it".
 */
import { randomBytes } from 'node:crypto';
import { prefixEnd } from '../schema/codec.js';
import { CHANGELOG_SEQ_META, REPLICA_APPLIED_META } from '../schema/rows/replication.js';
import type { KeySink } from '../schema/stateless.js';
import type { AnyTable, InvariantReader, Table } from '../schema/table.js';
import { CANON, CHANGELOG, META, UNDO } from '../schema/tables/chain.js';
import { ALL_TABLES } from '../schema/tables/index.js';
import { openRocks, type Rocks, type RocksTuning, type ScanRange, type WriteOp } from './binding.js';
import { HOT_VALUE_MAX_BYTES, type OpMap, StateCache } from './cache.js';
import { type ChangeEntry, type ChangeKind, decodeChange, encodeChange } from './changelog.js';
import { laterSlice } from './turns.js';
import { appendUndo, encodeUndo, type UndoEntry, undoOps } from './undo.js';
import { type Bounds, openView, rangeOf, type View } from './view.js';
import { createSyncWriter, createThreadWriter, eachOp, type WriteQueue, type WriterMarks } from './writer.js';

export { K, type KeyPart, type Prefix, prefixEnd, V, type ValueCodec } from '../schema/codec.js';
export { type AnyTable, defineTable, type Invariant, type Table } from '../schema/table.js';
export type { Rocks, RocksTuning, ScanRange, WriteOp } from './binding.js';
export { DEFAULT_ROCKS_TUNING } from './binding.js';
export type { ChangeEntry, ChangeKind } from './changelog.js';
export { nextSlice, setTurnBudget, turnBudget } from './turns.js';
export type { Bounds, View } from './view.js';
export type { WriterMarks } from './writer.js';

/** A canonical block coordinate: number and 0x-prefixed 32-byte hash. */
export interface BlockRef {
  number: number;
  hash: `0x${string}`;
}

/** Identity of the chain a data directory belongs to; compared with the node at start-up. */
export interface ChainIdentity {
  chain: string;
  chainId: number;
  /** Hash of the first block this store indexed (block 0 for a full index). */
  firstBlockHash: `0x${string}`;
  firstBlock: number;
}

/**
 * Writes of one block — or, in history mode, of a segment of many final blocks. Typed methods name
 * a table of the registry (src/storage/tables); `put` and `del` record the key's prior value for
 * rollback; `insert` is for keys that are guaranteed absent before this block (block-keyed rows
 * above the checkpoint), which saves the read; `append` writes without undo (append-only logs that
 * survive a rollback). Reads (`get`) see this batch's own pending writes first, then the store's
 * state cache (values of writes still in flight on the writer thread included), then RocksDB;
 * range walks (`each`, `first`) see committed RocksDB rows only, so a projection never walks rows
 * that a pending or in-flight write may hold (it keeps a point row for what it needs instead).
 *
 * Writes collapse per key: the batch holds the latest value of each key it wrote, so a balance a
 * segment changes in 500 blocks is written once. A history segment (`undo: false`) records no
 * undo and reads no prior value: its blocks are final and are never rolled back.
 */
export class BlockBatch {
  /** Latest pending value per key (latin1 of the key bytes; null: a delete). */
  private readonly pending: OpMap = new Map<string, Buffer | null>();
  /** Rows encoded elsewhere (a decode worker's), written with the batch before its own ops. */
  readonly parts: ArrayBuffer[] = [];
  /**
   * Undo entries, the first prior value of each key this batch wrote (null: a history segment,
   * which keeps no undo).
   */
  readonly undo: UndoEntry[] | null;
  /** Committed values read through this batch that the state cache does not keep (large ones). */
  private readonly large = new Map<string, Buffer>();
  private pendingBytes = 0;

  constructor(
    /** The store underneath, for range reads of committed state. */
    readonly rocks: Rocks,
    private readonly cache: StateCache,
    opts: { undo?: boolean } = {},
  ) {
    this.undo = opts.undo === false ? null : [];
  }

  /** The batch's writes, one op per key (the latest value), in first-write order. */
  get ops(): WriteOp[] {
    return [...this.pending].map(([k, value]) => ({ key: Buffer.from(k, 'latin1'), value }));
  }
  /** The batch's pending writes as the store hands them to the writer (do not change). */
  get opMap(): OpMap {
    return this.pending;
  }
  /**
   * Adds rows already encoded ({@link encodeOps} layout, written before this batch's own ops),
   * with `bytes` of keys and values. Rows nobody reads back while the batch is built: a decode
   * worker's chain records and stateless projection rows.
   */
  addPart(part: ArrayBuffer): void {
    this.parts.push(part);
    this.pendingBytes += part.byteLength;
    if (!this.undo) return;
    // A live block's undo: an inserted row is deleted; a put restores its prior value.
    const puts: Buffer[] = [];
    eachOp(part, (key, _value, insert) => {
      if (insert) this.undo!.push({ key: Buffer.from(key), prior: null });
      else puts.push(Buffer.from(key));
    });
    this.prefetchRaw(puts);
    for (const key of puts) this.undo.push({ key, prior: this.getRaw(key) ?? null });
  }
  /** Approximate bytes of the pending writes (keys and values). */
  get bytes(): number {
    return this.pendingBytes;
  }
  /** Keys written. */
  get size(): number {
    return this.pending.size;
  }

  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined {
    const v = this.getRaw(t.key(...key));
    return v === undefined ? undefined : t.value.decode(v);
  }
  has<K extends unknown[], V>(t: Table<K, V>, ...key: K): boolean {
    return this.getRaw(t.key(...key)) !== undefined;
  }
  put<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void {
    this.putRaw(t.key(...key), t.value.encode(value));
  }
  insert<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void {
    this.insertRaw(t.key(...key), t.value.encode(value));
  }
  del<K extends unknown[], V>(t: Table<K, V>, ...key: K): void {
    this.delRaw(t.key(...key));
  }
  /** Writes without an undo entry (append-only logs; see {@link raw}). */
  append<K extends unknown[], V>(t: Table<K, V>, key: K, value: V | null): void {
    this.raw(t.key(...key), value === null ? null : t.value.encode(value));
  }
  /** Walks committed rows (this batch's and in-flight writes are not seen). */
  each<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, key: K, raw: Buffer) => boolean | undefined | void,
  ): void {
    this.rocks.each(rangeOf(t, b), (k, v) => visit(t.value.decode(v), t.decodeKey(k), k) !== false);
  }
  /** The first committed row of a range (the last when `reverse`). */
  first<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): { key: K; value: V } | undefined {
    const r = this.rocks.scan({ ...rangeOf(t, b), limit: 1 });
    return r.length ? { key: t.decodeKey(r[0][0]), value: t.value.decode(r[0][1]) } : undefined;
  }

  /**
   * Reads the values of `keys` that neither this batch nor the state cache holds, in one RocksDB
   * multi-get, so later `get`/`put`/`del` of these keys read nothing more. Purely an
   * optimisation: results are the same without it.
   */
  prefetchRaw(keys: readonly Buffer[]): void {
    const want: Buffer[] = [];
    const ids: string[] = [];
    const asked = new Set<string>();
    for (const key of keys) {
      const k = key.toString('latin1');
      if (this.pending.has(k) || asked.has(k) || this.large.has(k) || this.cache.get(k) !== undefined)
        continue;
      asked.add(k);
      want.push(key);
      ids.push(k);
    }
    if (!want.length) return;
    const got = this.rocks.getMany(want);
    for (let i = 0; i < ids.length; i++) this.remember(ids[i], got[i] ?? null);
  }
  /** {@link prefetchRaw} of the rows `fill` names, of any tables, in one multi-get. */
  prefetchKeys(fill: (add: KeySink) => void): void {
    const keys: Buffer[] = [];
    fill((t, key) => keys.push((t.key as (...k: unknown[]) => Buffer)(...key)));
    this.prefetchRaw(keys);
  }
  /** {@link prefetchRaw} of rows of table `t` by key. */
  prefetch<K extends unknown[], V>(t: Table<K, V>, keys: readonly K[]): void {
    this.prefetchRaw(keys.map((k) => t.key(...k)));
  }

  insertRaw(key: Buffer, value: Buffer): void {
    const k = key.toString('latin1');
    if (this.undo && !this.pending.has(k)) this.undo.push({ key, prior: null });
    this.set(k, key, value);
  }
  putRaw(key: Buffer, value: Buffer): void {
    const k = key.toString('latin1');
    if (this.undo && !this.pending.has(k)) this.undo.push({ key, prior: this.read(k, key) ?? null });
    this.set(k, key, value);
  }
  /**
   * Writes without an undo entry: for append-only logs that must survive a rollback (stream
   * frames keep their sequence; a reorg is announced by new frames, never by deleting old ones).
   */
  raw(key: Buffer, value: Buffer | null): void {
    this.set(key.toString('latin1'), key, value);
  }
  delRaw(key: Buffer): void {
    const k = key.toString('latin1');
    const mine = this.pending.get(k);
    if (mine !== undefined) {
      if (mine !== null) this.set(k, key, null); // its undo entry is the first write's
      return;
    }
    if (!this.undo) {
      // History: a blind delete (no prior read); absent keys the cache knows of are skipped.
      if (this.cache.get(k) !== null) this.set(k, key, null);
      return;
    }
    const prior = this.read(k, key) ?? null;
    if (prior === null) return;
    this.undo.push({ key, prior });
    this.set(k, key, null);
  }
  /** Reads through this batch's own pending writes first, then the state cache and the store. */
  getRaw(key: Buffer): Buffer | undefined {
    return this.read(key.toString('latin1'), key);
  }
  private set(k: string, key: Buffer, value: Buffer | null): void {
    const old = this.pending.get(k);
    if (old !== undefined) this.pendingBytes -= old?.length ?? 0;
    else this.pendingBytes += key.length;
    this.pendingBytes += value?.length ?? 0;
    this.pending.set(k, value);
  }
  private remember(k: string, v: Buffer | null): void {
    if (v !== null && v.length > HOT_VALUE_MAX_BYTES) this.large.set(k, v);
    else this.cache.fill(k, v);
  }
  private read(k: string, key: Buffer): Buffer | undefined {
    const p = this.pending.get(k);
    if (p !== undefined) return p ?? undefined;
    const c = this.cache.get(k);
    if (c !== undefined) return c ?? undefined;
    const l = this.large.get(k);
    if (l !== undefined) return l;
    const got = this.rocks.get(key);
    this.remember(k, got ?? null);
    return got;
  }
}

/**
 * A {@link View} of what ingest sees while it builds `batch`: point reads through the batch (its
 * pending writes, the state cache with in-flight writes, RocksDB), walks over committed rows only.
 * For projections' `prepare` (first-sight checks before a block is applied). Never closes.
 */
export function batchView(batch: BlockBatch, head: BlockRef | null): View {
  const committed = openView(batch.rocks, () => head);
  return {
    ...committed,
    get: (t, ...key) => batch.get(t, ...key),
    has: (t, ...key) => batch.has(t, ...key),
    getMany: (t, keys) => keys.map((k) => batch.get(t, ...k)),
    meta: <T>(name: string) => batch.get(META, name) as T | undefined,
    canonicalHash: (n) => batch.get(CANON, n),
    consistent: () => true,
    close: () => undefined,
  };
}

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
  /**
   * Called once when a write batch is refused (writer thread): ingest halts. Returns the
   * unsubscribe function.
   */
  onWriteError(listener: (err: StoreWriteError) => void): () => void;
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

const CHECKPOINT = 'checkpoint:blocks';
/** META name of the last change-log sequence (writer) and of the last applied one (replica). */
const CHANGELOG_SEQ = CHANGELOG_SEQ_META;
const REPLICA_APPLIED = REPLICA_APPLIED_META;
/** Deletions per write while wiping (bounds the batch's memory). */
const WIPE_CHUNK_ROWS = 10_000;
/** A committed batch of at most this many keys leaves its small values cached (live blocks). */
const PROMOTE_MAX_OPS = 20_000;
/** Ops by latin1 key (the last op on a key wins). */
const opMapOf = (ops: readonly WriteOp[]): OpMap => {
  const m: OpMap = new Map();
  for (const op of ops) m.set(op.key.toString('latin1'), op.value);
  return m;
};
/** Default bound of the ingest's state cache (StoreOptions.cacheBytes). */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

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
  const metaOp = (name: string, value: unknown): WriteOp => ({
    key: META.key(name),
    value: META.value.encode(value),
  });
  let generation: string = readMeta<string>('generation') ?? '';
  if (!generation) {
    generation = randomBytes(8).toString('hex');
    rocks.write([metaOp('generation', generation)]);
  }
  let head: BlockRef | null = readMeta<BlockRef>(CHECKPOINT) ?? null;
  let lastWriteError: StoreWriteError | null = null;
  const queue: WriteQueue = opts.writer === 'thread' ? createThreadWriter(rocks) : createSyncWriter(rocks);
  const errorListeners = new Set<(err: StoreWriteError) => void>();
  let writeIds = 0;

  const logOn = opts.changeLog === true;
  let logSeq = readMeta<number>(CHANGELOG_SEQ) ?? 0;
  /** The last change-log entry RocksDB holds (logSeq counts entries submitted). */
  let logCommitted = logSeq;
  const logListeners = new Set<(seq: number) => void>();
  /** The committed head, read from RocksDB (never from the cache): what a view anchors at. */
  const committedHead = (): BlockRef | null => {
    const v = rocks.get(META.key(CHECKPOINT));
    return v ? (META.value.decode(v) as BlockRef) : null;
  };
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
  /**
   * Submits `ops` as one atomic batch; with the change log on, the entry describing them (and the
   * log's sequence) joins the same batch. The ops are readable through the state cache at once;
   * `onCommitted` runs when RocksDB holds them.
   * @throws StoreWriteError when an earlier batch was refused, or (sync writer) this one is.
   */
  const write = (
    ops: WriteOp[] | OpMap,
    kind: ChangeKind,
    headAfter: BlockRef | null = head,
    onCommitted?: (marks?: WriterMarks) => void,
    logged = true,
    parts: ArrayBuffer[] = [],
  ) => {
    if (lastWriteError) throw lastWriteError;
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
    // Small batches (live blocks, process rows) stay cached once committed; segments do not.
    cache.write(id, map, map.size <= PROMOTE_MAX_OPS);
    let refused: StoreWriteError | null = null;
    const done = (err: Error | null, marks?: WriterMarks) => {
      if (err) {
        refused =
          err instanceof StoreWriteError
            ? err
            : new StoreWriteError(`RocksDB refused the batch: ${err.message}`, { cause: err });
        if (!lastWriteError) {
          lastWriteError = refused;
          // What the cache holds beyond RocksDB was never written: RocksDB is the truth again.
          cache.clear();
          head = committedHead();
          for (const l of errorListeners) l(refused);
        }
        return;
      }
      if (cache.committed(id)) retireLater();
      rocks.retireIterators(); // an idle pooled iterator would pin the version before this write
      if (logOn && logged) {
        logCommitted = seq;
        for (const l of logListeners) l(seq);
      }
      onCommitted?.(marks);
    };
    try {
      queue.submit(map, done, parts);
    } catch (err) {
      // A sync writer's refusal (typed above); anything else is the caller's callback failing.
      throw refused ?? err;
    }
  };
  /**
   * Deletes every row of `range`: those RocksDB holds and those of writes still in flight (the
   * state cache knows them), through the write queue. `kind` null: not logged (a whole-store wipe,
   * announced to replicas by its own entry).
   */
  const wipeRange = (range: ScanRange, kind: ChangeKind | null) => {
    const ops: WriteOp[] = [];
    const seen = new Set<string>();
    const flush = () => {
      const chunk = ops.splice(0);
      if (kind) write(chunk, kind);
      else write(chunk, 'reset', head, undefined, false);
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
  };
  let applied = readMeta<AppliedState>(REPLICA_APPLIED) ?? {
    seq: 0,
    committedAtMs: 0,
    head: null,
    streamSeq: 0,
  };
  const refresh = () => {
    cache.clear();
    head = readMeta<BlockRef>(CHECKPOINT) ?? null;
    generation = readMeta<string>('generation') ?? generation;
    (store as { generation: string }).generation = generation;
  };
  /** Keys a snapshot leaves out: the writer's own change-log bookkeeping. */
  const bookkeeping = new Set([
    META.key(CHANGELOG_SEQ).toString('latin1'),
    META.key(REPLICA_APPLIED).toString('latin1'),
  ]);
  const canonicalHash = (n: number) => {
    const v = readRaw(CANON.key(n));
    return v ? CANON.value.decode(v) : undefined;
  };

  const store: Store = {
    rocks,
    generation,
    unfinalisedWindow: opts.unfinalisedWindow,
    head: () => head,
    committedHead,
    view: () => openView(rocks, committedHead),
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
    async prefetchEncoded(lists) {
      const want: Buffer[] = [];
      const ids: string[] = [];
      const asked = new Set<string>();
      for (const ab of lists)
        eachKey(ab, (key) => {
          const k = key.toString('latin1');
          if (asked.has(k) || cache.get(k) !== undefined) return;
          asked.add(k);
          want.push(key);
          ids.push(k);
        });
      if (!want.length) return;
      // Read off the main thread (libuv's pool): reads go on meanwhile. A batch committed while
      // the read is out may have changed a key after RocksDB answered: the fence drops those.
      const fence = cache.fence();
      try {
        const got = await rocks.getManyAsync(want);
        for (let i = 0; i < ids.length; i++) cache.fill(ids[i], got[i] ?? null, fence);
      } finally {
        cache.unfence(fence);
      }
    },
    settled: (max = 0) => queue.drain(max),
    inFlight: () => ({ batches: queue.inFlight(), bytes: queue.inFlightBytes() }),
    cacheStats: () => cache.stats(),
    onWriteError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    writeError: () => lastWriteError,
    commitBlock(ref, build, extraMeta) {
      const batch = new BlockBatch(rocks, cache);
      build(batch);
      store.commitBatch(ref, batch, extraMeta);
    },
    newBatch: (o) => new BlockBatch(rocks, cache, o),
    commitBatch(ref, batch, extraMeta, onCommitted) {
      batch.insert(CANON, [ref.number], ref.hash);
      if (batch.undo) {
        batch.raw(UNDO.key(ref.number), encodeUndo(batch.undo));
        // Undo is kept for the last `unfinalisedWindow` blocks (a reorg that deep is rolled back).
        const pruned = ref.number - opts.unfinalisedWindow;
        if (pruned >= 0) batch.raw(UNDO.key(pruned), null);
      }
      const cp = metaOp(CHECKPOINT, ref);
      batch.raw(cp.key, cp.value);
      if (extraMeta)
        for (const [k, v] of Object.entries(extraMeta)) {
          const op = metaOp(k, v);
          batch.raw(op.key, op.value);
        }
      const next = { number: ref.number, hash: ref.hash };
      write(batch.opMap, 'block', next, onCommitted, true, batch.parts);
      head = next;
    },
    rollbackHead(extraMeta, extraOps, onCommitted) {
      if (!head) throw new Error('rollback with no head');
      const record = readRaw(UNDO.key(head.number));
      if (!record)
        throw new Error(`no undo record for block ${head.number} (outside the unfinalised window)`);
      const ops = undoOps(record);
      ops.push({ key: UNDO.key(head.number), value: null });
      const parentNumber = head.number - 1;
      const parentHash = parentNumber >= 0 ? canonicalHash(parentNumber) : undefined;
      const newHead: BlockRef | null = parentHash ? { number: parentNumber, hash: parentHash } : null;
      ops.push(newHead ? metaOp(CHECKPOINT, newHead) : { key: META.key(CHECKPOINT), value: null });
      if (extraMeta) for (const [k, v] of Object.entries(extraMeta(newHead))) ops.push(metaOp(k, v));
      if (extraOps) ops.push(...extraOps(head, newHead));
      const dropped = head;
      write(ops, 'rollback', newHead, onCommitted);
      head = newHead;
      return dropped;
    },
    commitLate(n, build, extraMeta) {
      const batch = new BlockBatch(rocks, cache);
      build(batch);
      const record = readRaw(UNDO.key(n));
      if (record && batch.undo?.length) batch.raw(UNDO.key(n), appendUndo(record, batch.undo));
      if (extraMeta)
        for (const [k, v] of Object.entries(extraMeta)) {
          const op = metaOp(k, v);
          batch.raw(op.key, op.value);
        }
      write(batch.opMap, 'late', head, undefined, true, batch.parts);
    },
    wipeTables(tables) {
      for (const t of tables) wipeRange(rangeOf(t, {}), 'reset');
    },
    wipe() {
      // Not logged row by row: the entry below tells replicas to wipe themselves. The log's own
      // sequence survives (it is kept in memory and rewritten with the entry), so it stays gap-free.
      wipeRange({}, null);
      head = null;
      generation = randomBytes(8).toString('hex');
      write([metaOp('generation', generation)], 'wipe', null);
      (store as { generation: string }).generation = generation;
    },
    changeLog: {
      enabled: logOn,
      last: () => logCommitted,
      read(after, max) {
        return store.changeLog.readRaw(after, max).map((r) => decodeChange(r.raw));
      },
      readRaw(after, max) {
        const out: Array<{ seq: number; raw: Buffer }> = [];
        rocks.each({ gt: CHANGELOG.key(after), lt: prefixEnd(CHANGELOG.prefix()), limit: max }, (k, v) => {
          out.push({ seq: CHANGELOG.decodeKey(k)[0], raw: Buffer.from(v) });
          return true;
        });
        return out;
      },
      prune(upTo) {
        const ops: WriteOp[] = [];
        rocks.each({ gte: CHANGELOG.prefix(), lte: CHANGELOG.key(upTo) }, (k) => {
          ops.push({ key: Buffer.from(k), value: null });
          return true;
        });
        // Through the write queue: it must not overtake the entries it prunes.
        if (ops.length) write(ops, 'reset', head, undefined, false);
      },
      onAppend(listener) {
        logListeners.add(listener);
        return () => logListeners.delete(listener);
      },
    },
    applyChange(e, streamSeq = 0) {
      if (e.seq !== applied.seq + 1)
        throw new Error(`change log gap: applied ${applied.seq}, received ${e.seq}`);
      const next: AppliedState = { seq: e.seq, committedAtMs: e.committedAtMs, head: e.head, streamSeq };
      if (e.kind === 'wipe') wipeRange({}, null);
      const ops = [...e.ops, metaOp(REPLICA_APPLIED, next)];
      try {
        rocks.write(ops);
        lastWriteError = null;
      } catch (err) {
        lastWriteError = new StoreWriteError(`RocksDB refused the batch: ${(err as Error).message}`, {
          cause: err,
        });
        throw lastWriteError;
      }
      applied = next;
      refresh();
    },
    applied: () => applied,
    snapshot() {
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
              if (k[0] === CHANGELOG.id || bookkeeping.has(k.toString('latin1'))) continue;
              out.push({ key: Buffer.from(k), value: Buffer.from(v) });
            }
            if (rows.length === 0 || out.length >= max) return out;
          }
        },
        close: () => it.close(),
      };
    },
    importSnapshot() {
      wipeRange({}, null);
      return {
        chunk(ops) {
          if (ops.length) rocks.write(ops);
        },
        end(state) {
          applied = state;
          rocks.write([metaOp(REPLICA_APPLIED, state)]);
          refresh();
        },
      };
    },
    async close() {
      await queue.close();
      await rocks.close();
    },
  };
  return store;
}

/**
 * Start-up invariant checks (docs/CONTRIBUTING.md habit 6): runs every invariant declared by a table of the
 * registry and returns their names; refuses to start (throws) on the first broken one.
 * @throws Error naming the invariant and what is broken.
 */
export function checkInvariants(store: Store): string[] {
  const view = store.view();
  const reader: InvariantReader = {
    head: () => view.head,
    get: (t, ...key) => view.get(t, ...key),
    each: (t, prefix, visit) => view.each(t, { prefix }, (v, k) => visit(v, k)),
  };
  const checked: string[] = [];
  try {
    for (const t of ALL_TABLES)
      for (const inv of t.invariants) {
        const broken = inv.check(reader);
        if (broken) throw new Error(`storage invariant ${inv.name} broken (${inv.doc}): ${broken}`);
        checked.push(inv.name);
      }
  } finally {
    view.close();
  }
  return checked;
}

/** A list of keys as one transferable buffer: u32 count, then per key u16 length and the key. */
export function encodeKeyList(fill: (add: KeySink) => void): ArrayBuffer {
  const keys: Buffer[] = [];
  const seen = new Set<string>();
  fill((t, key) => {
    const k = (t.key as (...k: unknown[]) => Buffer)(...key);
    const id = k.toString('latin1');
    if (seen.has(id)) return;
    seen.add(id);
    keys.push(k);
  });
  let size = 4;
  for (const k of keys) size += 2 + k.length;
  const ab = new ArrayBuffer(size);
  const buf = Buffer.from(ab);
  let off = buf.writeUInt32LE(keys.length, 0);
  for (const k of keys) {
    off = buf.writeUInt16LE(k.length, off);
    off += k.copy(buf, off);
  }
  return ab;
}

/** Visits the keys of an {@link encodeKeyList} buffer (views into it). */
function eachKey(ab: ArrayBuffer, visit: (key: Buffer) => void): void {
  const buf = Buffer.from(ab);
  const n = buf.readUInt32LE(0);
  let off = 4;
  for (let i = 0; i < n; i++) {
    const len = buf.readUInt16LE(off);
    off += 2;
    visit(buf.subarray(off, off + len));
    off += len;
  }
}
