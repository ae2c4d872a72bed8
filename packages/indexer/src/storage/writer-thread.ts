/**
 * The writer thread (see writer.ts): opens the main thread's RocksDB database through its native
 * handle and commits the batches it receives, one at a time, in order. Answers `{id}` when the
 * batch is committed (visible to every reader) or `{id, error}` when RocksDB refused it.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { eachOp } from './writer.js';

interface NativeBatchApi {
  db_init(handle: bigint): unknown;
  batch_init(): unknown;
  batch_put(batch: unknown, key: Buffer, value: Buffer, options: object): void;
  batch_del(batch: unknown, key: Buffer, options: object): void;
  batch_write(db: unknown, batch: unknown, options: object): void;
  batch_clear(batch: unknown): void;
}

const native = createRequire(import.meta.url)('@nxtedition/rocksdb/binding.js') as NativeBatchApi;
const db = native.db_init(BigInt((workerData as { handle: bigint }).handle));
const NO_OPTIONS = {};

parentPort!.on('message', (m: { id: number; abs: ArrayBuffer[] }) => {
  const batch = native.batch_init();
  try {
    // One atomic batch from every part, in order (a later op on the same key wins).
    for (const ab of m.abs)
      eachOp(ab, (key, value) => {
        if (value === null) native.batch_del(batch, key, NO_OPTIONS);
        else native.batch_put(batch, key, value, NO_OPTIONS);
      });
    native.batch_write(db, batch, NO_OPTIONS);
    parentPort!.postMessage({ id: m.id });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  } finally {
    native.batch_clear(batch);
  }
});
