/**
 * The writer thread (see writer.ts): opens the main thread's RocksDB database through its native
 * handle and commits the batches it receives, one at a time, in order. A large batch arrives in
 * several messages (`more: true` on all but the last); it is written once, after the last.
 * Answers `{id}` when the batch is committed (visible to every reader) or `{id, error}` when
 * RocksDB refused it.
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

/** The batch being filled: a large batch arrives in several messages (writer.ts CHUNK_OPS). */
let open: { id: number; batch: unknown; error: string | null } | null = null;

parentPort!.on('message', (m: { id: number; abs: ArrayBuffer[]; more?: boolean }) => {
  if (!open || open.id !== m.id) {
    if (open) native.batch_clear(open.batch); // the main thread gave up on a failed batch
    open = { id: m.id, batch: native.batch_init(), error: null };
  }
  const o = open;
  try {
    // One atomic batch from every part of every message, in order (a later op on the same key wins).
    if (o.error === null)
      for (const ab of m.abs)
        eachOp(ab, (key, value) => {
          if (value === null) native.batch_del(o.batch, key, NO_OPTIONS);
          else native.batch_put(o.batch, key, value, NO_OPTIONS);
        });
  } catch (err) {
    o.error = (err as Error).message;
  }
  if (m.more) return;
  open = null;
  try {
    if (o.error !== null) throw new Error(o.error);
    native.batch_write(db, o.batch, NO_OPTIONS);
    parentPort!.postMessage({ id: m.id });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  } finally {
    native.batch_clear(o.batch);
  }
});
