// Storage benchmark rows: the key/value layout of the bench rows, the packed layout (one value per
// block), the checks every read makes, and the pair of keys of the consistency test.

import type { ConsistencyResult } from './adapter.js';
import { CFG, FIRST_BLOCK, META, QUICK, TABLE, VALUE_SIZE } from './config.js';
import { check, rng, tick } from './measure.js';

export function makeKey(prefix: number, block: number, index: number): Buffer {
  const k = Buffer.allocUnsafe(13);
  k[0] = prefix;
  k.writeUInt32BE(Math.floor(block / 0x100000000), 1);
  k.writeUInt32BE(block >>> 0, 5);
  k.writeUInt32BE(index, 9);
  return k;
}
export const rowKey = (row: number, rowsPerBatch: number): Buffer =>
  makeKey(TABLE, FIRST_BLOCK + Math.floor(row / rowsPerBatch), row % rowsPerBatch);
export const TABLE_END = Buffer.from([TABLE + 1]);

// ~200-byte values: 8-byte row id, 120 pseudo-random bytes, 72 zero bytes (ABI-ish padding).
export const POOL = (() => {
  const r = rng(0xc0ffee);
  const b = Buffer.allocUnsafe(1 << 20);
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(r() * 256);
  return b;
})();
export function makeValue(row: number): Buffer {
  const v = Buffer.alloc(VALUE_SIZE);
  v.writeUInt32BE(Math.floor(row / 0x100000000), 0);
  v.writeUInt32BE(row >>> 0, 4);
  const off = (row * 131) % (POOL.length - 128);
  POOL.copy(v, 8, off, off + 120);
  return v;
}

export function expectValue(v: Buffer | null | undefined, key: Buffer, what: string): void {
  check(v != null && v.length === VALUE_SIZE, `${what}: missing/short value for ${key.toString('hex')}`);
}

export function checkScan(
  keys: Buffer[],
  start: number,
  rowsPerBatch: number,
  scanRows: number,
  what: string,
): void {
  check(keys.length === scanRows, `${what}: got ${keys.length} rows, want ${scanRows}`);
  check(keys[0].equals(rowKey(start, rowsPerBatch)), `${what}: wrong first key`);
  check(keys[scanRows - 1].equals(rowKey(start + scanRows - 1, rowsPerBatch)), `${what}: wrong last key`);
}

export function checkScanValues(values: Buffer[], start: number, scanRows: number, what: string): void {
  check(values.length === scanRows, `${what}: got ${values.length} values, want ${scanRows}`);
  for (const [j, row] of [
    [0, start],
    [scanRows - 1, start + scanRows - 1],
  ]) {
    const v = values[j];
    check(v.length === VALUE_SIZE && v.readUInt32BE(4) === row, `${what}: wrong value at ${j}`);
  }
}

// Packed layout (extra experiment): one value per block = the block's rows concatenated, so a
// 1,000-row range read is ~21 key/value pairs instead of 1,000.
export const PACKED = 0x02;
export const PACKED_END = Buffer.from([PACKED + 1]);
export function packedKey(block: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = PACKED;
  k.writeUInt32BE(Math.floor(block / 0x100000000), 1);
  k.writeUInt32BE(block >>> 0, 5);
  return k;
}
export const packedBlocksFor = (rowsPerBatch: number): number => Math.ceil(CFG.scanRows / rowsPerBatch) + 1;
export function packedRange(start: number, rowsPerBatch: number): [Buffer, number] {
  const first = Math.floor(start / rowsPerBatch);
  const last = Math.floor((start + CFG.scanRows - 1) / rowsPerBatch);
  return [packedKey(FIRST_BLOCK + first), last - first + 1];
}
// Row views (subarray, no copy) over the packed block values, as an API handler would decode them.
export function unpack(blocks: Buffer[], start: number, rowsPerBatch: number): Buffer[] {
  const out: Buffer[] = [];
  let off = start % rowsPerBatch;
  for (const b of blocks) {
    for (; off < rowsPerBatch && out.length < CFG.scanRows; off++) {
      out.push(b.subarray(off * VALUE_SIZE, (off + 1) * VALUE_SIZE));
    }
    off = 0;
  }
  return out;
}

export const PROPS = [
  'rocksdb.num-files-at-level0',
  'rocksdb.total-sst-files-size',
  'rocksdb.cur-size-all-mem-tables',
  'rocksdb.block-cache-usage',
  'rocksdb.block-cache-pinned-usage',
  'rocksdb.estimate-table-readers-mem',
  'rocksdb.num-running-compactions',
];

/** The {@link PROPS} as `get` answers them (one it throws on is left out). */
export async function readProps(
  get: (name: string) => string | Promise<string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of PROPS) {
    try {
      out[p] = String(await get(p));
    } catch {}
  }
  return out;
}

export const counterKeyA = Buffer.from([META, 0x41]);
export const counterKeyB = Buffer.from([META, 0x42]);
export const u64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(n >>> 0, 4);
  return b;
};
export const CONSISTENCY_READS = QUICK ? 2_000 : 10_000;

/**
 * Runs {@link CONSISTENCY_READS} `reader` calls while a writer commits `writeAB(1)`, `writeAB(2)`, …
 * (a tick between commits); returns how many reads saw a torn pair and how many commits ran.
 */
export async function readsUnderWriter(
  writeAB: (n: number) => Promise<void>,
  reader: () => Promise<boolean>,
): Promise<{ torn: number; commits: number }> {
  let done = false;
  let n = 1;
  const writer = (async () => {
    while (!done) {
      await writeAB(n++);
      await tick(); // like ingest between blocks; also keeps setImmediate-based readers from starving
    }
  })();
  let torn = 0;
  for (let i = 0; i < CONSISTENCY_READS; i++) if (!(await reader())) torn++;
  done = true;
  await writer;
  return { torn, commits: n - 1 };
}

/** One way of reading the pair (A, B): `read` answers whether the two values it read were equal. */
export interface PairRead {
  method: string;
  note: string;
  read: () => Promise<boolean>;
}

/**
 * Writes the pair at 0, then runs each of `reads` under the writer ({@link readsUnderWriter}): one
 * result each, in order.
 */
export async function pairReadsUnderWriter(
  writeAB: (n: number) => Promise<void>,
  reads: PairRead[],
): Promise<ConsistencyResult[]> {
  await writeAB(0);
  const results: ConsistencyResult[] = [];
  for (const { method, note, read } of reads)
    results.push({ method, reads: CONSISTENCY_READS, ...(await readsUnderWriter(writeAB, read)), note });
  return results;
}
