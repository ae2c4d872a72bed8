// Storage benchmark parent: spawns one child per binding (the entry script with `--child <name>`),
// aggregates, prints a table and writes bench/storage/results.json.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BindingResult } from './adapter.js';
import {
  BINDINGS,
  type BindingName,
  CACHE_BYTES,
  CFG,
  CONCURRENCY,
  GET_BATCH,
  log,
  ONLY,
  QUICK,
  VALUE_SIZE,
} from './config.js';
import { now, type Stats } from './measure.js';

/** The line a child prints its result on. */
export const MARK = '@@STORAGE_BENCH_RESULT@@';
/** dist/bench/storage: the entry script (run.js) and, outside a source checkout, results.json. */
const here = path.dirname(fileURLToPath(import.meta.url));

function spawnChild(name: BindingName): Promise<BindingResult> {
  return new Promise((resolve, reject) => {
    const args = [path.join(here, 'run.js'), '--child', name, ...(QUICK ? ['--quick'] : [])];
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

export async function runParent(): Promise<void> {
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
  const srcDir = path.resolve(here, '..', '..', '..', 'bench', 'storage');
  const outDir = fs.existsSync(srcDir) ? srcDir : here;
  const outFile = path.join(outDir, 'results.json');
  fs.writeFileSync(outFile, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(
    `\nwrote ${path.relative(process.cwd(), outFile)} (total ${totalSeconds} s; load avg ${loadStart.join('/')} -> ${doc.machine.loadAvgEnd.join('/')})`,
  );
}
