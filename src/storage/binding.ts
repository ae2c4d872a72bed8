/**
 * The one module that touches the RocksDB binding (`@nxtedition/rocksdb`).
 *
 * Why this binding (see bench/storage/RESULTS.md): it offers synchronous reads (multi-get and
 * iterators) and synchronous atomic batch writes. The ingest writer and the HTTP readers share the
 * main thread, so a request handler that reads synchronously runs entirely between two committed
 * batches: every response sees exactly "all of block N" — a consistent snapshot by construction,
 * with no thread-pool hop per read.
 */
import {
  type NxChainedBatch,
  type NxIterator,
  type NxIteratorOptions,
  RocksLevel,
} from '@nxtedition/rocksdb';

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

/** One write of a batch: `value === null` deletes the key. */
export interface WriteOp {
  key: Buffer;
  value: Buffer | null;
}

/** Synchronous facade over one RocksDB instance. */
export interface Rocks {
  get(key: Buffer): Buffer | undefined;
  getMany(keys: Buffer[]): (Buffer | undefined)[];
  /** Reads up to `range.limit` rows; returns alternating key/value pairs flattened as tuples. */
  scan(range: ScanRange): Array<[Buffer, Buffer]>;
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
  property(name: string): string;
  close(): Promise<void>;
}

const NO_OPTIONS = {};
const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
/** Rows fetched per native iterator call: large enough to amortise the call, small enough to bound memory. */
const SCAN_CHUNK_ROWS = 256;

/**
 * Opens (creating if missing) the RocksDB database at `path`.
 * @throws the binding's error when the directory is locked by another process or corrupt.
 */
export async function openRocks(path: string): Promise<Rocks> {
  const db = new RocksLevel(path, { ...BUF });
  await db.open({ createIfMissing: true, cacheSize: 64 * 1024 * 1024 });

  // Only defined bounds may be passed: an explicit `undefined` bound makes the binding ignore
  // the other bound of the same side (checked: {lt, lte: undefined} iterates past lt).
  const iterator = (range: ScanRange) => {
    const o: NxIteratorOptions = { ...BUF, reverse: range.reverse ?? false, limit: range.limit ?? -1 };
    if (range.gte) o.gte = range.gte;
    if (range.gt) o.gt = range.gt;
    if (range.lt) o.lt = range.lt;
    if (range.lte) o.lte = range.lte;
    return db.iterator(o);
  };
  // abstract-level registers every iterator and batch in the db's resource set and removes it only
  // on its asynchronous close(); the synchronous _closeSync() frees the native handle but leaves
  // the JS object registered until the db closes — one leaked object per read scan and per
  // committed block (found by the SSE churn heap check). Detach after every synchronous close.
  const release = (r: NxIterator | NxChainedBatch) => {
    r._closeSync();
    db.detachResource(r);
  };

  return {
    get(key) {
      return db._getManySync([key])[0];
    },
    getMany(keys) {
      return keys.length === 0 ? [] : db._getManySync(keys);
    },
    scan(range) {
      const it = iterator(range);
      try {
        const out: Array<[Buffer, Buffer]> = [];
        for (;;) {
          const { rows, finished } = it._nextvSync(SCAN_CHUNK_ROWS);
          for (let i = 0; i < rows.length; i += 2) out.push([rows[i], rows[i + 1]]);
          if (finished || rows.length === 0) return out;
        }
      } finally {
        release(it);
      }
    },
    each(range, visit) {
      const it = iterator(range);
      try {
        for (;;) {
          const { rows, finished } = it._nextvSync(SCAN_CHUNK_ROWS);
          for (let i = 0; i < rows.length; i += 2) if (visit(rows[i], rows[i + 1]) === false) return;
          if (finished || rows.length === 0) return;
        }
      } finally {
        release(it);
      }
    },
    cursor(range) {
      const it = iterator(range);
      let done = false;
      return {
        next(max) {
          if (done) return [];
          const out: Array<[Buffer, Buffer]> = [];
          while (out.length < max) {
            const { rows, finished } = it._nextvSync(Math.min(SCAN_CHUNK_ROWS, max - out.length));
            for (let i = 0; i < rows.length; i += 2) out.push([rows[i], rows[i + 1]]);
            if (finished || rows.length === 0) {
              done = true;
              break;
            }
          }
          return out;
        },
        close() {
          done = true;
          release(it);
        },
      };
    },
    write(ops) {
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
    property(name) {
      return db.getProperty(name);
    },
    close() {
      return db.close();
    },
  };
}
