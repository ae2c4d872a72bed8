/**
 * Snapshots replicas join from. The writer reads a consistent view of its store (RocksDB pins it
 * when the iterator opens, in the same synchronous turn that reads the change sequence), streams
 * it gzipped into the chain's JetStream object store, and keeps the newest few. A replica downloads
 * the newest snapshot, imports it, then applies the change log after the snapshot's sequence.
 *
 * Format (gzip): records `u32 length ‖ bytes`. Record 0 is the JSON header {@link SnapshotHeader};
 * then key and value records alternate (every row except the writer's change-log bookkeeping).
 */
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { ObjectStore } from '@nats-io/obj';
import type { AppliedState, BlockRef, Store, WriteOp } from '../storage/index.js';
import { snapshotName } from './names.js';

/** What a snapshot says about itself. */
export interface SnapshotHeader {
  format: 1;
  chain: string;
  generation: string;
  /** Change sequence the snapshot reflects (every entry ≤ seq is in it). */
  seq: number;
  head: BlockRef | null;
  takenAtMs: number;
  /**
   * JetStream sequence of the last message acknowledged when the snapshot was taken: the replica
   * reads the stream from the next one and skips entries ≤ `seq`.
   */
  streamSeqHint: number;
}

/** Rows per read of the pinned iterator (bounds memory and the time one turn holds the thread). */
const SNAPSHOT_CHUNK_ROWS = 2_000;
/** Snapshots kept per chain (older ones are deleted after a new one is stored). */
export const SNAPSHOTS_KEPT = 2;

const frame = (b: Buffer) => {
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32BE(b.length, 0);
  return [len, b];
};

/**
 * Takes a snapshot of `store` and stores it in `os`; deletes older snapshots beyond
 * {@link SNAPSHOTS_KEPT}. Reads the store in chunks across event-loop turns (ingest goes on).
 * @returns its header.
 */
export async function publishSnapshot(
  store: Store,
  os: ObjectStore,
  chain: string,
  streamSeqHint: number,
): Promise<SnapshotHeader> {
  const snap = store.snapshot();
  const header: SnapshotHeader = {
    format: 1,
    chain,
    generation: snap.generation,
    seq: snap.seq,
    head: snap.head,
    takenAtMs: Date.now(),
    streamSeqHint,
  };
  async function* rows(): AsyncGenerator<Buffer> {
    try {
      yield* frame(Buffer.from(JSON.stringify(header)));
      for (;;) {
        const ops = snap.next(SNAPSHOT_CHUNK_ROWS);
        if (!ops.length) return;
        const parts: Buffer[] = [];
        for (const op of ops) parts.push(...frame(op.key), ...frame(op.value as Buffer));
        yield Buffer.concat(parts);
        // Let the writer and readers run between chunks; the iterator's view does not move.
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      snap.close();
    }
  }
  const gz = Readable.from(rows()).pipe(createGzip());
  await os.put({ name: snapshotName(snap.seq) }, Readable.toWeb(gz) as unknown as ReadableStream<Uint8Array>);
  const all = (await os.list()).filter((i) => i.name.startsWith('snapshot-') && !i.deleted);
  all.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const old of all.slice(0, Math.max(0, all.length - SNAPSHOTS_KEPT))) await os.delete(old.name);
  return header;
}

/** The newest snapshot's name, or null when the bucket holds none. */
export async function newestSnapshot(os: ObjectStore): Promise<string | null> {
  const all = (await os.list()).filter((i) => i.name.startsWith('snapshot-') && !i.deleted);
  all.sort((a, b) => (a.name < b.name ? -1 : 1));
  return all.at(-1)?.name ?? null;
}

/**
 * Downloads snapshot `name` from `os` and imports it into `store` (every row replaced).
 * @returns its header. @throws Error when the object is missing or malformed.
 */
export async function importSnapshot(store: Store, os: ObjectStore, name: string): Promise<SnapshotHeader> {
  const obj = await os.get(name);
  if (!obj) throw new Error(`snapshot ${name} not found`);
  const input = Readable.fromWeb(obj.data as never).pipe(createGunzip());
  let buf: Buffer = Buffer.alloc(0);
  let header: SnapshotHeader | null = null;
  let pendingKey: Buffer | null = null;
  const importer = store.importSnapshot();
  let ops: WriteOp[] = [];
  for await (const chunk of input) {
    buf = buf.length ? Buffer.concat([buf, chunk as Buffer]) : (chunk as Buffer);
    let o = 0;
    while (buf.length - o >= 4) {
      const len = buf.readUInt32BE(o);
      if (buf.length - o - 4 < len) break;
      const rec = Buffer.from(buf.subarray(o + 4, o + 4 + len));
      o += 4 + len;
      if (!header) {
        header = JSON.parse(rec.toString('utf8')) as SnapshotHeader;
        if (header.format !== 1) throw new Error(`snapshot ${name}: unknown format ${header.format}`);
      } else if (!pendingKey) pendingKey = rec;
      else {
        ops.push({ key: pendingKey, value: rec });
        pendingKey = null;
        if (ops.length >= SNAPSHOT_CHUNK_ROWS) {
          importer.chunk(ops);
          ops = [];
        }
      }
    }
    buf = buf.subarray(o);
  }
  await obj.error;
  if (!header || pendingKey || buf.length) throw new Error(`snapshot ${name} is truncated`);
  importer.chunk(ops);
  const state: AppliedState = {
    seq: header.seq,
    committedAtMs: header.takenAtMs,
    head: header.head,
    streamSeq: header.streamSeqHint,
  };
  importer.end(state);
  return header;
}
