/** The live block timeline's intervals (timeline.ts): each step, the worker's marks, clock skew. */
import { describe, expect, it } from 'vitest';
import { LIVE_STAGES, type LiveTimeline, stageIntervals } from './timeline.js';

const base: LiveTimeline = {
  seen: 1_000,
  posted: 1_001.5,
  marks: { start: 1_002, fetched: 1_010, verified: 1_014, shaped: 1_020, encoded: 1_021 },
  received: 1_025,
  ready: 1_026,
  built: 1_040,
  visible: 1_050,
};

describe('live block timeline', () => {
  it('splits head poll to visible into consecutive steps that add up to the total', () => {
    const s = stageIntervals(base);
    expect(s).toEqual({
      plan: 1.5,
      queue: 0.5,
      fetch: 8,
      verify: 4,
      shape: 6,
      encode: 1,
      handoff: 4,
      wait: 1,
      build: 14,
      rows: 0,
      write: 10,
      post: 0,
      puts: 0,
      commit: 0,
      ack: 0,
      total: 50,
    });
    // post, puts, commit and ack split `write` (zero here: no writer marks); rows is part of build.
    const SPLIT = ['rows', 'post', 'puts', 'commit', 'ack', 'total'];
    const sum = LIVE_STAGES.filter((k) => !SPLIT.includes(k)).reduce((a, k) => a + s[k], 0);
    expect(sum).toBe(s.total);
    expect(Object.keys(s)).toEqual([...LIVE_STAGES]);
  });

  it("the writer thread's marks split write into post, puts, commit and ack", () => {
    const s = stageIntervals({ ...base, writer: { received: 1_041, applied: 1_044, written: 1_048 } });
    expect([s.post, s.puts, s.commit, s.ack]).toEqual([1, 3, 4, 2]);
    expect(s.post + s.puts + s.commit + s.ack).toBe(s.write);
  });

  it("the wait for an early task's late rows is a part of build", () => {
    const s = stageIntervals({ ...base, rows: { asked: 1_036, in: 1_038.5 } });
    expect(s.rows).toBe(2.5);
    expect(s.build).toBe(14);
  });

  it('without worker marks, the worker time counts as handoff', () => {
    const s = stageIntervals({ ...base, marks: undefined });
    expect(s.queue + s.fetch + s.verify + s.shape + s.encode).toBe(0);
    expect(s.handoff).toBe(23.5);
  });

  it('a worker clock a little ahead of the ingest thread never gives a negative step', () => {
    const s = stageIntervals({ ...base, marks: { ...base.marks!, start: 1_001.4 } });
    expect(s.queue).toBe(0);
    for (const k of LIVE_STAGES) expect(s[k]).toBeGreaterThanOrEqual(0);
  });
});
