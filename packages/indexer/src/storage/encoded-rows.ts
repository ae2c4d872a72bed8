/**
 * Rows encoded as they are made, in the writer's op layout (writer.ts `encodeOps`: u32 count, then
 * per op u8 kind, u32 key length, key, u32 value length, value), in chunks of off-heap memory.
 *
 * A history segment's rows of insert-only tables (Table.insertOnly: balance, holder and counter
 * history, the activity index — two thirds of a transfer segment's rows) go here instead of the
 * batch's key map: no latin1 key string, no value Buffer and no map entry per row survives on the
 * engine thread's heap until the segment commits (each one was copied by every young-generation
 * scavenge it lived through, then promoted), and the writer thread receives the chunks as they are
 * (transferred, not encoded again).
 */
import type { Table } from '../schema/table.js';

/** Bytes of a chunk (a row larger than this gets a chunk of its own size). */
const CHUNK_BYTES = 256 * 1024;
/** Op kind of an insert (a put of a key absent before the batch). */
const INSERT = 2;

/**
 * A growing list of encoded insert ops, chunk by chunk: `insert` appends one (bytes counted in
 * `bytes`, rows in `rows`), `parts` finishes the open chunk and returns every chunk, each a
 * complete op list (u32 count first) ready to transfer. Nothing is read back.
 */
export class EncodedRows {
  /** Finished chunks, each a complete op list. */
  private readonly done: ArrayBuffer[] = [];
  private buf: Buffer | null = null;
  private off = 4;
  private count = 0;
  /** Bytes of keys and values written (the batch's size accounting). */
  bytes = 0;
  /** Rows written. */
  rows = 0;

  /** Appends an insert of row `key` of table `t` with encoded value `value`. */
  insert<K extends unknown[], V>(t: Table<K, V>, key: K, value: Buffer): void {
    const kl = t.keySize(key);
    const need = 9 + kl + value.length;
    if (!this.buf || this.off + need > this.buf.length) this.next(need);
    const b = this.buf!;
    let off = this.off;
    b[off++] = INSERT;
    off = b.writeUInt32LE(kl, off);
    off = t.keyInto(b, off, key);
    off = b.writeUInt32LE(value.length, off);
    off += value.copy(b, off);
    this.off = off;
    this.count++;
    this.rows++;
    this.bytes += kl + value.length;
  }

  /** Every chunk so far, finished (ready to transfer); rows appended later start a new chunk. */
  parts(): ArrayBuffer[] {
    this.finish();
    return this.done;
  }

  private next(need: number): void {
    this.finish();
    this.buf = Buffer.from(new ArrayBuffer(Math.max(CHUNK_BYTES, need + 4)));
    this.off = 4;
    this.count = 0;
  }

  private finish(): void {
    const b = this.buf;
    if (!b || this.count === 0) return;
    b.writeUInt32LE(this.count, 0);
    // A chunk less than half full is copied to its size (the last one of a batch, usually).
    const ab = b.buffer as ArrayBuffer;
    this.done.push(this.off * 2 < b.length ? ab.slice(0, this.off) : ab);
    this.buf = null;
    this.off = 4;
    this.count = 0;
  }
}
