/**
 * Helpers for scale-out end-to-end tests: a writer (ROLE=writer) and a replica (ROLE=replica)
 * compared through their own /health change-log figures.
 */
import { expect } from 'vitest';
import type { IndexerProcess } from './indexer.js';

/** Body of a GET that must answer 200 (the status check names the path and the body's start). */
export async function okBody(p: IndexerProcess, path: string): Promise<any> {
  const r = await p.get(path);
  expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
  return r.body;
}

/** The writer's published and pending change-log sequences and the replica's applied one. */
export async function changeLogPositions(
  writer: IndexerProcess,
  replica: IndexerProcess,
): Promise<{ published: number; pending: number; applied: number }> {
  const w = (await okBody(writer, '/health')).replication.publisher;
  const r = (await okBody(replica, '/health')).replication.replica;
  return { published: w.publishedSequence, pending: w.pending, applied: r.appliedSequence };
}

/**
 * Reads `path` on the writer and on the replica at one change-log position. The writer's log also
 * carries non-block writes (reconciler verdicts) while the head is frozen, so a pair is kept only
 * when the replica had applied everything published and no entry was published during the reads.
 * Tries 100 times; `settled` says whether a pair was kept (else `pair` is the last one read, or
 * nulls when the replica never caught up).
 */
export async function atOneChangeLogPosition(
  writer: IndexerProcess,
  replica: IndexerProcess,
  path: string,
): Promise<{ pair: [any, any]; settled: boolean }> {
  let pair: [any, any] = [null, null];
  for (let i = 0; i < 100; i++) {
    const before = await changeLogPositions(writer, replica);
    if (before.pending !== 0 || before.applied < before.published) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    pair = [await okBody(writer, path), await okBody(replica, path)];
    const after = await changeLogPositions(writer, replica);
    if (after.pending === 0 && after.published === before.published && after.applied === before.applied)
      return { pair, settled: true };
  }
  return { pair, settled: false };
}
