// Storage benchmark measurement: per-operation timing (sync ops yield a turn between operations,
// async ops with N in flight), latency percentiles, GC pauses from perf_hooks, and small helpers.

import fs from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

export const now = (): bigint => process.hrtime.bigint();
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface Stats {
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
export function startGcObserver(): void {
  gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcLog.push({ start: e.startTime, dur: e.duration });
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}
export async function gcBetween(
  t0: number,
  t1: number,
): Promise<Pick<Stats, 'gcCount' | 'gcTotalMs' | 'gcMaxMs'>> {
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

export function stats(
  samplesNs: Float64Array,
  wallNs: number,
): Omit<Stats, 'gcCount' | 'gcTotalMs' | 'gcMaxMs'> {
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
export function rng(seed: number): () => number {
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

export function dirSize(dir: string): number {
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
export async function measureSync(n: number, warmup: number, op: (i: number) => void): Promise<Stats> {
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
export async function measureAsync(
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

export function check(cond: boolean, msg: string): void {
  if (!cond) throw new Error(`verification failed: ${msg}`);
}

export function stopGcObserver(): void {
  gcObserver?.disconnect();
}
