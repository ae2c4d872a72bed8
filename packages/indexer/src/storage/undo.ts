/**
 * Per-block undo records. Every write a block makes is recorded with the value the key held
 * before (or its absence), so rolling a block back is replaying its record in reverse — one
 * mechanism for every projection (docs/CONTRIBUTING.md habit 4: every forward write has an inverse).
 *
 * Layout: u32 count, then per op: u16 keyLen, key, u8 hadPrior, [u32 valLen, value].
 */
import type { WriteOp } from './binding.js';

/** A write captured for undo: the key and what it held before this block (null = absent). */
export interface UndoEntry {
  key: Buffer;
  prior: Buffer | null;
}

export function encodeUndo(entries: UndoEntry[]): Buffer {
  let size = 4;
  for (const e of entries) size += 2 + e.key.length + 1 + (e.prior ? 4 + e.prior.length : 0);
  const buf = Buffer.allocUnsafe(size);
  let off = buf.writeUInt32BE(entries.length, 0);
  for (const e of entries) {
    off = buf.writeUInt16BE(e.key.length, off);
    off += e.key.copy(buf, off);
    if (e.prior) {
      buf[off++] = 1;
      off = buf.writeUInt32BE(e.prior.length, off);
      off += e.prior.copy(buf, off);
    } else {
      buf[off++] = 0;
    }
  }
  return buf;
}

/** Decodes an undo record into the ops that restore every key, in reverse write order. */
export function undoOps(record: Buffer): WriteOp[] {
  const count = record.readUInt32BE(0);
  const entries: WriteOp[] = new Array(count);
  let off = 4;
  for (let i = 0; i < count; i++) {
    const kl = record.readUInt16BE(off);
    off += 2;
    const key = record.subarray(off, off + kl);
    off += kl;
    const had = record[off++] === 1;
    let value: Buffer | null = null;
    if (had) {
      const vl = record.readUInt32BE(off);
      off += 4;
      value = record.subarray(off, off + vl);
      off += vl;
    }
    entries[count - 1 - i] = { key, value };
  }
  return entries;
}

/** Appends `entries` to an existing undo record (late writes of a projection rebuild for that block). */
export function appendUndo(record: Buffer, entries: UndoEntry[]): Buffer {
  const extra = encodeUndo(entries);
  const out = Buffer.concat([record, extra.subarray(4)]);
  out.writeUInt32BE(record.readUInt32BE(0) + entries.length, 0);
  return out;
}
