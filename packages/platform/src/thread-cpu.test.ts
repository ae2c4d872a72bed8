/**
 * threadCpuMicros counts the calling thread's own CPU: a busy loop here moves it, another thread's does not.
 * threadRunDelayMicros counts its wait for a CPU: it grows while more threads spin than there are cores.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpuMicros, threadRunDelayMicros } from './thread-cpu.js';

/** A fixed amount of work (CPU time does not depend on how loaded the machine is). */
const work = (n: number) => {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) % 1_000_003;
  return x;
};

describe('threadCpuMicros', () => {
  it("grows with this thread's work, not with another thread's", async () => {
    const t0 = threadCpuMicros();
    expect(t0).not.toBeNull();
    const w = new Worker('const e = Date.now() + 400; while (Date.now() < e);', { eval: true });
    await new Promise((r) => w.once('exit', r));
    const t1 = threadCpuMicros()!;
    expect(t1 - t0!).toBeLessThan(200_000); // the worker's 400 ms are not ours
    const w0 = performance.now();
    work(50_000_000);
    const took = performance.now() - w0;
    const t2 = threadCpuMicros()!;
    // At most the wall time it took (plus a /proc tick), and a good part of it (it ran on this thread).
    expect(t2 - t1).toBeLessThanOrEqual(took * 1000 + 20_000);
    expect(t2 - t1).toBeGreaterThan(0);
  });
});

describe('threadRunDelayMicros', () => {
  it('grows while this thread is runnable behind more spinning threads than there are cores', async () => {
    const d0 = threadRunDelayMicros();
    const c0 = threadCpuMicros()!;
    expect(d0).not.toBeNull(); // Linux: /proc/thread-self/schedstat
    // Spinners that run until told to stop (a shared flag), so all of them spin through the loop below.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const spin =
      'const { parentPort, workerData } = require("node:worker_threads"); const f = new Int32Array(workerData); parentPort.postMessage(0); while (Atomics.load(f, 0) === 0);';
    const workers = Array.from(
      { length: 3 * availableParallelism() + 1 },
      () => new Worker(spin, { eval: true, workerData: stop.buffer }),
    );
    let wall: number;
    let d1: number;
    let c1: number;
    try {
      await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
      const t0 = performance.now();
      while (performance.now() - t0 < 600); // runnable all along, sharing the cores with the spinners
      wall = (performance.now() - t0) * 1000;
      d1 = threadRunDelayMicros()!;
      c1 = threadCpuMicros()!;
    } finally {
      Atomics.store(stop, 0, 1);
      await Promise.all(workers.map((w) => new Promise((r) => w.once('exit', r))));
    }
    // 3 × cores + 2 runnable threads on `cores` cores: a fair share runs this one at most a third
    // of the 600 ms (a quarter on two cores) and keeps it waiting the rest — longer waiting than
    // running, which is how the wait differs from the CPU time —, and it never waits longer than
    // the loop took.
    expect(d1 - d0!).toBeGreaterThan(wall * 0.2);
    expect(d1 - d0!).toBeGreaterThan(1.2 * (c1 - c0));
    expect(d1 - d0!).toBeLessThanOrEqual(wall + 20_000);
  });

  it('does not grow while this thread sleeps', async () => {
    const d0 = threadRunDelayMicros()!;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const wall = (performance.now() - t0) * 1000;
    // Asleep is not waiting for a CPU: only the wake-up's own wait can count (well under the sleep).
    expect(threadRunDelayMicros()! - d0).toBeLessThan(wall / 2);
  });
});
