/**
 * The write queue: every RocksDB write batch of the store, committed in submission order.
 *
 * Two implementations with one contract:
 *  - `thread` (the default of a serving process): a worker thread opens the same database through
 *    the binding's native handle and commits the batches, so the ingest engine's thread never
 *    waits for the write-ahead log or the memtable insert of a history segment (a live block,
 *    alone in the queue, is committed in place: {@link createThreadWriter}). The ops cross as one
 *    transferable ArrayBuffer per batch (no structured clone of thousands of Buffers).
 *  - `sync`: the batch is committed before `submit` returns (tests, tools, replicas).
 *
 * Ordering: batches commit one at a time in submission order (one writer), so a later batch never
 * lands before an earlier one. A failed batch fails every batch queued after it (RocksDB goes
 * read-only after a write error anyway): nothing lands on top of a hole.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerHeap } from '../schema/delta.js';
import type { Table } from '../schema/table.js';
import { attachBatches, type HandleBatches, type NativeBatch, type Rocks, type WriteOp } from './binding.js';
import { laterSlice } from './turns.js';

/**
 * The ops of one batch: a list, or a batch's key → value map (each key once; the key is the
 * latin1 string of its bytes, a null value a delete).
 */
export type Ops = readonly WriteOp[] | ReadonlyMap<string, Buffer | null>;
/** The ops as [key, value] pairs: a key is a Buffer (list) or the latin1 string of one (map). */
const pairsOf = (ops: Ops): Iterable<readonly [Buffer | string, Buffer | null]> =>
  Array.isArray(ops)
    ? (ops as readonly WriteOp[]).map((op) => [op.key, op.value] as const)
    : (ops as ReadonlyMap<string, Buffer | null>).entries();
/** The ops as WriteOps (a map's keys made Buffers). */
function* opsOf(ops: Ops): Iterable<WriteOp> {
  if (Array.isArray(ops)) yield* ops as readonly WriteOp[];
  else
    for (const [k, value] of ops as ReadonlyMap<string, Buffer | null>)
      yield { key: Buffer.from(k, 'latin1'), value };
}
/** Epoch milliseconds, sub-millisecond, comparable with the other threads' marks. */
export const epochMs = () => performance.timeOrigin + performance.now();
const countOf = (ops: Ops): number =>
  Array.isArray(ops) ? ops.length : (ops as ReadonlyMap<string, Buffer | null>).size;

/**
 * A batch's way through the writer thread, epoch milliseconds: its first chunk `received`, every
 * op `applied` to the native batch, the batch `written` (RocksDB holds it).
 */
export interface WriterMarks {
  received: number;
  applied: number;
  written: number;
}

/**
 * Called once per submitted batch: null when committed (with the writer thread's marks, thread
 * mode only), the error when RocksDB refused it.
 */
export type WriteDone = (err: Error | null, marks?: WriterMarks) => void;

export interface WriteQueue {
  readonly mode: 'thread' | 'sync';
  /**
   * Commits `ops` atomically after every batch submitted before, together with `parts`: ops
   * already encoded ({@link encodeOps} layout, e.g. rows a decode worker built), applied before
   * `ops` in the same atomic batch (so `ops` win on a key both write). `done` runs on the main
   * thread once the batch is visible to reads (or refused). The parts' buffers are transferred.
   * `inline` false: never committed on the submitting thread (a history segment; see
   * {@link createThreadWriter}).
   * @throws Error synchronously in `sync` mode when RocksDB refuses the batch (`done` also runs).
   */
  submit(ops: Ops, done: WriteDone, parts?: readonly ArrayBuffer[], inline?: boolean): void;
  /** Batches submitted and not yet committed. */
  inFlight(): number;
  /** Bytes of ops submitted and not yet committed. */
  inFlightBytes(): number;
  /** Resolves when at most `max` batches are in flight (0: all committed). */
  drain(max?: number): Promise<void>;
  /** Stops the writer after the batches already submitted. */
  close(): Promise<void>;
  /** The writer thread's heap as it last reported it (null: a sync writer, or no report yet). */
  heap(): WorkerHeap | null;
}

/**
 * Op layout in a batch buffer: u32 count, then per op u8 kind (0 put, 1 delete, 2 insert: a put
 * of a key known to be absent before, which a live block's undo record turns into a delete
 * without reading a prior), u32 key length, key, and for a put or insert u32 value length and
 * the value. Built by {@link encodeOps} and by {@link RowWriter} (decode workers).
 */
