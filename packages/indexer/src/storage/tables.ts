/**
 * The table registry: every table declared once with its one-byte id, key layout and value
 * encoding. Keys sort correctly as bytes (big-endian integers, fixed-width hashes).
 *
 * Invariants (checked in invariants.ts at start-up):
 *  - CANON holds exactly the numbers genesisIndexed..checkpoint.blocks, with no hole.
 *  - For every CANON[n] = h: HASH_TO_NUMBER[h] = n and HEADER[n] exists.
 *  - UNDO[n] exists for every n in (checkpoint - unfinalisedWindow, checkpoint].
 */
import { KeyBuilder } from './keys.js';

/** One-byte table ids. Never reuse an id: data written under it may still be on disk. */
export const Table = {
  /** utf8 name → JSON. Chain identity, checkpoints per lane, store generation. */
  META: 0x01,
  /** u64 number → 32-byte canonical block hash. */
  CANON: 0x02,
  /** 32-byte block hash → u64 number (canonical blocks only). */
  HASH_TO_NUMBER: 0x03,
  /** u64 number → block header JSON as the node sent it, `transactions` as hashes. */
  HEADER: 0x04,
  /** u64 number, u32 txIndex → transaction JSON as the node sent it. */
  TX: 0x05,
  /** 32-byte tx hash → u64 number, u32 txIndex, u32 firstLogIndex, u32 logCount. */
  TX_BY_HASH: 0x06,
  /** u64 number, u32 txIndex → receipt JSON as the node sent it. */
  RECEIPT: 0x07,
  /** u64 number, u32 logIndex → log JSON as the node sent it. */
  LOG: 0x08,
  /** u64 number → undo record of every write block `number` made (unfinalised window only). */
  UNDO: 0x09,
  /** u64 timestamp (s), u64 number → empty. Block timestamps for /blocks/at. */
  TIME: 0x0a,
  /** lane utf8 0x00 u64 fromBlock → gap JSON. */
  GAP: 0x0b,
  /** u64 number → token metadata probed at that block (JSON), kept so projections rebuild without the node. */
  PROBE: 0x0c,
} as const;

export const metaKey = (name: string): Buffer =>
  Buffer.concat([Buffer.from([Table.META]), Buffer.from(name)]);
export const canonKey = (n: number): Buffer => new KeyBuilder(9).u8(Table.CANON).u64(n).done();
export const hashKey = (hash: string): Buffer => new KeyBuilder(33).u8(Table.HASH_TO_NUMBER).hex(hash).done();
export const headerKey = (n: number): Buffer => new KeyBuilder(9).u8(Table.HEADER).u64(n).done();
export const txKey = (n: number, i: number): Buffer => new KeyBuilder(13).u8(Table.TX).u64(n).u32(i).done();
export const txHashKey = (hash: string): Buffer => new KeyBuilder(33).u8(Table.TX_BY_HASH).hex(hash).done();
export const receiptKey = (n: number, i: number): Buffer =>
  new KeyBuilder(13).u8(Table.RECEIPT).u64(n).u32(i).done();
export const logKey = (n: number, i: number): Buffer => new KeyBuilder(13).u8(Table.LOG).u64(n).u32(i).done();
export const undoKey = (n: number): Buffer => new KeyBuilder(9).u8(Table.UNDO).u64(n).done();
export const timeKey = (ts: number, n: number): Buffer =>
  new KeyBuilder(17).u8(Table.TIME).u64(ts).u64(n).done();
export const gapKey = (lane: string, from: number): Buffer =>
  Buffer.concat([
    Buffer.from([Table.GAP]),
    Buffer.from(lane),
    Buffer.from([0]),
    new KeyBuilder(8).u64(from).done(),
  ]);
export const gapPrefix = (): Buffer => Buffer.from([Table.GAP]);
export const probeKey = (n: number): Buffer => new KeyBuilder(9).u8(Table.PROBE).u64(n).done();
