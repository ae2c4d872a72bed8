// Storage benchmark: @nxtedition/rocksdb vs rocksdb-native for the indexer's access pattern.
//
//   npx tsc -p tsconfig.json && node dist/bench/storage/run.js [--quick] [--only nxtedition|rocksdb-native]
//
// The parent process runs each binding in its own child process (same script, `--child <name>`), so
// RSS, the libuv threadpool and V8 heap are per binding. Each child works in a fresh temp dir that
// is removed afterwards. The parent prints a table and writes bench/storage/results.json.
//
// Both packages ship no TypeScript types the bench can use (packages/indexer/src/storage has a narrow ambient
// declaration for @nxtedition/rocksdb that omits the async/iterator APIs measured here), so they
// are loaded with createRequire and typed locally below.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Local typings of the parts of each binding that are exercised.

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

// ---------------------------------------------------------------------------------------------
// Configuration.

const BINDINGS = ['nxtedition', 'rocksdb-native'] as const;
type BindingName = (typeof BINDINGS)[number];

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const childIdx = argv.indexOf('--child');
const CHILD: BindingName | null = childIdx >= 0 ? (argv[childIdx + 1] as BindingName) : null;
const onlyIdx = argv.indexOf('--only');
const ONLY: string | null = onlyIdx >= 0 ? (argv[onlyIdx + 1] ?? null) : null;

const CFG = QUICK
  ? { batches: 2_000, rowsPerBatch: 50, gets: 10_000, scans: 1_000, scanRows: 1_000, extraScans: 200 }
  : { batches: 20_000, rowsPerBatch: 50, gets: 100_000, scans: 10_000, scanRows: 1_000, extraScans: 1_000 };
// `scans` iterations for each binding's main range-read path; `extraScans` for secondary variants.
const VALUE_SIZE = 200;
const TABLE = 0x01; // 1-byte table prefix of the bench rows
const META = 0x09; // prefix of the two keys used by the consistency test
const FIRST_BLOCK = 20_000_000;
const GET_BATCH = 20;
const CONCURRENCY = 16;
const CACHE_BYTES = 32 * 1024 * 1024; // nxtedition default is 8 MiB; RocksDB's own default (used by rocksdb-native) is 32 MiB

// ---------------------------------------------------------------------------------------------
// Helpers.

const now = (): bigint => process.hrtime.bigint();
const log = (msg: string): void => {
  process.stderr.write(`[${CHILD ?? 'main'}] ${msg}\n`);
};
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Stats {
  n: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
  maxUs: number;
  meanUs: number;
  opsPerSec: number; // n / wall time of the whole measurement loop
  gcCount: number; // GC pauses (perf_hooks 'gc' entries) that started during the measurement
  gcTotalMs: number;
  gcMaxMs: number;
}

// GC pauses, from perf_hooks. Entries are delivered asynchronously, so gcBetween() waits briefly.
const gcLog: { start: number; dur: number }[] = [];
let gcObserver: PerformanceObserver | null = null;
function startGcObserver(): void {
  gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcLog.push({ start: e.startTime, dur: e.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}
async function gcBetween(t0: number, t1: number): Promise<Pick<Stats, 'gcCount' | 'gcTotalMs' | 'gcMaxMs'>> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  let gcCount = 0;
  let total = 0;
  let max = 0;
  for (const g of gcLog) {
    if (g.start < t0 || g.start > t1) continue;
    gcCount++;
    total += g.dur;
    max = Math.max(max, g.dur);
  }
  gcLog.length = 0;
  return { gcCount, gcTotalMs: Math.round(total * 10) / 10, gcMaxMs: Math.round(max * 10) / 10 };
}

function stats(samplesNs: Float64Array, wallNs: number): Omit<Stats, 'gcCount' | 'gcTotalMs' | 'gcMaxMs'> {
  const s = Float64Array.from(samplesNs).sort();
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))] / 1000;
  let sum = 0;
  for (const v of s) sum += v;
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return {
    n: s.length,
    p50Us: r2(q(0.5)),
    p99Us: r2(q(0.99)),
    p999Us: r2(q(0.999)),
    maxUs: r2(s[s.length - 1] / 1000),
    meanUs: r2(sum / s.length / 1000),
    opsPerSec: Math.round(s.length / (wallNs / 1e9)),
  };
}

// Deterministic PRNG (xorshift32) so both bindings see the same keys and values.
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