export function encodeOps(ops: Ops): ArrayBuffer {
  return encodePairs(pairsOf(ops), countOf(ops));
}

/** {@link encodeOps} of `count` [key, value] pairs (a string key is latin1: one byte a char). */
function encodePairs(pairs: Iterable<readonly [Buffer | string, Buffer | null]>, count: number): ArrayBuffer {
  const list = Array.isArray(pairs)
    ? (pairs as Array<readonly [Buffer | string, Buffer | null]>)
    : [...pairs];
  let size = 4;
  for (const [key, value] of list) size += 5 + key.length + (value ? 4 + value.length : 0);
  const ab = new ArrayBuffer(size);
  const buf = Buffer.from(ab);
  let off = buf.writeUInt32LE(count, 0);
  for (const [key, value] of list) {
    buf[off++] = value ? 0 : 1;
    off = buf.writeUInt32LE(key.length, off);
    off += typeof key === 'string' ? buf.write(key, off, 'latin1') : key.copy(buf, off);
    if (value) {
      off = buf.writeUInt32LE(value.length, off);
      off += value.copy(buf, off);
    }
  }
  return ab;
}

/**
 * Encodes up to `max` ops from `it` ({@link encodeOps} layout). @returns the buffer and how many
 * ops it holds (fewer than `max` when `it` ran out).
 */
function encodeChunk(
  it: Iterator<readonly [Buffer | string, Buffer | null]>,
  max: number,
): { ab: ArrayBuffer; count: number } {
  const pairs: Array<readonly [Buffer | string, Buffer | null]> = [];
  for (let n = 0; n < max; n++) {
    const next = it.next();
    if (next.done) break;
    pairs.push(next.value);
  }
  return { ab: encodePairs(pairs, pairs.length), count: pairs.length };
}

/**
 * Ops per message of a large batch (a history segment): the main thread encodes one chunk per
 * event-loop turn, so a read never waits for a whole segment's encoding, and the writer thread
 * adds each chunk to the open WriteBatch while the next is encoded. The batch is still written
 * once, atomically, after its last chunk.
 */
export const CHUNK_OPS = 4096;

/**
 * Visits the ops of a batch buffer (keys and values are views into it, not copies); `insert` is
 * true for a put of a key absent before.
 */
export function eachOp(
  ab: ArrayBuffer,
  visit: (key: Buffer, value: Buffer | null, insert: boolean) => void,
): number {
  const buf = Buffer.from(ab);
  const count = buf.readUInt32LE(0);
  let off = 4;
  for (let i = 0; i < count; i++) {
    const kind = buf[off++];
    const del = kind === 1;
    const kl = buf.readUInt32LE(off);
    off += 4;
    const key = buf.subarray(off, off + kl);
    off += kl;
    if (del) {
      visit(key, null, false);
      continue;
    }
    const vl = buf.readUInt32LE(off);
    off += 4;
    visit(key, buf.subarray(off, off + vl), kind === 2);
    off += vl;
  }
  return count;
}

/** Adds the ops of batch buffer `ab` ({@link encodeOps} layout) to native batch `batch`, in order. */
export function addOps(native: HandleBatches, batch: NativeBatch, ab: ArrayBuffer): void {
  eachOp(ab, (key, value) => {
    if (value === null) native.del(batch, key);
    else native.put(batch, key, value);
  });
}

/**
 * Builds a batch buffer row by row without a Buffer per row (decode workers encode a block's
 * stateless rows with it; the buffer is then transferred, not copied).
 */
