/**
 * The change log: every atomic write the store commits (a block, a rollback, a projection's late
 * rows, a meta or observation record, a projection reset, a wipe), in commit order, each with a
 * gap-free sequence. With the log on, the entry is written in the SAME batch as the change it
 * describes (so a crash can neither lose an entry nor log a change that did not commit), and a
 * publisher ships entries to read replicas (src/replication). A replica applies the ops of each
 * entry as one batch, in sequence order, and ends up byte-for-byte equal to the writer.
 *
 * Entry layout (binary): u8 kind, u64 seq, u64 committedAtMs, u8 hasHead [u64 number, 32 hash],
 * u32 opCount, then per op: u16 keyLen, key, u8 hasValue, [u32 valueLen, value].
 */
import type { WriteOp } from './binding.js';
import type { BlockRef } from './refs.js';

/** What kind of write an entry records. `wipe` carries no ops: the replica wipes itself. */
export type ChangeKind = 'block' | 'rollback' | 'late' | 'meta' | 'observation' | 'reset' | 'wipe' | 'prune';

/** Encoded by index: a new kind goes at the end ('prune': the history pruner's deletes). */
const KINDS: ChangeKind[] = ['block', 'rollback', 'late', 'meta', 'observation', 'reset', 'wipe', 'prune'];

/** One committed change. */
export interface ChangeEntry {
  kind: ChangeKind;
  /** Gap-free, starting at 1 for a store's generation. */
  seq: number;
  /** Wall-clock milliseconds when the writer committed it (replica lag in seconds). */
  committedAtMs: number;
  /** The writer's head after the change (null before the first block). */
  head: BlockRef | null;
  ops: WriteOp[];
}

/** Encodes an entry. */
export function encodeChange(e: ChangeEntry): Buffer {
  let size = 1 + 8 + 8 + 1 + (e.head ? 40 : 0) + 4;
  for (const op of e.ops) size += 2 + op.key.length + 1 + (op.value ? 4 + op.value.length : 0);
  const b = Buffer.allocUnsafe(size);
  let o = b.writeUInt8(KINDS.indexOf(e.kind), 0);
  o = writeU64(b, o, e.seq);
  o = writeU64(b, o, e.committedAtMs);
  if (e.head) {
    o = b.writeUInt8(1, o);
    o = writeU64(b, o, e.head.number);
    o += b.write(e.head.hash.slice(2), o, 32, 'hex');
  } else o = b.writeUInt8(0, o);
  o = b.writeUInt32BE(e.ops.length, o);
  for (const op of e.ops) {
    o = b.writeUInt16BE(op.key.length, o);
    o += op.key.copy(b, o);
    if (op.value) {
      o = b.writeUInt8(1, o);
      o = b.writeUInt32BE(op.value.length, o);
      o += op.value.copy(b, o);
    } else o = b.writeUInt8(0, o);
  }
  return b;
}

/** Decodes an entry (ops' buffers are views into `b`). @throws RangeError on a truncated entry. */
export function decodeChange(b: Buffer): ChangeEntry {
  let o = 0;
  const kind = KINDS[b.readUInt8(o++)];
  if (!kind) throw new RangeError('change entry: unknown kind');
  const seq = readU64(b, o);
  o += 8;
  const committedAtMs = readU64(b, o);
  o += 8;
  let head: BlockRef | null = null;
  if (b.readUInt8(o++) === 1) {
    head = { number: readU64(b, o), hash: `0x${b.toString('hex', o + 8, o + 40)}` };
    o += 40;
  }
  const n = b.readUInt32BE(o);
  o += 4;
  const ops: WriteOp[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const kl = b.readUInt16BE(o);
    o += 2;
    const key = b.subarray(o, o + kl);
    o += kl;
    let value: Buffer | null = null;
    if (b.readUInt8(o++) === 1) {
      const vl = b.readUInt32BE(o);
      o += 4;
      value = b.subarray(o, o + vl);
      o += vl;
    }
    ops[i] = { key, value };
  }
  if (o !== b.length) throw new RangeError('change entry: trailing bytes');
  return { kind, seq, committedAtMs, head, ops };
}

function writeU64(b: Buffer, o: number, n: number): number {
  b.writeUInt32BE(Math.floor(n / 0x1_0000_0000), o);
  b.writeUInt32BE(n >>> 0, o + 4);
  return o + 8;
}

function readU64(b: Buffer, o: number): number {
  return b.readUInt32BE(o) * 0x1_0000_0000 + b.readUInt32BE(o + 4);
}

/** The head block number an encoded entry records, without decoding its ops (null when none). */
export function headNumberOf(raw: Buffer): number | null {
  return raw.readUInt8(17) === 1 ? readU64(raw, 18) : null;
}
