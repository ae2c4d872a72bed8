// Storage benchmark child: all phases for one binding, in a fresh temp dir removed afterwards
// (ingest, point gets, range scans, consistency under a writer, memory and disk, the packed extra).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Adapter, BindingResult } from './adapter.js';
import { type BindingName, CFG, FIRST_BLOCK, log, QUICK, TABLE, VALUE_SIZE } from './config.js';
import { dirSize, gcBetween, now, rng, startGcObserver, stats, stopGcObserver, tick } from './measure.js';
import { nxtAdapter } from './nxtedition.js';
import { rnAdapter } from './rocksdb-native.js';
import { makeKey, makeValue, packedKey, rowKey } from './rows.js';

/** Phase 1, ingest: one atomic batch per block. */
async function writeRows(a: Adapter, batches: number, rowsPerBatch: number): Promise<BindingResult['write']> {
  const totalRows = batches * rowsPerBatch;
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
}

/**
 * Extra: the same rows in a packed layout (one value per block), to see what 1,000-row range
 * reads cost when they are ~21 key/value pairs. Written after the measurements of phases 1–4.
 */
async function writePacked(
  a: Adapter,
  batches: number,
  rowsPerBatch: number,
): Promise<BindingResult['packedWrite']> {
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
}

export async function runChild(name: BindingName): Promise<BindingResult> {
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
    const write = await timed('write', () => writeRows(a, batches, rowsPerBatch));

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
    // Extra: the packed layout (writePacked), then its range reads.
    const packedWrite = await timed('packed write', () => writePacked(a, batches, rowsPerBatch));
    const packedScan = await timed('packed scan', () => a.packedScans(starts, rowsPerBatch));
    memory.rssAfterPackedExtraMB = mb(process.memoryUsage().rss);
    await a.close();
    stopGcObserver();
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
