// Storage benchmark adapter of @nxtedition/rocksdb: synchronous MultiGet and iterator reads on the
// JS thread, async get()/nextv() through the threadpool. The package ships no types the bench can
// use (packages/indexer/src/storage has a narrow ambient declaration that omits the async/iterator
// APIs measured here), so it is loaded with createRequire and typed locally below.

import { type Adapter, type ConsistencyResult, pkgVersion, require } from './adapter.js';
import { CACHE_BYTES, CFG, CONCURRENCY, GET_BATCH } from './config.js';
import { measureAsync, measureSync, type Stats, tick } from './measure.js';
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
interface NxIterator {
  _nextvSync(size: number): { rows: Buffer[]; finished: boolean };
  _seekSync(target: Buffer): void;
  nextv(size: number): Promise<[Buffer, Buffer][]>;
  close(): Promise<void>;
}
interface NxBatch {
  put(key: Buffer, value: Buffer): NxBatch;
  write(): Promise<void>;
}
interface NxDb {
  open(): Promise<void>;
  close(): Promise<void>;
  get(key: Buffer): Promise<Buffer>;
  _getManySync(keys: Buffer[]): (Buffer | undefined)[];
  batch(): NxBatch;
  iterator(options: object): NxIterator;
  getProperty(name: string): string;
}
type NxCtor = new (location: string, options?: object) => NxDb;

async function nxGets(db: NxDb, keys: Buffer[]): Promise<Record<string, Stats>> {
  const n = keys.length;
  const warm = Math.min(1000, n);
  const out: Record<string, Stats> = {};
  out['sync _getManySync([k])'] = await measureSync(n, warm, (i) => {
    const v = db._getManySync([keys[i]])[0];
    expectValue(v, keys[i], 'nx sync get');
  });
  const groups = Math.floor(n / GET_BATCH);
  out[`sync _getManySync(${GET_BATCH} keys) per call`] = await measureSync(groups, 100, (g) => {
    const ks = keys.slice(g * GET_BATCH, (g + 1) * GET_BATCH);
    const vs = db._getManySync(ks);
    for (let j = 0; j < ks.length; j++) expectValue(vs[j], ks[j], 'nx sync getMany');
  });
  out['async get(k)'] = await measureAsync(n, warm, 1, async (i) => {
    expectValue(await db.get(keys[i]), keys[i], 'nx async get');
  });
  out[`async get(k) x${CONCURRENCY} in flight`] = await measureAsync(n, warm, CONCURRENCY, async (i) => {
    expectValue(await db.get(keys[i]), keys[i], 'nx async get (concurrent)');
  });
  return out;
}

