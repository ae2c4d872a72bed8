/**
 * The store: the only owner of RocksDB batches. Ingest commits one atomic batch per block
 * (every projection row, the canonical hash, the undo record and the checkpoint together), so a
 * crash at any instant leaves exactly "all of block N" or "none of it".
 */
import { randomBytes } from 'node:crypto';
import { openRocks, type Rocks, type RocksTuning, type ScanRange, type WriteOp } from './binding.js';
import { type ChangeEntry, type ChangeKind, decodeChange, encodeChange } from './changelog.js';
import { prefixEnd } from './codec.js';
import type { AnyTable, InvariantReader, Table } from './table.js';
import { CANON, CHANGELOG, META, UNDO } from './tables/chain.js';
import { ALL_TABLES } from './tables/index.js';
import { appendUndo, encodeUndo, type UndoEntry, undoOps } from './undo.js';
import { type Bounds, openView, rangeOf, type View } from './view.js';

export type { Rocks, RocksTuning, ScanRange, WriteOp } from './binding.js';
export { DEFAULT_ROCKS_TUNING } from './binding.js';
export type { ChangeEntry, ChangeKind } from './changelog.js';
export { K, type KeyPart, type Prefix, prefixEnd, V, type ValueCodec } from './codec.js';
export { type AnyTable, defineTable, type Invariant, type Table } from './table.js';
export type { Bounds, View } from './view.js';

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
 * Writes of one block. Typed methods name a table of the registry (src/storage/tables); `put`
 * and `del` record the key's prior value for rollback; `insert` is for keys that are guaranteed
 * absent before this block (block-keyed rows above the checkpoint), which saves the read;
 * `append` writes without undo (append-only logs that survive a rollback). Reads (`get`) see this
 * batch's own pending writes first, then the store; range walks (`each`) see the store as of the
 * previous block only.
 */
export class BlockBatch {
  readonly ops: WriteOp[] = [];
  readonly undo: UndoEntry[] = [];
  /**
   * Latest pending value per key (latin1 of the key bytes; null = deleted): reads through the
   * batch are O(1), not a scan of `ops` (a dense block's projections do ~10⁴ reads and writes, and
   * the scan made its commit quadratic: 0.7 s for 1,100 transactions).
   */
  private readonly pending = new Map<string, Buffer | null>();
  /**
   * Committed values read through this batch (null = absent), so a key read and then written
   * (every `put` reads its prior for undo) crosses into RocksDB once. The store does not change
   * under a batch while it is built: ingest is the only writer of block tables.
   */
  private readonly committed = new Map<string, Buffer | null>();
  /** The store underneath, for range reads of state as of the previous block. */
  constructor(
    /** @deprecated transition only: read through typed tables (each/first/get). */
    readonly rocks: Rocks,
  ) {}

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
  /** Walks committed rows (state as of the previous block; this batch's writes are not seen). */
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
   * Reads the committed values of `keys` in one RocksDB multi-get (one native call instead of one
   * per key) so later `get`/`put`/`del` of these keys in this batch read nothing more. Keys this
   * batch already wrote or read are skipped. Purely an optimisation: results are the same without it.
   */
  prefetchRaw(keys: readonly Buffer[]): void {
    const want: Buffer[] = [];
    const ids: string[] = [];
    const asked = new Set<string>();
    for (const key of keys) {
      const k = key.toString('latin1');
      if (this.pending.has(k) || this.committed.has(k) || asked.has(k)) continue;
      asked.add(k);
      want.push(key);
      ids.push(k);
    }
    if (!want.length) return;
    const got = this.rocks.getMany(want);
    for (let i = 0; i < ids.length; i++) this.committed.set(ids[i], got[i] ?? null);
  }
  /** {@link prefetchRaw} of rows of table `t` by key. */
  prefetch<K extends unknown[], V>(t: Table<K, V>, keys: readonly K[]): void {
    this.prefetchRaw(keys.map((k) => t.key(...k)));
  }