function makeKey(prefix: number, block: number, index: number): Buffer {
  const k = Buffer.allocUnsafe(13);
  k[0] = prefix;
  k.writeUInt32BE(Math.floor(block / 0x100000000), 1);
  k.writeUInt32BE(block >>> 0, 5);
  k.writeUInt32BE(index, 9);
  return k;
}
const rowKey = (row: number, rowsPerBatch: number): Buffer =>
  makeKey(TABLE, FIRST_BLOCK + Math.floor(row / rowsPerBatch), row % rowsPerBatch);
const TABLE_END = Buffer.from([TABLE + 1]);

// ~200-byte values: 8-byte row id, 120 pseudo-random bytes, 72 zero bytes (ABI-ish padding).
const POOL = (() => {
  const r = rng(0xc0ffee);
  const b = Buffer.allocUnsafe(1 << 20);
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(r() * 256);
  return b;
})();
function makeValue(row: number): Buffer {
  const v = Buffer.alloc(VALUE_SIZE);
  v.writeUInt32BE(Math.floor(row / 0x100000000), 0);
  v.writeUInt32BE(row >>> 0, 4);
  const off = (row * 131) % (POOL.length - 128);
  POOL.copy(v, 8, off, off + 120);
  return v;
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return total;
}

// Measure `n` synchronous operations. Like a server handling one request per event-loop turn, the
// loop yields to the event loop (setImmediate) after every operation, outside the timed region.
// Without that, @nxtedition's N-API finalizers (which run from setImmediate on Node 20) never get to
// free native objects, which inflates RSS (see RESULTS.md).
async function measureSync(n: number, warmup: number, op: (i: number) => void): Promise<Stats> {
  for (let i = 0; i < warmup; i++) op(i);
  const samples = new Float64Array(n);
  const p0 = performance.now();
  const w0 = now();
  for (let i = 0; i < n; i++) {
    const t0 = now();
    op(i);
    samples[i] = Number(now() - t0);
    await tick();
  }
  const base = stats(samples, Number(now() - w0));
  return { ...base, ...(await gcBetween(p0, performance.now())) };
}

// Measure `n` asynchronous operations, `concurrency` in flight; latency is per operation.
async function measureAsync(
  n: number,
  warmup: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await op(i);
  const samples = new Float64Array(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const t0 = now();
      await op(i);
      samples[i] = Number(now() - t0);
    }
  };
  const p0 = performance.now();
  const w0 = now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const base = stats(samples, Number(now() - w0));
  return { ...base, ...(await gcBetween(p0, performance.now())) };
}

function check(cond: boolean, msg: string): void {
  if (!cond) throw new Error(`verification failed: ${msg}`);
}

// ---------------------------------------------------------------------------------------------
// Per-binding adapters: same phases, each binding's fastest correct API.

interface ConsistencyResult {
  method: string;
  reads: number;
  torn: number; // pairs (A, B) read with A !== B although every commit writes A === B
  commits: number; // writer commits that happened during the reads
  note: string;
}

interface BindingResult {
  binding: BindingName;
  version: string;
  write: { rows: number; batches: number; rowsPerSecStore: number; rowsPerSecWall: number; batch: Stats };
  get: Record<string, Stats>;
  scan: Record<string, Stats>;
  packedWrite: { blocks: number; seconds: number; valueBytes: number };
  packedScan: Record<string, Stats>;
  consistency: ConsistencyResult[];
  snapshotApi: string;
  memory: {
    rssEndMB: number;
    maxRssMB: number;
    heapUsedMB: number;
    externalMB: number;
    rssAfterPackedExtraMB: number;
  };
  disk: { dbBytes: number };
  rocksdbProperties: Record<string, string>;
  phaseSeconds: Record<string, number>;
  rssAfterPhaseMB: Record<string, number>;
}

