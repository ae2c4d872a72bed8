/** threadCpuMicros counts the calling thread's own CPU: a busy loop here moves it, another thread's does not. */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadCpuMicros } from './thread-cpu.js';

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
