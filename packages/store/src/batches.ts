/**
 * Raw atomic batches on a database another thread opened, attached by its native handle
 * (`Rocks.handle`): the indexer's writer thread commits the main thread's batches through
 * this, one native call per operation, with no JS database object of its own.
 */
import { createRequire } from 'node:module';

/** The binding's native batch calls (the module `@nxtedition/rocksdb` loads). */
interface NativeBatchApi {
  db_init(handle: bigint): unknown;
  batch_init(): unknown;
  batch_put(batch: unknown, key: Buffer, value: Buffer, options: object): void;
  batch_del(batch: unknown, key: Buffer, options: object): void;
  batch_write(db: unknown, batch: unknown, options: object): void;
  batch_clear(batch: unknown): void;
}

/** A native batch of {@link HandleBatches} (opaque). */
export type NativeBatch = { readonly __nativeBatch: unique symbol };

/** Atomic batches on an attached database: build with put/del, commit with write, then clear. */
export interface HandleBatches {
  /** A new, empty batch. */
  begin(): NativeBatch;
  /** Adds a put of `key` → `value` to the batch. */
  put(batch: NativeBatch, key: Buffer, value: Buffer): void;
  /** Adds a delete of `key` to the batch. */
  del(batch: NativeBatch, key: Buffer): void;
  /** Commits the batch atomically (visible to every reader). @throws RocksDB's refusal. */
  write(batch: NativeBatch): void;
  /** Frees the batch's operations (after a write, or to drop a batch). */
  clear(batch: NativeBatch): void;
}

const NO_OPTIONS = {};

/**
 * Attaches to the database of `handle` (`Rocks.handle` of a database opened in this process)
 * for raw batches. The attaching thread never closes the database; its owner does.
 */
export function attachBatches(handle: bigint): HandleBatches {
  const native = createRequire(import.meta.url)('@nxtedition/rocksdb/binding.js') as NativeBatchApi;
  const db = native.db_init(handle);
  return {
    begin: () => native.batch_init() as NativeBatch,
    put: (b, key, value) => native.batch_put(b, key, value, NO_OPTIONS),
    del: (b, key) => native.batch_del(b, key, NO_OPTIONS),
    write: (b) => native.batch_write(db, b, NO_OPTIONS),
    clear: (b) => native.batch_clear(b),
  };
}
