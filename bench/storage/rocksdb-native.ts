// Storage benchmark adapter of rocksdb-native: every read and write a threadpool request (read and
// write batches, iterators with a capacity, explicit snapshots). The package ships no TypeScript
// types, so it is loaded with createRequire and typed locally below.

import { type Adapter, type ConsistencyResult, pkgVersion, require } from './adapter.js';
import { CFG, CONCURRENCY, GET_BATCH } from './config.js';
import { measureAsync, type Stats } from './measure.js';
import {
  checkScan,
  checkScanValues,
  counterKeyA,
  counterKeyB,
  expectValue,
  PACKED_END,
  packedBlocksFor,
  packedRange,
  pairReadsUnderWriter,
  readProps,
  rowKey,
  TABLE_END,
  u64,
  unpack,
} from './rows.js';

// Local typings of the parts of the binding that are exercised.
interface RnReadBatch {
  get(key: Buffer): Promise<Buffer | null>;
  flush(): Promise<void>;
}
interface RnWriteBatch {
  tryPut(key: Buffer, value: Buffer): void;
  flush(): Promise<void>;
}
interface RnEntry {
  key: Buffer;
  value: Buffer;
}
interface RnDb {
  ready(): Promise<void>;
  close(): Promise<void>;
  get(key: Buffer): Promise<Buffer | null>;
  read(options?: object): RnReadBatch;
  write(options?: object): RnWriteBatch;
  iterator(range: object, options?: object): AsyncIterable<RnEntry>;
  snapshot(): RnDb;
  getProperty(name: string): Promise<string>;
}
type RnCtor = new (location: string, options?: object) => RnDb;

/** Drains an iterator into its keys and values. */
async function collect(iter: AsyncIterable<RnEntry>): Promise<{ keys: Buffer[]; values: Buffer[] }> {
  const keys: Buffer[] = [];
  const values: Buffer[] = [];
  for await (const e of iter) {
    keys.push(e.key);
    values.push(e.value);
  }
  return { keys, values };
}

async function rnGets(db: RnDb, keys: Buffer[]): Promise<Record<string, Stats>> {
  const n = keys.length;
  const warm = Math.min(1000, n);
  const out: Record<string, Stats> = {};
  out['read() + get + flush()'] = await measureAsync(n, warm, 1, async (i) => {
    const r = db.read({ capacity: 1, autoDestroy: true });
    const p = r.get(keys[i]);
    await r.flush();
    expectValue(await p, keys[i], 'rn read batch get');
  });
  out['db.get(k)'] = await measureAsync(n, warm, 1, async (i) => {
    expectValue(await db.get(keys[i]), keys[i], 'rn db.get');
  });
  const groups = Math.floor(n / GET_BATCH);
  out[`read() + ${GET_BATCH} x get + flush() per call`] = await measureAsync(groups, 100, 1, async (g) => {
    const ks = keys.slice(g * GET_BATCH, (g + 1) * GET_BATCH);
    const r = db.read({ capacity: GET_BATCH, autoDestroy: true });
    const ps = ks.map((k) => r.get(k));
    await r.flush();
    const vs = await Promise.all(ps);
    for (let j = 0; j < ks.length; j++) expectValue(vs[j], ks[j], 'rn batched get');
  });
  out[`db.get(k) x${CONCURRENCY} in flight`] = await measureAsync(n, warm, CONCURRENCY, async (i) => {
    expectValue(await db.get(keys[i]), keys[i], 'rn db.get (concurrent)');
  });
  return out;
}

