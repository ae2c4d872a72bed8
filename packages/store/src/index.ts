/**
 * `@chain-indexer/store`: the RocksDB binding both products own their databases through (the
 * indexer's src/storage, the scanner's store.ts). Synchronous reads and atomic batch writes over
 * `@nxtedition/rocksdb`; nothing else in the repository imports that package.
 */

/** Raw atomic batches on a database attached by handle from another thread (the indexer's writer thread). */
export { attachBatches, type HandleBatches, type NativeBatch } from './batches.js';
/** The open database: synchronous get/multi-get/scan, atomic batch writes, handle, close. */
/** One put or delete of an atomic batch ({@link Rocks.write}). */
/** A raw-byte key range of {@link Rocks.scan}. */
export type { Rocks, ScanRange, WriteOp } from './binding.js';
/** Opens (creating if missing) a RocksDB directory, or attaches to one by handle from another thread. */
/** Thrown by a read or write on a store that is closing or closed. */
/** RocksDB tuning (block cache, write buffers, compaction threads) and its defaults. */
export { DEFAULT_ROCKS_TUNING, openRocks, type RocksTuning, StoreClosedError } from './binding.js';
