/**
 * The as-of section's report (bench/release/as-of-report.ts): the ratios against the head, the
 * verdict of each run, and the markdown's rows, from fixed figures (no timing here); and the
 * release bench's `--only` flag that runs the section alone.
 */
import { describe, expect, it } from 'vitest';
import {
  type AsOfFacts,
  type AsOfRoute,
  type AsOfRun,
  asOfMarkdown,
  runMet,
} from './release/as-of-report.js';
import { parseArgs } from './release/context.js';

const lat = (p50: number, p99: number) => ({ n: 1000, p50, p99, p999: p99 * 2 });
const run = (c: number, head: [number, number], deep: [number, number], bad = 0): AsOfRun => ({
  connections: c,
  head: lat(...head),
  deep: lat(...deep),
  recent: lat(...head),
  bad,
  load: 1.5,
});
const facts: AsOfFacts = {
  date: '2026-12-01',
  commit: 'abc1234',
  dirty: false,
  mode: 'quick',
  machine: '2 CPU',
  loadStart: [1.2, 1.5, 1.8],
  loadEnd: [1.9, 1.6, 1.7],
  rerun: 'npm run bench -- --only as-of --quick',
  chain: ['a chain'],
  subjects: ['a token'],
  method: ['a client'],
  head: 10_120,
  n: 120,
  recent: 10_115,
  notes: ['as-of: a note'],
  misses: [],
};

describe('as-of budget: N p50 ≤ 2 × and p99 ≤ 3 × the head, every answer anchored', () => {
  it('met at exactly 2 × p50 and 3 × p99; not met just past either; never with a bad answer', () => {
    expect(runMet(run(1, [1, 2], [2, 6]))).toBe(true);
    expect(runMet(run(1, [1, 2], [2.01, 2]))).toBe(false);
    expect(runMet(run(32, [1, 2], [1, 6.1]))).toBe(false);
    expect(runMet(run(32, [1, 2], [1, 2], 1))).toBe(false);
  });

  it('the markdown counts the runs met and gives each route and concurrency its row with the ratios', () => {
    const routes: AsOfRoute[] = [
      { name: '/tokens/{address}', path: '/tokens/0xt', differs: true, runs: [run(1, [0.5, 1], [0.6, 1.2])] },
      { name: 'V3 /pools/{address}', path: '/pools/0xp', differs: false, runs: [run(32, [4, 8], [9, 30])] },
    ];
    const md = asOfMarkdown(facts, routes);
    expect(md).toContain('**1 of 2 route × concurrency runs met** (2 routes; N = 120 = head 10,120 − 10,000');
    expect(md).toContain('| /tokens/{address} | 1 | 0.500 / 1.00 | 0.600 / 1.20 | 1.20× | 1.20× |');
    expect(md).toContain('| V3 /pools/{address} | 32 | 4.00 / 8.00 | 9.00 / 30.0 | 2.25× | 3.75× |');
    expect(md).toMatch(/\| no \| \*\*not met\*\* \(p50, p99\) \|/);
    expect(md).toContain('Rerun: `npm run bench -- --only as-of --quick`');
    expect(md).toContain('Load average at the start 1.20 / 1.50 / 1.80');
    expect(md).not.toContain('## Misses');
  });
});

describe('npm run bench -- --only as-of', () => {
  it('names the sections to run alone; an unknown one is refused', () => {
    expect(parseArgs(['--only', 'as-of', '--quick'])).toMatchObject({ only: ['as-of'], quick: true });
    expect(parseArgs([]).only).toBeNull();
    expect(() => parseArgs(['--only', 'streams'])).toThrow(/--only takes as-of/);
  });
});
