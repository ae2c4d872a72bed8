/**
 * The serving thread first (Linux): every other thread of the process gets the given nice value,
 * threads that appear later included; the calling thread keeps its own.
 */
import { existsSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { deprioritiseOtherThreads, niceOf } from './thread-priority.js';

/** Starts a thread that reports its kernel task id and then idles until terminated. */
async function thread(): Promise<{ tid: number; stop: () => Promise<number> }> {
  const w = new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.postMessage(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()));
     setInterval(() => {}, 1000);`,
    { eval: true },
  );
  const tid = await new Promise<number>((r) => w.once('message', r));
  return { tid, stop: () => w.terminate() };
}

describe.runIf(existsSync('/proc/self/task'))('thread priority', () => {
  it('lowers every other thread, later ones too, and leaves the calling thread as it was', async () => {
    const self = Number(readlinkSync('/proc/thread-self').split('/').pop());
    const before = niceOf(self);
    const a = await thread();
    const p = deprioritiseOtherThreads(7);
    try {
      expect(p.nice).toBe(7);
      expect(niceOf(a.tid)).toBe(7);
      expect(niceOf(self)).toBe(before);
      const b = await thread();
      // A thread started afterwards is found by the next rescan (every 2 s).
      for (let i = 0; i < 60 && niceOf(b.tid) !== 7; i++) await new Promise((r) => setTimeout(r, 100));
      expect(niceOf(b.tid)).toBe(7);
      await b.stop();
    } finally {
      p.stop();
      await a.stop();
    }
  });

  it('0 turns it off', () => {
    const p = deprioritiseOtherThreads(0);
    expect(p.nice).toBe(0);
    expect(p.threads()).toBe(0);
    p.stop();
  });
});
