/**
 * The one module of the repository that touches the RocksDB binding (`@nxtedition/rocksdb`); the
 * indexer (its src/storage) and the scanner (its store.ts) open their databases through it.
 *
 * Why this binding (see bench/storage/RESULTS.md): it offers synchronous reads (multi-get and
 * iterators) and synchronous atomic batch writes. The ingest writer and the HTTP readers share the
 * main thread, so a request handler that reads synchronously runs entirely between two committed
 * batches: every response sees exactly "all of block N" — a consistent snapshot by construction,
 * with no thread-pool hop per read.
 */
import { createRequire } from 'node:module';
import { type NxChainedBatch, RocksLevel } from '@nxtedition/rocksdb';

/** A key range for {@link Rocks.scan}; bounds are raw byte keys compared lexicographically. */
export interface ScanRange {
  gte?: Buffer;
  gt?: Buffer;
  lt?: Buffer;
  lte?: Buffer;
  reverse?: boolean;
  /** Maximum rows to return; -1 or absent means unbounded (callers should always bound). */
  limit?: number;
}

/**
 * Thrown by every read and write of a store whose close has begun. RocksDB's close runs on the
 * thread pool; a read made meanwhile on another thread would use a database being torn down (an
 * iterator made then aborts the process on an assertion: seen as `~ColumnFamilySet: last_ref` at
 * exit), so the store refuses it instead.
 */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('the store is closed (shutting down)');
  }
}

/** One write of a batch: `value === null` deletes the key. */
export interface WriteOp {
  key: Buffer;
  value: Buffer | null;
}

/** Synchronous facade over one RocksDB instance. */
export interface Rocks {
  get(key: Buffer): Buffer | undefined;
  getMany(keys: Buffer[]): (Buffer | undefined)[];
  /** {@link getMany} on libuv's thread pool: the calling thread is free while RocksDB reads. */
  getManyAsync(keys: Buffer[]): Promise<(Buffer | null | undefined)[]>;
  /** Reads up to `range.limit` rows; returns alternating key/value pairs flattened as tuples. */
  scan(range: ScanRange): Array<[Buffer, Buffer]>;
  /**
   * Closes the idle pooled iterators when a write landed since they were made (or they are older
   * than their 1 s bound). An open iterator
   * pins the database version it was made at — memtables already flushed and table files already
   * compacted away stay in memory and on disk — so the store calls this as each write commits
   * instead of leaving it to the next read (none may come for hours during a backfill).
   */
  retireIterators(): void;
  /** Visits rows in order until `visit` returns false; reads in chunks so memory stays bounded. */
  each(range: ScanRange, visit: (key: Buffer, value: Buffer) => boolean | undefined): void;
  /**
   * An iterator read in chunks across event-loop turns. RocksDB pins its view at creation, so the
   * rows it yields are one consistent point in time whatever commits meanwhile (snapshots for
   * replicas). The caller must close it.
   */
  cursor(range: ScanRange): { next(max: number): Array<[Buffer, Buffer]>; close(): void };
  /** Applies all ops atomically (one RocksDB WriteBatch, WAL-backed). Throws on I/O failure. */
  write(ops: WriteOp[]): void;
  /**
   * RocksDB's latest published sequence number: it moves with every committed write batch (from
   * this thread or the writer thread), never otherwise. Two reads between which it did not move saw
   * the same database (the views' consistency check, see view.ts).
   */
  sequence(): number;
  /** Write batches committed since open (alias of {@link sequence} kept for the response cache). */
  writes(): number;
  /** The native database handle, for the writer thread to open the same database (writer.ts). */
  handle(): bigint;
  property(name: string): string;
  /**
   * Closes the database: from the call on, every other method throws {@link StoreClosedError};
   * reads already on the thread pool ({@link getManyAsync}) are awaited first, and open cursors are
   * closed by RocksDB's close itself.
   */
  close(): Promise<void>;
}

const NO_OPTIONS = {};

/** The binding's native module (the same one `@nxtedition/rocksdb` loads). */
const native = createRequire(import.meta.url)('@nxtedition/rocksdb/binding.js') as {
  iterator_init(db: unknown, options: Record<string, unknown>): NativeIterator;
  iterator_nextv_sync(it: NativeIterator, n: number): { rows: Buffer[]; finished: boolean };
  iterator_close(it: NativeIterator): void;
  iterator_seek(it: NativeIterator, target: Buffer): void;
  db_get_latest_sequence(db: unknown): number | bigint;
};
/**
 * `r` with at most one bound per side: the tighter of lt/lte and of gt/gte when both are given
 * (the exclusive one on a tie), so every walk means the intersection of the bounds it was given.
 */