interface Adapter {
  name: BindingName;
  version: string;
  open(dir: string): Promise<void>;
  close(): Promise<void>;
  writeBatch(keys: Buffer[], values: Buffer[]): Promise<void>;
  gets(keys: Buffer[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  scans(starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  packedScans(starts: number[], rowsPerBatch: number): Promise<Record<string, Stats>>;
  consistency(): Promise<ConsistencyResult[]>;
  props(): Promise<Record<string, string>>;
  snapshotApi: string;
}

function pkgVersion(name: string): string {
  // Both packages keep index.js at the package root; rocksdb-native does not export ./package.json.
  const file = path.join(path.dirname(require.resolve(name)), 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

function expectValue(v: Buffer | null | undefined, key: Buffer, what: string): void {
  check(v != null && v.length === VALUE_SIZE, `${what}: missing/short value for ${key.toString('hex')}`);
}

function checkScan(
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

function checkScanValues(values: Buffer[], start: number, scanRows: number, what: string): void {
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
const PACKED = 0x02;
const PACKED_END = Buffer.from([PACKED + 1]);
function packedKey(block: number): Buffer {
  const k = Buffer.allocUnsafe(9);
  k[0] = PACKED;
  k.writeUInt32BE(Math.floor(block / 0x100000000), 1);
  k.writeUInt32BE(block >>> 0, 5);
  return k;
}
const packedBlocksFor = (rowsPerBatch: number): number => Math.ceil(CFG.scanRows / rowsPerBatch) + 1;
function packedRange(start: number, rowsPerBatch: number): [Buffer, number] {
  const first = Math.floor(start / rowsPerBatch);
  const last = Math.floor((start + CFG.scanRows - 1) / rowsPerBatch);
  return [packedKey(FIRST_BLOCK + first), last - first + 1];
}
// Row views (subarray, no copy) over the packed block values, as an API handler would decode them.
function unpack(blocks: Buffer[], start: number, rowsPerBatch: number): Buffer[] {
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

const PROPS = [
  'rocksdb.num-files-at-level0',
  'rocksdb.total-sst-files-size',
  'rocksdb.cur-size-all-mem-tables',
  'rocksdb.block-cache-usage',
  'rocksdb.block-cache-pinned-usage',
  'rocksdb.estimate-table-readers-mem',
  'rocksdb.num-running-compactions',
];

const counterKeyA = Buffer.from([META, 0x41]);
const counterKeyB = Buffer.from([META, 0x42]);
const u64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(n >>> 0, 4);
  return b;
};
const CONSISTENCY_READS = QUICK ? 2_000 : 10_000;

/**
 * Runs {@link CONSISTENCY_READS} `reader` calls while a writer commits `writeAB(1)`, `writeAB(2)`, …
 * (a tick between commits); returns how many reads saw a torn pair and how many commits ran.
 */
async function readsUnderWriter(
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

function nxtAdapter(): Adapter {
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
    async gets(keys) {
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
    },
    async scans(starts, rowsPerBatch) {
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
    },
    async packedScans(starts, rowsPerBatch) {
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
    },
    async consistency() {
      const results: ConsistencyResult[] = [];
      const writeAB = (n: number): Promise<void> =>
        db.batch().put(counterKeyA, u64(n)).put(counterKeyB, u64(n)).write();
      await writeAB(0);
      const withWriter = (reader: () => Promise<boolean>) => readsUnderWriter(writeAB, reader);
      results.push({
        method: 'two _getManySync() calls in one JS turn',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const a = db._getManySync([counterKeyA])[0]!;
          const b = db._getManySync([counterKeyB])[0]!;
          await tick();
          return a.equals(b);
        })),
        note: 'consistent by construction: commits run on the same thread, between JS turns',
      });
      results.push({
        method: 'two awaited async get() calls',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const a = await db.get(counterKeyA);
          const b = await db.get(counterKeyB);
          return a.equals(b);
        })),
        note: 'threadpool reads; a commit can land between them',
      });
      results.push({
        method: 'one iterator (implicit snapshot), _seekSync A, await, _seekSync B',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const it = db.iterator({ gte: counterKeyA, lte: counterKeyB });
          it._seekSync(counterKeyA);
          const a = it._nextvSync(1).rows[1];
          await tick(); // writer commits here
          await tick();
          it._seekSync(counterKeyB);
          const b = it._nextvSync(1).rows[1];
          void it.close();
          return a.equals(b);
        })),
        note: 'iterator pins its snapshot at creation, so reads across awaits stay consistent',
      });
      return results;
    },
    async props() {
      const out: Record<string, string> = {};
      for (const p of PROPS) {
        try {
          out[p] = db.getProperty(p);
        } catch {}
      }
      return out;
    },
  };
}

