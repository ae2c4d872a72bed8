/**
 * The write queue: every RocksDB write batch of the store, committed in submission order.
 *
 * Two implementations with one contract:
 *  - `thread` (the default of a serving process): a worker thread opens the same database through
 *    the binding's native handle and commits the batches, so the main thread never waits for the
 *    write-ahead log or the memtable insert of a block or a history segment. The ops cross as one
 *    transferable ArrayBuffer per batch (no structured clone of thousands of Buffers).
 *  - `sync`: the batch is committed before `submit` returns (tests, tools, replicas).
 *
 * Ordering: batches commit one at a time in submission order (one writer), so a later batch never
 * lands before an earlier one. A failed batch fails every batch queued after it (RocksDB goes
 * read-only after a write error anyway): nothing lands on top of a hole.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Rocks, WriteOp } from './binding.js';

/** Called once per submitted batch: null when committed, the error when RocksDB refused it. */
export type WriteDone = (err: Error | null) => void;

export interface WriteQueue {
  readonly mode: 'thread' | 'sync';
  /**
   * Commits `ops` atomically after every batch submitted before. `done` runs on the main thread
   * once the batch is visible to reads (or refused).
   * @throws Error synchronously in `sync` mode when RocksDB refuses the batch (`done` also runs).
   */
  submit(ops: WriteOp[], done: WriteDone): void;
  /** Batches submitted and not yet committed. */
  inFlight(): number;
  /** Bytes of ops submitted and not yet committed. */
  inFlightBytes(): number;
  /** Resolves when at most `max` batches are in flight (0: all committed). */
  drain(max?: number): Promise<void>;
  /** Stops the writer after the batches already submitted. */
  close(): Promise<void>;
}

/**
 * Op layout in a batch buffer: u32 count, then per op u8 kind (0 put, 1 delete), u32 key length,
 * key, and for a put u32 value length and the value.
 */
export function encodeOps(ops: readonly WriteOp[]): ArrayBuffer {
  let size = 4;
  for (const op of ops) size += 5 + op.key.length + (op.value ? 4 + op.value.length : 0);
  const ab = new ArrayBuffer(size);
  const buf = Buffer.from(ab);
  let off = buf.writeUInt32LE(ops.length, 0);
  for (const op of ops) {
    buf[off++] = op.value ? 0 : 1;
    off = buf.writeUInt32LE(op.key.length, off);
    off += op.key.copy(buf, off);
    if (op.value) {
      off = buf.writeUInt32LE(op.value.length, off);
      off += op.value.copy(buf, off);
    }
  }
  return ab;
}

/** Visits the ops of a batch buffer (keys and values are views into it, not copies). */
export function eachOp(ab: ArrayBuffer, visit: (key: Buffer, value: Buffer | null) => void): number {
  const buf = Buffer.from(ab);
  const count = buf.readUInt32LE(0);
  let off = 4;
  for (let i = 0; i < count; i++) {
    const del = buf[off++] === 1;
    const kl = buf.readUInt32LE(off);
    off += 4;
    const key = buf.subarray(off, off + kl);
    off += kl;
    if (del) {
      visit(key, null);
      continue;
    }
    const vl = buf.readUInt32LE(off);
    off += 4;
    visit(key, buf.subarray(off, off + vl));
    off += vl;
  }
  return count;
}

const opBytes = (ops: readonly WriteOp[]) => {
  let n = 0;
  for (const op of ops) n += op.key.length + (op.value ? op.value.length : 0);
  return n;
};

/** Shared drain bookkeeping of both implementations. */
function waiters() {
  const list: Array<{ max: number; resolve: () => void }> = [];
  return {
    wait(max: number, inFlight: number): Promise<void> {
      if (inFlight <= max) return Promise.resolve();
      return new Promise((resolve) => list.push({ max, resolve }));
    },
    settle(inFlight: number) {
      for (let i = list.length - 1; i >= 0; i--)
        if (inFlight <= list[i].max) list.splice(i, 1)[0].resolve();
    },
  };
}

/** Commits each batch before `submit` returns. */
export function createSyncWriter(rocks: Rocks): WriteQueue {
  let failed: Error | null = null;
  return {
    mode: 'sync',
    submit(ops, done) {
      if (failed) {
        done(failed);
        throw failed;
      }
      try {
        rocks.write(ops);
      } catch (err) {
        failed = err as Error;
        done(failed);
        throw err;
      }
      done(null);
    },
    inFlight: () => 0,
    inFlightBytes: () => 0,
    drain: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

interface Pending {
  id: number;
  bytes: number;
  done: WriteDone;
}

/**
 * Starts the writer thread on the database behind `rocks` (same process, same native handle).
 * The thread must be closed before the database is.
 */
export function createThreadWriter(rocks: Rocks): WriteQueue {
  const worker = new Worker(fileURLToPath(new URL('./writer-thread.js', import.meta.url)), {
    workerData: { handle: rocks.handle() },
  });
  const pending: Pending[] = [];
  let bytes = 0;
  let nextId = 1;
  let failed: Error | null = null;
  let closing: Promise<void> | null = null;
  const drains = waiters();
  const finish = (p: Pending, err: Error | null) => {
    bytes -= p.bytes;
    p.done(err);
  };
  worker.on('message', (m: { id: number; error?: string }) => {
    const p = pending.shift();
    if (!p || p.id !== m.id) throw new Error(`writer thread answered batch ${m.id} out of order`);
    if (m.error !== undefined && !failed) failed = new Error(m.error);
    finish(p, m.error !== undefined ? failed : null);
    // Every batch after a failed one is refused too (RocksDB is read-only after a write error).
    if (failed) for (const q of pending.splice(0)) finish(q, failed);
    drains.settle(pending.length);
  });
  const crash = (err: Error) => {
    failed ??= err;
    for (const q of pending.splice(0)) finish(q, failed);
    drains.settle(0);
  };
  worker.on('error', crash);
  worker.on('exit', (code) => {
    if (code !== 0) crash(new Error(`writer thread exited with code ${code}`));
  });
  return {
    mode: 'thread',
    submit(ops, done) {
      if (failed || closing) {
        done(failed ?? new Error('writer closed'));
        return;
      }
      const p: Pending = { id: nextId++, bytes: opBytes(ops), done };
      pending.push(p);
      bytes += p.bytes;
      const ab = encodeOps(ops);
      worker.postMessage({ id: p.id, ab }, [ab]);
    },
    inFlight: () => pending.length,
    inFlightBytes: () => bytes,
    drain: (max = 0) => drains.wait(max, pending.length),
    close() {
      closing ??= (async () => {
        await drains.wait(0, pending.length);
        await worker.terminate();
      })();
      return closing;
    },
  };
}