function tightest(r: ScanRange): ScanRange {
  if (!(r.lt && r.lte) && !(r.gt && r.gte)) return r;
  const o = { ...r };
  if (o.lt && o.lte) {
    if (Buffer.compare(o.lt, o.lte) <= 0) delete o.lte;
    else delete o.lt;
  }
  if (o.gt && o.gte) {
    if (Buffer.compare(o.gt, o.gte) >= 0) delete o.gte;
    else delete o.gt;
  }
  return o;
}
/** Idle pooled iterators kept per direction. */
const POOLED_PER_DIRECTION = 4;
/** Longest a pooled iterator is reused (ms): it pins the LSM version, and with it its files. */
const POOL_MAX_AGE_MS = 1_000;
/** Rows of a walk's first native read. */
const FIRST_CHUNK_ROWS = 8;
/** A native iterator handle (a napi external). */
type NativeIterator = { readonly __nativeIterator: unique symbol };

/** The native database handle of an opened RocksLevel (its private `context` symbol). */
function dbContext(db: RocksLevel): unknown {
  const sym = Object.getOwnPropertySymbols(db).find((x) => x.description === 'context');
  const ctx = sym ? (db as unknown as Record<symbol, unknown>)[sym] : undefined;
  if (!ctx)
    throw new Error('@nxtedition/rocksdb: no native context on the database (binding version changed?)');
  return ctx;
}
const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
/** Rows fetched per native iterator call: large enough to amortise the call, small enough to bound memory. */
const SCAN_CHUNK_ROWS = 256;

/**
 * RocksDB tuning. `compression`: `zstd` (the binding's default: ZSTD with a trained dictionary on
 * every level, WAL compressed), `bottom` (L0 and L1 plain, ZSTD from L2 where most bytes settle;
 * WAL plain) or `off` (no block or WAL compression: least CPU, most disk).
 * `cacheMb`: block cache in MiB; `indexInCache`: index and filter blocks live in that cache
 * (bounded memory) instead of beside it (one set per table file, growing with the database).
 */
export interface RocksTuning {
  compression: 'zstd' | 'bottom' | 'off';
  cacheMb: number;
  indexInCache: boolean;
  /**
   * Compaction style: `level` (the binding's level setup: L0→L1 early, L1 the size of the
   * memtable budget), `universal` (fewer rewrites of each byte: less CPU and I/O per written byte,
   * more space while compactions run), or `default` (RocksDB's own defaults). `bottom`
   * compression implies `level` unless `universal` is asked for.
   */
  compaction?: 'default' | 'level' | 'universal';
  /** Memtable memory budget for `level`/`universal`, MiB (the binding splits it in 4 buffers, up to 6 alive). */
  memtableMb?: number;
}

/**
 * Defaults. `bottom` compression with the level style and a 64 MiB memtable budget: now that
 * history is written once per segment (no per-block rewrites of state rows), ZSTD below L1 costs
 * little CPU and brings the data directory of a mainnet-shaped backfill to about the node's own
 * JSON-RPC bytes (2.2× without compression); the memtable budget bounds RocksDB's share of RSS.
 * Figures: bench/results/ingest-two-modes-*.md.
 */
export const DEFAULT_ROCKS_TUNING: RocksTuning = {
  compression: 'bottom',
  cacheMb: 64,
  indexInCache: false,
  compaction: 'level',
  memtableMb: 64,
};

/** The binding's compaction options for `tuning`. */
function compactionOf(tuning: RocksTuning): Record<string, unknown> {
  const style = tuning.compaction ?? 'default';
  const chosen = style === 'default' && tuning.compression === 'bottom' ? 'level' : style;
  if (chosen === 'default') return {};
  return {
    compaction: chosen,
    ...(tuning.memtableMb ? { memtableMemoryBudget: tuning.memtableMb * 1024 * 1024 } : {}),
  };
}

