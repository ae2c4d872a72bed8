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
import { RowWriter } from './writer.js';

/** Bytes of a chunk: a chunk is finished once it holds this much (its last row may go past it). */
const CHUNK_BYTES = 256 * 1024;

/**
 * A growing list of encoded insert ops, chunk by chunk ({@link RowWriter}s): `insert` appends one
 * (bytes counted in `bytes`, rows in `rows`), `parts` finishes the open chunk and returns every
 * chunk, each a complete op list ready to transfer. Nothing is read back.
 */
export class EncodedRows {
  /** Finished chunks, each a complete op list. */
  private readonly done: ArrayBuffer[] = [];
  private open: RowWriter | null = null;
  /** Bytes of keys and values written (the batch's size accounting). */
  bytes = 0;
  /** Rows written. */
  rows = 0;

  /** Appends an insert of row `key` of table `t` with encoded value `value`. */
  insert<K extends unknown[], V>(t: Table<K, V>, key: K, value: Buffer): void {
    const w = (this.open ??= new RowWriter(CHUNK_BYTES + 1024));
    w.row(t, key, value);
    this.rows++;
    this.bytes += t.keySize(key) + value.length;
    if (w.size >= CHUNK_BYTES) this.finish();
  }

  /** Every chunk so far, finished (ready to transfer); rows appended later start a new chunk. */
  parts(): ArrayBuffer[] {
    this.finish();
    return this.done;
  }

  private finish(): void {
    if (this.open?.rows) this.done.push(this.open.done());
    this.open = null;
  }
}
