/** Polling helpers of the suites. */
import type { IndexerProcess } from './indexer.js';

/**
 * GETs `path` on `idx` every `everyMs` until it answers `status` or `ms` pass; returns that
 * answer, or null when it never came.
 */
export async function firstAnswerWith(
  idx: IndexerProcess,
  path: string,
  status: number,
  ms: number,
  everyMs: number,
): Promise<{ status: number; body: any } | null> {
  for (const t0 = Date.now(); Date.now() - t0 < ms; ) {
    const r = await idx.get(path);
    if (r.status === status) return r;
    await new Promise((res) => setTimeout(res, everyMs));
  }
  return null;
}