/** The binding's open options for a database opened here (`tuning`) or attached by handle. */
function openOptions(attached: boolean, tuning: RocksTuning): Record<string, unknown> {
  if (attached) return { createIfMissing: false };
  return {
    createIfMissing: true,
    cacheSize: tuning.cacheMb * 1024 * 1024,
    compression: tuning.compression !== 'off',
    walCompression: tuning.compression === 'zstd',
    // `bottom`: the binding's level style — L0 and L1 stored plain, ZSTD from L2.
    ...compactionOf(tuning),
    cacheIndexAndFilterBlocks: tuning.indexInCache,
  };
}

/**
 * A native iterator over `given` (its bounds narrowed by {@link tightest}) of database `ctx`. Only
 * defined bounds are passed: an explicit `undefined` bound makes the binding ignore the other
 * bound of the same side. fillCache: a scan keeps its blocks in the block cache like a point read.
 */
function boundedIterator(ctx: unknown, given: ScanRange): NativeIterator {
  const range = tightest(given);
  const o: Record<string, unknown> = {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    reverse: range.reverse ?? false,
    limit: range.limit ?? -1,
    fillCache: true,
  };
  if (range.gte) o.gte = range.gte;
  if (range.gt) o.gt = range.gt;
  if (range.lt) o.lt = range.lt;
  if (range.lte) o.lte = range.lte;
  return native.iterator_init(ctx, o);
}

/** Up to `n` rows of `it` as alternating keys and values, and whether it is exhausted. */
const nextv = (it: NativeIterator, n: number): { rows: Buffer[]; finished: boolean } =>
  native.iterator_nextv_sync(it, n);

/** The unbounded iterators a store's read walks reuse between writes (see createIteratorPool). */
interface IteratorPool {
  /** An idle iterator of that direction, or a fresh one; stale ones are retired first. */
  acquire(reverse: boolean): NativeIterator;
  /** Returns `it`, taken at generation `gen`: pooled when still current and room is left, else closed. */
  giveBack(it: NativeIterator, reverse: boolean, gen: number): void;
  /** The current generation (bumped by every {@link invalidate}). */
  generation(): number;
  /** Closes every idle iterator and starts a new generation (a write landed). */
  invalidate(): void;
  /** Empties the pool when a write landed since it was filled, or it is older than its bound. */
  retireStale(): void;
  /** Stops the age timer. */
  stop(): void;
}

/**
 * The iterator pool of database `ctx`. Creating a RocksDB iterator (a superversion reference and
 * a merging iterator over every memtable and file) cost more than the seek and the rows it reads;
 * a request makes dozens of short walks (window rows, first rows, pages). An iterator sees the
 * database as of its creation, so the pool is emptied by every write (the generation; writes of
 * the writer thread are seen through RocksDB's `sequence()` when a walk starts) and an iterator in
 * use when a write lands is closed on return. Walks in progress hold their own iterator: a walk
 * nested in another's visit takes another. An iterator also pins the LSM version it was made at:
 * a flush or compaction that lands later (no write, so the sequence does not move) cannot delete
 * the files it replaced while a pooled iterator holds them. The pool is therefore also emptied
 * once it is {@link POOL_MAX_AGE_MS} old, on the next walk or by a timer when no walk comes (a
 * store idle at the head after a backfill kept gigabytes of compacted-away table files on disk
 * this way).
 */
function createIteratorPool(
  ctx: unknown,
  sequence: () => number,
  closeIterator: (it: NativeIterator) => void,
): IteratorPool {
  let generation = 0;
  const pooled: [NativeIterator[], NativeIterator[]] = [[], []];
  /** The sequence the pooled iterators were created at: a write from any thread retires them. */
  let pooledAt = sequence();
  /** When the oldest pooled iterator was made (ms, performance.now). */
  let pooledSince = performance.now();
  const invalidate = () => {
    generation++;
    for (const list of pooled) for (const it of list.splice(0)) closeIterator(it);
  };
  const retireStale = () => {
    const now = sequence();
    if (now === pooledAt && performance.now() - pooledSince <= POOL_MAX_AGE_MS) return;
    invalidate();
    pooledAt = now;
  };
  const ageTimer = setInterval(() => {
    if ((pooled[0].length || pooled[1].length) && performance.now() - pooledSince > POOL_MAX_AGE_MS)
      invalidate();
  }, POOL_MAX_AGE_MS);
  ageTimer.unref();
  return {
    acquire(reverse) {
      retireStale();
      const it = pooled[reverse ? 1 : 0].pop();
      if (it) return it;
      if (!pooled[0].length && !pooled[1].length) pooledSince = performance.now();
      return native.iterator_init(ctx, {
        keyEncoding: 'buffer',
        valueEncoding: 'buffer',
        reverse,
        limit: -1,
        fillCache: true,
      });
    },
    giveBack(it, reverse, gen) {
      const list = pooled[reverse ? 1 : 0];
      if (gen === generation && list.length < POOLED_PER_DIRECTION) list.push(it);
      else closeIterator(it);
    },
    generation: () => generation,
    invalidate,
    retireStale,
    stop: () => clearInterval(ageTimer),
  };
}