export class RowWriter {
  private buf: Buffer;
  private off = 4;
  private count = 0;
  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }
  private ensure(more: number): void {
    if (this.off + more <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.off + more) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }
  private head(kind: number, key: Buffer): void {
    this.ensure(9 + key.length);
    this.buf[this.off++] = kind;
    this.off = this.buf.writeUInt32LE(key.length, this.off);
    this.off += key.copy(this.buf, this.off);
    this.count++;
  }
  /** A put (`insert`: the key is absent before this block). */
  bytes(key: Buffer, value: Buffer, insert = true): void {
    this.head(insert ? 2 : 0, key);
    this.ensure(4 + value.length);
    this.off = this.buf.writeUInt32LE(value.length, this.off);
    this.off += value.copy(this.buf, this.off);
  }
  /** An insert of row `key` of table `t` (the key encoded in place, no Buffer of its own). */
  row<K extends unknown[], V>(t: Table<K, V>, key: K, value: Buffer): void {
    const kl = t.keySize(key);
    this.ensure(9 + kl + value.length);
    this.buf[this.off++] = 2;
    this.off = this.buf.writeUInt32LE(kl, this.off);
    this.off = t.keyInto(this.buf, this.off, key);
    this.off = this.buf.writeUInt32LE(value.length, this.off);
    this.off += value.copy(this.buf, this.off);
    this.count++;
  }
  /** Rows written so far. */
  get rows(): number {
    return this.count;
  }
  /** Bytes of the buffer written so far (the count's four included). */
  get size(): number {
    return this.off;
  }
  /** A put of `text` as UTF-8, written in place. */
  text(key: Buffer, text: string, insert = true): void {
    this.head(insert ? 2 : 0, key);
    const max = text.length * 3;
    this.ensure(4 + max);
    const at = this.off;
    const n = this.buf.write(text, at + 4, 'utf8');
    this.buf.writeUInt32LE(n, at);
    this.off = at + 4 + n;
  }
  /** The buffer (an ArrayBuffer of its own, ready to transfer). */
  done(): ArrayBuffer {
    this.buf.writeUInt32LE(this.count, 0);
    const ab = new ArrayBuffer(this.off);
    this.buf.copy(Buffer.from(ab), 0, 0, this.off);
    return ab;
  }
}

/** Shared drain bookkeeping of both implementations. */
function waiters() {
  const list: Array<{ max: number; resolve: () => void }> = [];
  return {
    wait(max: number, inFlight: number): Promise<void> {
      if (inFlight <= max) return Promise.resolve();
      return new Promise((resolve) => list.push({ max, resolve }));
    },
    settle(inFlight: number) {
      for (let i = list.length - 1; i >= 0; i--) if (inFlight <= list[i].max) list.splice(i, 1)[0].resolve();
    },
  };
}

