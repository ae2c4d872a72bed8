import { describe, expect, it } from 'vitest';
import { BUDGETS, type Figure, judge, markdown, type Results } from './report.js';

const point = (id: string, value: number, hello: number, budget: Figure['budget']): Figure =>
  judge({
    id,
    group: 'Point read',
    label: id,
    value,
    unit: 'ms',
    better: 'lower',
    baseline: { label: 'uWS hello c=1', value: hello, unit: 'ms' },
    budget,
    status: 'measured',
  });

describe('c=1 latency budgets are same-run ratios to the bare uWS hello', () => {
  it('p50 ≤ 2 × the hello p50: met at 2.0×, not met above', () => {
    expect(point('p50.at', 0.5, 0.25, BUDGETS.pointP50c1)).toMatchObject({ ratio: 2, met: true });
    expect(point('p50.over', 0.51, 0.25, BUDGETS.pointP50c1)).toMatchObject({ met: false });
  });

  it('p99 ≤ 1.5 × the hello p99 whatever the machine: 3 ms is met beside a 2.5 ms hello, 1 ms is not beside 0.5 ms', () => {
    expect(point('p99.slowMachine', 3, 2.5, BUDGETS.pointP99c1).met).toBe(true);
    expect(point('p99.fastMachine', 1, 0.5, BUDGETS.pointP99c1).met).toBe(false);
  });

  it('the markdown report prints the baseline, the ratio and the budget text of each figure', () => {
    const f = point('read.block.c1.p99', 3, 2.5, BUDGETS.pointP99c1);
    const r: Results = {
      schema: 1,
      date: '2026-12-01',
      commit: 'abc1234',
      mode: 'quick',
      startedAt: '2026-12-01T00:00:00Z',
      seconds: 1,
      machine: { cpus: 2, cpuModel: 'x', memGiB: 24, node: 'v22', platform: 'linux' },
      config: {},
      chain: {},
      figures: [f],
      hardFailures: [],
      notes: [],
    };
    const md = markdown(r);
    expect(md).toContain('p99 ≤ 1.5 × the bare uWS hello p99 of this run (c=1)');
    expect(md).toContain(
      '| Point read: read.block.c1.p99 | 3.00 ms | 2.50 ms (uWS hello c=1) | 120.0 % | p99 ≤ 1.5 × the bare uWS hello p99 of this run (c=1) | met |',
    );
  });
});