/**
 * Visits the rows of `given` in order of database `ctx` (bounds checked here: the pooled
 * iterators are unbounded) until `visit` returns false. Ranges without a bound on the seek side
 * take a fresh bounded iterator.
 */
function walkRange(
  ctx: unknown,
  pool: IteratorPool,
  closeIterator: (it: NativeIterator) => void,
  given: ScanRange,
  visit: (k: Buffer, v: Buffer) => unknown,
): void {
  const range = tightest(given);
  const reverse = range.reverse ?? false;
  const target = reverse ? (range.lt ?? range.lte) : (range.gte ?? range.gt);
  let left = range.limit !== undefined && range.limit >= 0 ? range.limit : Number.POSITIVE_INFINITY;
  if (left === 0) return;
  if (!target) {
    const it = boundedIterator(ctx, range);
    try {
      for (;;) {
        const { rows, finished } = nextv(it, SCAN_CHUNK_ROWS);
        for (let i = 0; i < rows.length; i += 2) if (visit(rows[i], rows[i + 1]) === false) return;
        if (finished || rows.length === 0) return;
      }
    } finally {
      closeIterator(it);
    }
  }
  const it = pool.acquire(reverse);
  const gen = pool.generation();
  try {
    native.iterator_seek(it, target);
    // The first chunk is small (most walks stop after a few rows), one more than the limit
    // since the seek may land on an excluded bound.
    let chunk = Math.min(left + 1, FIRST_CHUNK_ROWS);
    for (;;) {
      const { rows, finished } = nextv(it, chunk);
      for (let i = 0; i < rows.length; i += 2) {
        const k = rows[i];
        // After `tightest` the seek side has one bound; the seek may land on it when exclusive.
        if (reverse) {
          if (range.lt && Buffer.compare(k, range.lt) >= 0) continue;
          if (range.gte && Buffer.compare(k, range.gte) < 0) return;
          if (range.gt && Buffer.compare(k, range.gt) <= 0) return;
        } else {
          if (range.gt && Buffer.compare(k, range.gt) <= 0) continue;
          if (range.lt && Buffer.compare(k, range.lt) >= 0) return;
          if (range.lte && Buffer.compare(k, range.lte) > 0) return;
        }
        if (visit(k, rows[i + 1]) === false || --left === 0) return;
      }
      if (finished || rows.length === 0) return;
      // Grow geometrically: the pooled iterator is unbounded, so a chunk may read rows past the
      // range's end (copied for nothing); small first chunks keep that waste small.
      chunk = Math.min(left + 1, chunk * 4, SCAN_CHUNK_ROWS);
    }
  } finally {
    pool.giveBack(it, reverse, gen);
  }
}

/**
 * A cursor over iterator `it` read in chunks of at most {@link SCAN_CHUNK_ROWS}; `live` throws
 * once the store is closing. Closing it closes the iterator (once).
 */
function chunkedCursor(
  it: NativeIterator,
  live: () => void,
  closeIterator: (it: NativeIterator) => void,
): { next(max: number): Array<[Buffer, Buffer]>; close(): void } {
  let done = false;
  let closed = false;
  return {
    next(max) {
      if (done) return [];
      live();
      const out: Array<[Buffer, Buffer]> = [];
      while (out.length < max) {
        const { rows, finished } = nextv(it, Math.min(SCAN_CHUNK_ROWS, max - out.length));
        for (let i = 0; i < rows.length; i += 2) out.push([rows[i], rows[i + 1]]);
        if (finished || rows.length === 0) {
          done = true;
          break;
        }
      }
      return out;
    },
    close() {
      if (closed) return;
      closed = done = true;
      closeIterator(it);
    },
  };
}

/**
 * Opens (creating if missing) the RocksDB database at `path`.
 * `path` is a directory, or `{handle}` ({@link Rocks.handle} of a database opened elsewhere in this
 * process) to attach to it from another thread.
 * @throws the binding's error when the directory is locked by another process or corrupt.
 */