async function nxScans(db: NxDb, starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>> {
  const R = CFG.scanRows;
  const out: Record<string, Stats> = {};
  out['sync iterator + _nextvSync(1000)'] = await measureSync(starts.length, 200, (i) => {
    const s = starts[i];
    const it = db.iterator({ gte: rowKey(s, rowsPerBatch), lt: TABLE_END, limit: R });
    const { rows } = it._nextvSync(R);
    void it.close(); // native iterator is released synchronously (_closeSync); only the callback is deferred
    const ks: Buffer[] = [];
    for (let j = 0; j < rows.length; j += 2) ks.push(rows[j]);
    checkScan(ks, s, rowsPerBatch, R, 'nx sync scan');
  });
  out['sync iterator + _nextvSync(1000), keys:false'] = await measureSync(
    Math.min(CFG.extraScans, starts.length),
    200,
    (i) => {
      const s = starts[i];
      const it = db.iterator({ gte: rowKey(s, rowsPerBatch), lt: TABLE_END, limit: R, keys: false });
      const { rows } = it._nextvSync(R);
      void it.close();
      const vs: Buffer[] = [];
      for (let j = 1; j < rows.length; j += 2) vs.push(rows[j]);
      checkScanValues(vs, s, R, 'nx sync scan keys:false');
    },
  );
  out['async iterator.nextv(1000)'] = await measureAsync(
    Math.min(CFG.extraScans, starts.length),
    200,
    1,
    async (i) => {
      const s = starts[i];
      const it = db.iterator({ gte: rowKey(s, rowsPerBatch), lt: TABLE_END, limit: R });
      const entries = await it.nextv(R);
      await it.close();
      checkScan(
        entries.map((e) => e[0]),
        s,
        rowsPerBatch,
        R,
        'nx async scan',
      );
    },
  );
  return out;
}

async function nxPackedScans(
  db: NxDb,
  starts: number[],
  rowsPerBatch: number,
): Promise<Record<string, Stats>> {
  const out: Record<string, Stats> = {};
  out[`sync iterator + _nextvSync(<=${packedBlocksFor(rowsPerBatch)}) + ${CFG.scanRows} row views`] =
    await measureSync(starts.length, 200, (i) => {
      const s = starts[i];
      const [gte, count] = packedRange(s, rowsPerBatch);
      const it = db.iterator({ gte, lt: PACKED_END, limit: count });
      const { rows } = it._nextvSync(count);
      void it.close();
      const vals: Buffer[] = [];
      for (let j = 1; j < rows.length; j += 2) vals.push(rows[j]);
      checkScanValues(unpack(vals, s, rowsPerBatch), s, CFG.scanRows, 'nx packed scan');
    });
  return out;
}

async function nxConsistency(db: NxDb): Promise<ConsistencyResult[]> {
  const writeAB = (n: number): Promise<void> =>
    db.batch().put(counterKeyA, u64(n)).put(counterKeyB, u64(n)).write();
  return pairReadsUnderWriter(writeAB, [
    {
      method: 'two _getManySync() calls in one JS turn',
      note: 'consistent by construction: commits run on the same thread, between JS turns',
      read: async () => {
        const a = db._getManySync([counterKeyA])[0]!;
        const b = db._getManySync([counterKeyB])[0]!;
        await tick();
        return a.equals(b);
      },
    },
    {
      method: 'two awaited async get() calls',
      note: 'threadpool reads; a commit can land between them',
      read: async () => {
        const a = await db.get(counterKeyA);
        const b = await db.get(counterKeyB);
        return a.equals(b);
      },
    },
    {
      method: 'one iterator (implicit snapshot), _seekSync A, await, _seekSync B',
      note: 'iterator pins its snapshot at creation, so reads across awaits stay consistent',
      read: async () => {
        const it = db.iterator({ gte: counterKeyA, lte: counterKeyB });
        it._seekSync(counterKeyA);
        const a = it._nextvSync(1).rows[1];
        await tick(); // writer commits here
        await tick();
        it._seekSync(counterKeyB);
        const b = it._nextvSync(1).rows[1];
        void it.close();
        return a.equals(b);
      },
    },
  ]);
}

export function nxtAdapter(): Adapter {
  const { RocksLevel } = require('@nxtedition/rocksdb') as { RocksLevel: NxCtor };
  let db!: NxDb;
  return {
    name: 'nxtedition',
    version: pkgVersion('@nxtedition/rocksdb'),
    snapshotApi:
      'No explicit snapshot object. Writes: ChainedBatch.write() -> _write() -> _writeSync() commits on the JS thread before returning. ' +
      'Reads: _getManySync() / iterator._nextvSync() run on the JS thread, so any sequence of sync reads in one JS turn cannot interleave with a commit made from the same thread. ' +
      '_getManySync([a,b,...]) is one RocksDB MultiGet (one implicit snapshot). Every iterator pins an implicit snapshot at creation (NewIterator in iterator_init); ' +
      'one iterator + _seekSync() can serve several point/range reads from the same snapshot, even across awaits. Async get()/nextv() go through the threadpool and can interleave with commits.',
    async open(dir) {
      db = new RocksLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', cacheSize: CACHE_BYTES });
      await db.open();
    },
    async close() {
      await db.close();
    },
    async writeBatch(keys, values) {
      const b = db.batch();
      for (let i = 0; i < keys.length; i++) b.put(keys[i], values[i]);
      await b.write(); // committed synchronously inside write(); the promise resolves on nextTick
    },
    gets: (keys) => nxGets(db, keys),
    scans: (starts, rowsPerBatch) => nxScans(db, starts, rowsPerBatch),
    packedScans: (starts, rowsPerBatch) => nxPackedScans(db, starts, rowsPerBatch),
    consistency: () => nxConsistency(db),
    props: () => readProps((p) => db.getProperty(p)),
  };
}