async function rnScans(db: RnDb, starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>> {
  const R = CFG.scanRows;
  const out: Record<string, Stats> = {};
  // capacity R+1: the first read returns R rows (< capacity) so the stream ends without a second
  // threadpool round trip; open + read + close = 3 hops.
  out[`iterator({gte,lt},{limit:${R},capacity:${R + 1}})`] = await measureAsync(
    starts.length,
    200,
    1,
    async (i) => {
      const s = starts[i];
      const { keys: ks, values: vs } = await collect(
        db.iterator({ gte: rowKey(s, rowsPerBatch), lt: TABLE_END }, { limit: R, capacity: R + 1 }),
      );
      checkScan(ks, s, rowsPerBatch, R, 'rn scan');
      checkScanValues(vs, s, R, 'rn scan');
    },
  );
  out[`iterator({gte,lt},{limit:${R}}) default capacity 8`] = await measureAsync(
    Math.min(CFG.extraScans, starts.length),
    20,
    1,
    async (i) => {
      const s = starts[i];
      const { keys: ks } = await collect(
        db.iterator({ gte: rowKey(s, rowsPerBatch), lt: TABLE_END }, { limit: R }),
      );
      checkScan(ks, s, rowsPerBatch, R, 'rn scan (default capacity)');
    },
  );
  return out;
}

async function rnPackedScans(
  db: RnDb,
  starts: number[],
  rowsPerBatch: number,
): Promise<Record<string, Stats>> {
  const out: Record<string, Stats> = {};
  const n = packedBlocksFor(rowsPerBatch);
  out[`iterator({gte,lt},{limit:<=${n},capacity:${n + 1}}) + ${CFG.scanRows} row views`] = await measureAsync(
    starts.length,
    200,
    1,
    async (i) => {
      const s = starts[i];
      const [gte, count] = packedRange(s, rowsPerBatch);
      const { values } = await collect(
        db.iterator({ gte, lt: PACKED_END }, { limit: count, capacity: count + 1 }),
      );
      checkScanValues(unpack(values, s, rowsPerBatch), s, CFG.scanRows, 'rn packed scan');
    },
  );
  return out;
}

async function rnConsistency(db: RnDb): Promise<ConsistencyResult[]> {
  const writeAB = (n: number): Promise<void> => {
    const w = db.write({ capacity: 2, autoDestroy: true });
    w.tryPut(counterKeyA, u64(n));
    w.tryPut(counterKeyB, u64(n));
    return w.flush();
  };
  return pairReadsUnderWriter(writeAB, [
    {
      method: 'two awaited db.get() calls',
      note: 'threadpool reads; a commit can land between them',
      read: async () => {
        const a = (await db.get(counterKeyA))!;
        const b = (await db.get(counterKeyB))!;
        return a.equals(b);
      },
    },
    {
      method: 'db.snapshot(): two awaited get() calls, then close()',
      note: 'explicit snapshot',
      read: async () => {
        const snap = db.snapshot();
        const a = (await snap.get(counterKeyA))!;
        const b = (await snap.get(counterKeyB))!;
        await snap.close();
        return a.equals(b);
      },
    },
    {
      method: 'one read batch with both keys (MultiGet)',
      note: 'single MultiGet request',
      read: async () => {
        const r = db.read({ capacity: 2, autoDestroy: true });
        const pa = r.get(counterKeyA);
        const pb = r.get(counterKeyB);
        await r.flush();
        return (await pa)!.equals((await pb)!);
      },
    },
  ]);
}

export function rnAdapter(): Adapter {
  const RocksDB = require('rocksdb-native') as RnCtor;
  let db!: RnDb;
  return {
    name: 'rocksdb-native',
    version: pkgVersion('rocksdb-native'),
    snapshotApi:
      'Explicit: db.snapshot() returns a session pinned to a RocksDB snapshot (created synchronously); read batches and iterators opened on it see that snapshot until snapshot.close(). ' +
      'A single read batch (db.read() + N x get + flush()) is one MultiGet, so its keys are mutually consistent. ' +
      'All reads and writes are threadpool requests (no sync API), so separate awaited reads without a snapshot can interleave with commits.',
    async open(dir) {
      db = new RocksDB(dir);
      await db.ready();
    },
    async close() {
      await db.close();
    },
    async writeBatch(keys, values) {
      const w = db.write({ capacity: keys.length, autoDestroy: true });
      for (let i = 0; i < keys.length; i++) w.tryPut(keys[i], values[i]);
      await w.flush();
    },
    gets: (keys) => rnGets(db, keys),
    scans: (starts, rowsPerBatch) => rnScans(db, starts, rowsPerBatch),
    packedScans: (starts, rowsPerBatch) => rnPackedScans(db, starts, rowsPerBatch),
    consistency: () => rnConsistency(db),
    props: () => readProps((p) => db.getProperty(p)),
  };
}