function rnAdapter(): Adapter {
  const RocksDB = require('rocksdb-native') as RnCtor;
  let db!: RnDb;
  const collect = async (iter: AsyncIterable<RnEntry>): Promise<{ keys: Buffer[]; values: Buffer[] }> => {
    const keys: Buffer[] = [];
    const values: Buffer[] = [];
    for await (const e of iter) {
      keys.push(e.key);
      values.push(e.value);
    }
    return { keys, values };
  };
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
    async gets(keys) {
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
      out[`read() + ${GET_BATCH} x get + flush() per call`] = await measureAsync(
        groups,
        100,
        1,
        async (g) => {
          const ks = keys.slice(g * GET_BATCH, (g + 1) * GET_BATCH);
          const r = db.read({ capacity: GET_BATCH, autoDestroy: true });
          const ps = ks.map((k) => r.get(k));
          await r.flush();
          const vs = await Promise.all(ps);
          for (let j = 0; j < ks.length; j++) expectValue(vs[j], ks[j], 'rn batched get');
        },
      );
      out[`db.get(k) x${CONCURRENCY} in flight`] = await measureAsync(n, warm, CONCURRENCY, async (i) => {
        expectValue(await db.get(keys[i]), keys[i], 'rn db.get (concurrent)');
      });
      return out;
    },
    async scans(starts, rowsPerBatch) {
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
    },
    async packedScans(starts, rowsPerBatch) {
      const out: Record<string, Stats> = {};
      const n = packedBlocksFor(rowsPerBatch);
      out[`iterator({gte,lt},{limit:<=${n},capacity:${n + 1}}) + ${CFG.scanRows} row views`] =
        await measureAsync(starts.length, 200, 1, async (i) => {
          const s = starts[i];
          const [gte, count] = packedRange(s, rowsPerBatch);
          const { values } = await collect(
            db.iterator({ gte, lt: PACKED_END }, { limit: count, capacity: count + 1 }),
          );
          checkScanValues(unpack(values, s, rowsPerBatch), s, CFG.scanRows, 'rn packed scan');
        });
      return out;
    },
    async consistency() {
      const results: ConsistencyResult[] = [];
      const writeAB = (n: number): Promise<void> => {
        const w = db.write({ capacity: 2, autoDestroy: true });
        w.tryPut(counterKeyA, u64(n));
        w.tryPut(counterKeyB, u64(n));
        return w.flush();
      };
      await writeAB(0);
      const withWriter = (reader: () => Promise<boolean>) => readsUnderWriter(writeAB, reader);
      results.push({
        method: 'two awaited db.get() calls',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const a = (await db.get(counterKeyA))!;
          const b = (await db.get(counterKeyB))!;
          return a.equals(b);
        })),
        note: 'threadpool reads; a commit can land between them',
      });
      results.push({
        method: 'db.snapshot(): two awaited get() calls, then close()',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const snap = db.snapshot();
          const a = (await snap.get(counterKeyA))!;
          const b = (await snap.get(counterKeyB))!;
          await snap.close();
          return a.equals(b);
        })),
        note: 'explicit snapshot',
      });
      results.push({
        method: 'one read batch with both keys (MultiGet)',
        reads: CONSISTENCY_READS,
        ...(await withWriter(async () => {
          const r = db.read({ capacity: 2, autoDestroy: true });
          const pa = r.get(counterKeyA);
          const pb = r.get(counterKeyB);
          await r.flush();
          return (await pa)!.equals((await pb)!);
        })),
        note: 'single MultiGet request',
      });
      return results;
    },
    async props() {
      const out: Record<string, string> = {};
      for (const p of PROPS) {
        try {
          out[p] = String(await db.getProperty(p));
        } catch {}
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Child: run all phases for one binding.

async function runChild(name: BindingName): Promise<BindingResult> {
  const watchdog = setTimeout(
    () => {
      log('watchdog: child exceeded its time budget, aborting');
      process.exit(2);
    },
    QUICK ? 60_000 : 150_000,
  );
  watchdog.unref();
  const a = name === 'nxtedition' ? nxtAdapter() : rnAdapter();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `storage-bench-${name}-`));
  const phase: Record<string, number> = {};
  const phaseRss: Record<string, number> = {};
  const timed = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = now();
    const r = await fn();
    phase[label] = Math.round(Number(now() - t0) / 1e7) / 100;
    phaseRss[label] = Math.round(process.memoryUsage().rss / 1048576);
    log(`${label}: ${phase[label]} s, RSS ${phaseRss[label]} MB`);
    return r;
  };
  startGcObserver();
  try {
    await a.open(path.join(dir, 'db'));
    const { batches, rowsPerBatch } = CFG;
    const totalRows = batches * rowsPerBatch;

    // 1. Ingest: one atomic batch per block.
    const write = await timed('write', async () => {
      const samples = new Float64Array(batches);
      let storeNs = 0;
      const keys: Buffer[] = new Array(rowsPerBatch);
      const values: Buffer[] = new Array(rowsPerBatch);
      const p0 = performance.now();
      const w0 = now();
      for (let b = 0; b < batches; b++) {
        for (let i = 0; i < rowsPerBatch; i++) {
          const row = b * rowsPerBatch + i;
          keys[i] = makeKey(TABLE, FIRST_BLOCK + b, i);
          values[i] = makeValue(row);
        }
        const t0 = now();
        await a.writeBatch(keys, values);
        const d = Number(now() - t0);
        samples[b] = d;
        storeNs += d;
        // One event-loop turn per block, as in the real ingest (which awaits RPC/decoding between
        // blocks). Without it, @nxtedition's WriteBatch externals are never finalized during the loop.
        await tick();
      }
      const wallNs = Number(now() - w0);
      return {
        rows: totalRows,
        batches,
        rowsPerSecStore: Math.round(totalRows / (storeNs / 1e9)),
        rowsPerSecWall: Math.round(totalRows / (wallNs / 1e9)),
        batch: { ...stats(samples, wallNs), ...(await gcBetween(p0, performance.now())) },
      };
    });

    // 2. Point gets on random existing keys.
    const r = rng(0x5eed);
    const getKeys = Array.from({ length: CFG.gets }, () => rowKey(Math.floor(r() * totalRows), rowsPerBatch));
    const get = await timed('get', () => a.gets(getKeys, rowsPerBatch));

    // 3. Range scans of 1,000 consecutive rows from random starts.
    const starts = Array.from({ length: CFG.scans }, () => Math.floor(r() * (totalRows - CFG.scanRows)));
    const scan = await timed('scan', () => a.scans(starts, rowsPerBatch));

    // 4. Consistency under a concurrent writer.
    const consistency = await timed('consistency', () => a.consistency());

    // 5. Memory / disk, at the end of the core phases (1-4).
    const props = await a.props();
    const mb = (x: number): number => Math.round(x / 1048576);
    const mu = process.memoryUsage();
    const memory = {
      rssEndMB: mb(mu.rss),
      maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      heapUsedMB: mb(mu.heapUsed),
      externalMB: mb(mu.external),
      rssAfterPackedExtraMB: 0,
    };
    const dbBytes = dirSize(dir);

    // Extra: the same rows in a packed layout (one value per block), to see what 1,000-row range
    // reads cost when they are ~21 key/value pairs. Written after the measurements above.
    const packedWrite = await timed('packed write', async () => {
      const t0 = now();
      const per = 100;
      for (let b0 = 0; b0 < batches; b0 += per) {
        const keys: Buffer[] = [];
        const values: Buffer[] = [];
        for (let b = b0; b < Math.min(batches, b0 + per); b++) {
          keys.push(packedKey(FIRST_BLOCK + b));
          const parts: Buffer[] = [];
          for (let i = 0; i < rowsPerBatch; i++) parts.push(makeValue(b * rowsPerBatch + i));
          values.push(Buffer.concat(parts));
        }
        await a.writeBatch(keys, values);
        await tick();
      }
      return {
        blocks: batches,
        seconds: Math.round(Number(now() - t0) / 1e7) / 100,
        valueBytes: rowsPerBatch * VALUE_SIZE,
      };
    });
    const packedScan = await timed('packed scan', () => a.packedScans(starts, rowsPerBatch));
    memory.rssAfterPackedExtraMB = mb(process.memoryUsage().rss);
    await a.close();
    gcObserver?.disconnect();
    return {
      binding: name,
      version: a.version,
      write,
      get,
      scan,
      packedWrite,
      packedScan,
      consistency,
      snapshotApi: a.snapshotApi,
      memory,
      disk: { dbBytes },
      rocksdbProperties: props,
      phaseSeconds: phase,
      rssAfterPhaseMB: phaseRss,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: spawn one child per binding, aggregate, print, write results.json.

const MARK = '@@STORAGE_BENCH_RESULT@@';

function spawnChild(name: BindingName): Promise<BindingResult> {
  return new Promise((resolve, reject) => {
    const args = [fileURLToPath(import.meta.url), '--child', name, ...(QUICK ? ['--quick'] : [])];
    const cp = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    cp.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    cp.on('error', reject);
    cp.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(MARK));
      if (code !== 0 || !line) reject(new Error(`child ${name} exited with ${code}\n${out}`));
      else resolve(JSON.parse(line.slice(MARK.length)) as BindingResult);
    });
  });
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}
function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function printTable(results: BindingResult[]): void {
  const rows: string[][] = [['binding', 'test', 'n', 'p50 µs', 'p99 µs', 'max µs', 'ops/s', 'GC max ms']];
  const line = (b: string, label: string, s: Stats): string[] => [
    b,
    label,
    String(s.n),
    s.p50Us.toFixed(1),
    s.p99Us.toFixed(1),
    s.maxUs.toFixed(0),
    String(s.opsPerSec),
    s.gcMaxMs.toFixed(1),
  ];
  for (const r of results) {
    const b = r.binding;
    rows.push(
      line(
        b,
        `write: batch of ${CFG.rowsPerBatch} puts (${r.write.rowsPerSecStore.toLocaleString('en-US')} rows/s)`,
        r.write.batch,
      ),
    );
    for (const [k, s] of Object.entries(r.get)) rows.push(line(b, `get: ${k}`, s));
    for (const [k, s] of Object.entries(r.scan)) rows.push(line(b, `scan ${CFG.scanRows}: ${k}`, s));
    for (const [k, s] of Object.entries(r.packedScan)) rows.push(line(b, `extra, packed scan: ${k}`, s));
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const fmt = (row: string[]): string =>
    row.map((cell, c) => (c >= 2 ? lpad(cell, widths[c]) : pad(cell, widths[c]))).join(' | ');
  console.log(fmt(rows[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows.slice(1)) console.log(fmt(row));
  console.log('');
  for (const r of results) {
    for (const c of r.consistency)
      console.log(
        `${pad(r.binding, 14)} consistency: ${pad(c.method, 66)} torn ${c.torn}/${c.reads} (${c.commits} commits meanwhile)`,
      );
  }
  console.log('');
  for (const r of results)
    console.log(
      `${pad(r.binding, 14)} memory: RSS end ${r.memory.rssEndMB} MB (after packed extra ${r.memory.rssAfterPackedExtraMB} MB), max RSS ${r.memory.maxRssMB} MB; disk ${Math.round(
        r.disk.dbBytes / 1048576,
      )} MB; L0 files ${r.rocksdbProperties['rocksdb.num-files-at-level0'] ?? '?'}, memtables ${Math.round(Number(r.rocksdbProperties['rocksdb.cur-size-all-mem-tables'] ?? Number.NaN) / 1048576)} MB, block cache ${Math.round(Number(r.rocksdbProperties['rocksdb.block-cache-usage'] ?? Number.NaN) / 1048576)} MB`,
    );
}

async function runParent(): Promise<void> {
  const names = BINDINGS.filter((b) => !ONLY || b === ONLY);
  const loadStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const t0 = now();
  const results: BindingResult[] = [];
  for (const n of names) {
    log(`running ${n} (${QUICK ? 'quick' : 'full'})`);
    results.push(await spawnChild(n));
  }
  const totalSeconds = Math.round(Number(now() - t0) / 1e7) / 100;
  printTable(results);
  const cpus = os.cpus();
  const doc = {
    generatedAt: new Date().toISOString(),
    mode: QUICK ? 'quick' : 'full',
    totalSeconds,
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? 'unknown',
      memGB: Math.round(os.totalmem() / 1073741824),
      uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
      // 1/5/15-min load averages; anything well above 0 means other processes competed for the 2 cores.
      loadAvgStart: loadStart,
      loadAvgEnd: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    config: {
      ...CFG,
      valueSize: VALUE_SIZE,
      keyLayout: '1-byte table prefix + 8-byte BE block + 4-byte BE index',
      valueLayout: '8-byte row id + 120 pseudo-random bytes + 72 zero bytes',
      getBatch: GET_BATCH,
      concurrency: CONCURRENCY,
      nxteditionCacheSize: CACHE_BYTES,
      rocksdbNativeOptions: 'library defaults',
      timing: 'process.hrtime.bigint() per operation; async ops include promise resolution',
    },
    results: Object.fromEntries(results.map((r) => [r.binding, r])),
  };
  const here = path.dirname(fileURLToPath(import.meta.url)); // dist/bench/storage
  const srcDir = path.resolve(here, '..', '..', '..', 'bench', 'storage');
  const outDir = fs.existsSync(srcDir) ? srcDir : here;
  const outFile = path.join(outDir, 'results.json');
  fs.writeFileSync(outFile, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(
    `\nwrote ${path.relative(process.cwd(), outFile)} (total ${totalSeconds} s; load avg ${loadStart.join('/')} -> ${doc.machine.loadAvgEnd.join('/')})`,
  );
}

if (CHILD) {
  runChild(CHILD).then(
    (res) => {
      process.stdout.write(`${MARK}${JSON.stringify(res)}\n`);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else {
  runParent().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