  insertRaw(key: Buffer, value: Buffer): void {
    this.ops.push({ key, value });
    this.undo.push({ key, prior: null });
    this.pending.set(key.toString('latin1'), value);
  }
  putRaw(key: Buffer, value: Buffer): void {
    const k = key.toString('latin1');
    this.undo.push({ key, prior: this.read(k, key) ?? null });
    this.ops.push({ key, value });
    this.pending.set(k, value);
  }
  /**
   * Writes without an undo entry: for append-only logs that must survive a rollback (stream
   * frames keep their sequence; a reorg is announced by new frames, never by deleting old ones).
   */
  raw(key: Buffer, value: Buffer | null): void {
    this.ops.push({ key, value });
    this.pending.set(key.toString('latin1'), value);
  }
  delRaw(key: Buffer): void {
    const k = key.toString('latin1');
    const prior = this.read(k, key) ?? null;
    if (prior === null) return;
    this.undo.push({ key, prior });
    this.ops.push({ key, value: null });
    this.pending.set(k, null);
  }
  /** Reads through this batch's own pending writes first, then the store. */
  getRaw(key: Buffer): Buffer | undefined {
    return this.read(key.toString('latin1'), key);
  }
  private read(k: string, key: Buffer): Buffer | undefined {
    const v = this.pending.get(k);
    if (v !== undefined) return v ?? undefined;
    const c = this.committed.get(k);
    if (c !== undefined) return c ?? undefined;
    const got = this.rocks.get(key);
    this.committed.set(k, got ?? null);
    return got;
  }
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
  dataDir: string;
  /** Blocks of undo data kept below the head; a reorg deeper than this cannot be rolled back. */
  unfinalisedWindow: number;
  /**
   * Record every committed write in the change log (the writer role of scale-out): each entry is
   * written in the same batch as its change. Off by default (no cost when no replica exists).
   */
  changeLog?: boolean;
  /** RocksDB tuning (defaults: DEFAULT_ROCKS_TUNING). */
  rocks?: RocksTuning;
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
  /** The committed head of the blocks lane, or null before the first block. Cached, O(1). */
  head(): BlockRef | null;
  /**
   * Opens an anchored view at the committed head (see view.ts). The caller closes it when its
   * synchronous work is done.
   */
  view(): View;
  /**
   * Write batches committed since the store opened (blocks, rollbacks, observations, process rows):
   * two reads at the same value saw the same contents. For caches of derived answers.
   */
  writes(): number;
  /** Canonical hash at `n`, or undefined. */
  canonicalHash(n: number): `0x${string}` | undefined;
  getMeta<T>(name: string): T | undefined;
  putMeta(name: string, value: unknown): void;
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
  /** The last write error, if writes are refused. */
  writeError(): Error | null;
  /**
   * Commits block `ref` atomically: `build` fills the batch; the canonical row, undo record,
   * checkpoint and pruning of undo past the window are added here.
   * @throws StoreWriteError when RocksDB refuses the batch (nothing of the block is written).
   */
  commitBlock(ref: BlockRef, build: (batch: BlockBatch) => void, extraMeta?: Record<string, unknown>): void;
  /** An empty batch over this store, for a block built in several steps (see commitBatch). */
  newBatch(): BlockBatch;
  /**
   * Commits block `ref` from a batch filled beforehand (commitBlock without the build callback).
   * The caller must make sure the head did not move since the batch was started.
   * @throws StoreWriteError when RocksDB refuses the batch (nothing of the block is written).
   */
  commitBatch(ref: BlockRef, batch: BlockBatch, extraMeta?: Record<string, unknown>): void;
  /**
   * Rolls back the head block atomically from its undo record; the checkpoint moves to its parent.
   * @throws Error when the head has no undo record (older than the unfinalised window).
   */
  rollbackHead(
    extraMeta?: (newHead: BlockRef | null) => Record<string, unknown>,
    extraOps?: (dropped: BlockRef, newHead: BlockRef | null) => WriteOp[],
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
const CHANGELOG_SEQ = 'changelog:seq';
const REPLICA_APPLIED = 'replica:applied';
/** Deletions per write while wiping (bounds the batch's memory). */
const WIPE_CHUNK_ROWS = 10_000;

export async function createStore(opts: StoreOptions): Promise<Store> {
  const rocks = await openRocks(opts.dataDir, opts.rocks);
  const readMeta = <T>(name: string): T | undefined => {
    const v = rocks.get(META.key(name));
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
  let lastWriteError: Error | null = null;

  const logOn = opts.changeLog === true;
  let logSeq = readMeta<number>(CHANGELOG_SEQ) ?? 0;
  const logListeners = new Set<(seq: number) => void>();
  /**
   * Commits `ops` atomically; with the change log on, the entry describing them (and the log's
   * sequence) joins the same batch. `headAfter` is the head once the batch is committed.
   */
  const write = (ops: WriteOp[], kind: ChangeKind, headAfter: BlockRef | null = head) => {
    let seq = 0;
    let batchOps = ops;
    if (logOn) {
      seq = logSeq + 1;
      const entry = encodeChange({ kind, seq, committedAtMs: Date.now(), head: headAfter, ops });
      batchOps = [...ops, { key: CHANGELOG.key(seq), value: entry }, metaOp(CHANGELOG_SEQ, seq)];
    }
    try {
      rocks.write(batchOps);
      lastWriteError = null;
    } catch (err) {
      lastWriteError = err as Error;
      throw new StoreWriteError(`RocksDB refused the batch: ${(err as Error).message}`, { cause: err });
    }
    if (logOn) {
      logSeq = seq;
      for (const l of logListeners) l(seq);
    }
  };
  const wipeRange = (range: ScanRange, kind: ChangeKind | null) => {
    const ops: WriteOp[] = [];
    const flush = () => {
      const chunk = ops.splice(0);
      if (kind) write(chunk, kind);
      else rocks.write(chunk);
    };
    rocks.each(range, (key) => {
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
    const v = rocks.get(CANON.key(n));
    return v ? CANON.value.decode(v) : undefined;
  };

  const store: Store = {
    rocks,
    generation,
    unfinalisedWindow: opts.unfinalisedWindow,
    head: () => head,
    view: () => openView(rocks, head),
    canonicalHash,
    getMeta: readMeta,
    putMeta(name, value) {
      write([metaOp(name, value)], 'meta');
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
    writes: () => rocks.writes(),
    writeError: () => lastWriteError,
    commitBlock(ref, build, extraMeta) {
      const batch = new BlockBatch(rocks);
      build(batch);
      store.commitBatch(ref, batch, extraMeta);
    },
    newBatch: () => new BlockBatch(rocks),
    commitBatch(ref, batch, extraMeta) {
      batch.insert(CANON, [ref.number], ref.hash);
      const ops = batch.ops;
      ops.push({ key: UNDO.key(ref.number), value: encodeUndo(batch.undo) });
      // Undo is kept for the last `unfinalisedWindow` blocks (a reorg that deep is rolled back).
      const pruned = ref.number - opts.unfinalisedWindow;
      if (pruned >= 0) ops.push({ key: UNDO.key(pruned), value: null });
      ops.push(metaOp(CHECKPOINT, ref));
      if (extraMeta) for (const [k, v] of Object.entries(extraMeta)) ops.push(metaOp(k, v));
      const next = { number: ref.number, hash: ref.hash };
      write(ops, 'block', next);
      head = next;
    },
    rollbackHead(extraMeta, extraOps) {
      if (!head) throw new Error('rollback with no head');
      const record = rocks.get(UNDO.key(head.number));
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
      write(ops, 'rollback', newHead);
      head = newHead;
      return dropped;
    },
    commitLate(n, build, extraMeta) {
      const batch = new BlockBatch(rocks);
      build(batch);
      const ops = batch.ops;
      const record = rocks.get(UNDO.key(n));
      if (record && batch.undo.length) ops.push({ key: UNDO.key(n), value: appendUndo(record, batch.undo) });
      if (extraMeta) for (const [k, v] of Object.entries(extraMeta)) ops.push(metaOp(k, v));
      write(ops, 'late');
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
      last: () => logSeq,
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
        if (ops.length) rocks.write(ops);
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
        lastWriteError = err as Error;
        throw new StoreWriteError(`RocksDB refused the batch: ${(err as Error).message}`, { cause: err });
      }
      applied = next;
      refresh();
    },
    applied: () => applied,
    snapshot() {
      // Taken in one synchronous turn: the sequence and the iterator's pinned view agree.
      const seq = logSeq;
      const it = rocks.cursor({});
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
    close: () => rocks.close(),
  };
  return store;
}

/**
 * Start-up invariant checks (CONVENTIONS habit 6): runs every invariant declared by a table of the
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