/** Commits each batch before `submit` returns. */
export function createSyncWriter(rocks: Rocks): WriteQueue {
  let failed: Error | null = null;
  return {
    mode: 'sync',
    submit(ops, done, parts = []) {
      if (failed) {
        done(failed);
        throw failed;
      }
      try {
        const all: WriteOp[] = [];
        for (const p of parts) eachOp(p, (key, value) => all.push({ key, value }));
        for (const op of opsOf(ops)) all.push(op);
        rocks.write(all);
      } catch (err) {
        failed = err as Error;
        done(failed);
        throw err;
      }
      done(null);
    },
    inFlight: () => 0,
    inFlightBytes: () => 0,
    heap: () => null,
    drain: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

interface Pending {
  id: number;
  bytes: number;
  done: WriteDone;
}

/** A batch being encoded chunk by chunk (see {@link CHUNK_OPS}). */
interface Encoding {
  p: Pending;
  ops: Iterator<readonly [Buffer | string, Buffer | null]>;
  left: number;
  parts: readonly ArrayBuffer[] | null;
}

/**
 * Ops (and bytes of pre-encoded parts) up to which a batch submitted while nothing is in flight
 * is committed on the submitting thread (see {@link createThreadWriter}). The ops bound is the one
 * the committer calls a live block's (commit.ts `PROMOTE_MAX_OPS`): a mainnet block of 200
 * transactions writes a few thousand state ops beside its worker-encoded rows.
 */
export const INLINE_MAX_OPS = 20_000;
export const INLINE_MAX_PART_BYTES = 8 * 1024 * 1024;

/**
 * Starts the writer thread on the database behind `rocks` (same process, same native handle).
 * The thread must be closed before the database is.
 *
 * A live block skips the thread: a batch of at most {@link INLINE_MAX_OPS} ops and
 * {@link INLINE_MAX_PART_BYTES} of parts, submitted while no batch is in flight, is committed on
 * the submitting thread before `submit` returns (order holds: nothing is ahead of it). The
 * submitting thread is the ingest engine's, never the serving thread, and on the live edge it
 * would only wait for the answer: the two thread hops (the batch's message and the answer's, with
 * each thread's turn on a busy machine) are the live timeline's `post` and `ack`, about a
 * seventh of a live block's time (bench/results/engine-thread-2026-11-29-sixth-live-shape.md).
 * History segments and live catch-up batches of several blocks (`submit`'s `inline` false, from
 * `commitBatch`) keep the thread, which overlaps their write with the next build. `inline` false
 * here sends every batch to the thread. A refusal is reported through `done` (never thrown), as
 * for a batch the thread refuses.
 */
export function createThreadWriter(rocks: Rocks, inline = true): WriteQueue {
  const worker = new Worker(fileURLToPath(new URL('./writer-thread.js', import.meta.url)), {
    workerData: { handle: rocks.handle() },
  });
  const pending: Pending[] = [];
  let bytes = 0;
  let nextId = 1;
  let failed: Error | null = null;
  let closing: Promise<void> | null = null;
  const drains = waiters();
  const finish = (p: Pending, err: Error | null, marks?: WriterMarks) => {
    bytes -= p.bytes;
    p.done(err, marks);
  };
  let heap: WorkerHeap | null = null;
  worker.on('message', (m: { id: number; error?: string; marks?: WriterMarks; heap?: WorkerHeap }) => {
    if (m.heap) heap = m.heap;
    const p = pending.shift();
    if (!p || p.id !== m.id) throw new Error(`writer thread answered batch ${m.id} out of order`);
    if (m.error !== undefined && !failed) failed = new Error(m.error);
    finish(p, m.error !== undefined ? failed : null, m.marks);
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
  // Batches waiting to be encoded, in submission order (messages must leave in that order).
  const encoding: Encoding[] = [];
  let pumping = false;
  const post = (e: Encoding, chunk: { ab: ArrayBuffer; count: number }) => {
    e.left -= chunk.count;
    const abs = e.parts ? [...e.parts, chunk.ab] : [chunk.ab];
    e.parts = null;
    e.p.bytes += chunk.ab.byteLength;
    bytes += chunk.ab.byteLength;
    worker.postMessage({ id: e.p.id, abs, more: e.left > 0 }, abs);
  };
  /** Encodes and posts one chunk per turn until every waiting batch is out. */
  const pump = () => {
    if (failed) encoding.length = 0;
    const e = encoding[0];
    if (!e) {
      pumping = false;
      return;
    }
    post(e, encodeChunk(e.ops, CHUNK_OPS));
    if (e.left <= 0) encoding.shift();
    laterSlice(pump);
  };
  // Inline batches go to the native batch calls directly, as on the writer thread (no op objects).
  const native = inline ? attachBatches(rocks.handle()) : null;
  /** Commits one batch on this thread (see the function comment); marks as the thread's. */
  const commitInline = (ops: Ops, parts: readonly ArrayBuffer[], done: WriteDone) => {
    const n = native!;
    const received = epochMs();
    let applied = received;
    const batch = n.begin();
    try {
      for (const x of parts) addOps(n, batch, x);
      for (const op of opsOf(ops)) {
        if (op.value === null) n.del(batch, op.key);
        else n.put(batch, op.key, op.value);
      }
      applied = epochMs();
      n.write(batch);
    } catch (err) {
      failed ??= err as Error;
      done(failed);
      return;
    } finally {
      n.clear(batch);
    }
    done(null, { received, applied, written: epochMs() });
  };
  return {
    mode: 'thread',
    submit(ops, done, parts = [], inlineOk = true) {
      if (failed || closing) {
        done(failed ?? new Error('writer closed'));
        return;
      }
      let partBytes = 0;
      for (const x of parts) partBytes += x.byteLength;
      const count = countOf(ops);
      if (
        inline &&
        inlineOk &&
        !pending.length &&
        count <= INLINE_MAX_OPS &&
        partBytes <= INLINE_MAX_PART_BYTES
      ) {
        commitInline(ops, parts, done);
        return;
      }
      const p: Pending = { id: nextId++, bytes: partBytes, done };
      pending.push(p);
      bytes += partBytes;
      const e: Encoding = { p, ops: pairsOf(ops)[Symbol.iterator](), left: count, parts };
      // A small batch alone goes out at once (a live block); a large one, or one behind a batch
      // still being encoded, waits its turn in the pump.
      if (!encoding.length && count <= CHUNK_OPS) {
        post(e, encodeChunk(e.ops, CHUNK_OPS));
        return;
      }
      encoding.push(e);
      if (!pumping) {
        pumping = true;
        laterSlice(pump);
      }
    },
    inFlight: () => pending.length,
    inFlightBytes: () => bytes,
    heap: () => heap,
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