export async function openRocks(
  path: string | { handle: bigint },
  tuning: RocksTuning = DEFAULT_ROCKS_TUNING,
): Promise<Rocks> {
  // A handle attaches to a database another thread of this process opened (the ingest engine's
  // thread, the writer thread): the binding's open returns its columns at once, and this thread
  // never closes it (its close() only stops using it; the owner closes the database).
  const attached = typeof path !== 'string';
  const db = new RocksLevel(attached ? (path.handle as never) : path, { ...BUF });
  await db.open(openOptions(attached, tuning) as never);

  // Iterators go to the native binding directly: abstract-level's iterator wrapper (resource
  // registration, option normalisation, the AbstractIterator constructor) cost more than the
  // RocksDB seek itself — 30 % of a token overview request in a CPU profile. Bounds: see
  // boundedIterator (checked: {lt, lte: undefined} iterates past lt).
  const ctx = dbContext(db);
  /** Set when close() begins: every call after it throws StoreClosedError. */
  let closing = false;
  const live = () => {
    if (closing) throw new StoreClosedError();
  };
  /** The close in progress or done (a second close() waits for the same one). */
  let closed: Promise<void> | null = null;
  /** Multi-gets running on the thread pool: close() waits for them. */
  const inFlight = new Set<Promise<unknown>>();
  const iterator = (given: ScanRange): NativeIterator => boundedIterator(ctx, given);
  // Once the close has begun, RocksDB's close (on the thread pool) closes every attached iterator
  // itself: closing one here as well would race it.
  const closeIterator = (it: NativeIterator) => {
    if (!closing) native.iterator_close(it);
  };
  // abstract-level registers every batch in the db's resource set and removes it only on its
  // asynchronous close(); the synchronous _closeSync() frees the native handle but leaves the JS
  // object registered until the db closes — one leaked object per committed block (found by the
  // SSE churn heap check). Detach after every synchronous close.
  const release = (r: NxChainedBatch) => {
    r._closeSync();
    db.detachResource(r);
  };

  const sequence = (): number => {
    live();
    return Number(native.db_get_latest_sequence(ctx));
  };
  const pool = createIteratorPool(ctx, sequence, closeIterator);
  const invalidate = pool.invalidate;
  const walk = (given: ScanRange, visit: (k: Buffer, v: Buffer) => unknown) =>
    walkRange(ctx, pool, closeIterator, given, visit);

  return {
    get(key) {
      live();
      return db._getManySync([key])[0];
    },
    getMany(keys) {
      live();
      return keys.length === 0 ? [] : db._getManySync(keys);
    },
    getManyAsync(keys) {
      if (closing) return Promise.reject(new StoreClosedError());
      if (keys.length === 0) return Promise.resolve([]);
      const p = db._getManyAsync(keys, undefined);
      inFlight.add(p);
      const done = () => inFlight.delete(p);
      p.then(done, done);
      return p;
    },
    scan(range) {
      live();
      const out: Array<[Buffer, Buffer]> = [];
      walk(range, (k, v) => {
        out.push([k, v]);
      });
      return out;
    },
    each(range, visit) {
      live();
      walk(range, visit);
    },
    cursor(range) {
      live();
      return chunkedCursor(iterator(range), live, closeIterator);
    },
    write(ops) {
      live();
      invalidate();
      const batch = db.batch();
      // The native calls directly: abstract-level's put/del validate and re-encode every op and
      // keep a JS copy of each in the batch (a block writes thousands; keys and values here are
      // always Buffers).
      for (const op of ops) {
        if (op.value === null) batch._del(op.key, NO_OPTIONS);
        else batch._put(op.key, op.value, NO_OPTIONS);
      }
      try {
        batch._writeSync();
      } finally {
        release(batch);
      }
    },
    sequence,
    writes: sequence,
    retireIterators: pool.retireStale,
    handle: () => (db as unknown as { handle: bigint }).handle,
    property(name) {
      live();
      return db.getProperty(name);
    },
    close() {
      if (closed) return closed;
      pool.stop();
      invalidate();
      closing = true;
      // An attached database is the owner's to close; this thread only stopped using it.
      closed = Promise.allSettled([...inFlight]).then(() => (attached ? undefined : db.close()));
      return closed;
    },
  };
}
