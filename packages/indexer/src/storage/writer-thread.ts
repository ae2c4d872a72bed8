/**
 * The writer thread (see writer.ts): attaches to the main thread's RocksDB database by its native
 * handle (`attachBatches` of `@chain-indexer/store`) and commits the batches it receives, one at a
 * time, in order. A large batch arrives in several messages (`more: true` on all but the last); it
 * is written once, after the last.
 * Answers `{id, marks, heap?}` when the batch is committed (visible to every reader; the marks time its
 * way through this thread, {@link WriterMarks}; `heap` at most every {@link HEAP_EVERY_MS}: its v8 heap) or
 * `{id, error}` when RocksDB refused it.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { thisThreadStats } from '@chain-indexer/platform/threads';
import type { WorkerHeap } from '../schema/delta.js';
import { attachBatches, type NativeBatch } from './binding.js';
import { addOps, epochMs } from './writer.js';

const batches = attachBatches(BigInt((workerData as { handle: bigint }).handle));

/** The batch being filled: a large batch arrives in several messages (writer.ts CHUNK_OPS). */
let open: { id: number; batch: NativeBatch; error: string | null; received: number } | null = null;
/** How often an answer carries this thread's heap (ms): the metrics name every thread's heap. */
const HEAP_EVERY_MS = 250;
let heapAt = 0;
/** This thread's heap (v8.getHeapStatistics, bytes) when the last report is older than {@link HEAP_EVERY_MS}. */
function heapDue(): WorkerHeap | undefined {
  const now = performance.now();
  if (now - heapAt < HEAP_EVERY_MS) return undefined;
  heapAt = now;
  return { threadId, ...thisThreadStats() };
}

parentPort!.on('message', (m: { id: number; abs: ArrayBuffer[]; more?: boolean }) => {
  if (!open || open.id !== m.id) {
    if (open) batches.clear(open.batch); // the main thread gave up on a failed batch
    open = { id: m.id, batch: batches.begin(), error: null, received: epochMs() };
  }
  const o = open;
  try {
    // One atomic batch from every part of every message, in order (a later op on the same key wins).
    if (o.error === null) for (const ab of m.abs) addOps(batches, o.batch, ab);
  } catch (err) {
    o.error = (err as Error).message;
  }
  if (m.more) return;
  open = null;
  try {
    if (o.error !== null) throw new Error(o.error);
    const applied = epochMs();
    batches.write(o.batch);
    parentPort!.postMessage({
      id: m.id,
      marks: { received: o.received, applied, written: epochMs() },
      heap: heapDue(),
    });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  } finally {
    batches.clear(o.batch);
  }
});
