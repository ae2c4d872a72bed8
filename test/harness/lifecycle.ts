/**
 * Suite lifecycle helpers shared by the end-to-end files.
 */
import { afterAll } from 'vitest';

/** Something a suite started and stops (or closes) at the end (an indexer, a devnet, a proxy, …). */
type Stoppable = { stop(): Promise<unknown> } | { close(): Promise<unknown> };

/**
 * An `afterAll` hook that stops (or closes) each part `parts()` lists, in that order (an indexer before its
 * node); a part the suite never started (undefined or null) is skipped. `parts` is read when the
 * hook runs, so it sees what `beforeAll` assigned.
 */
export const stopAll = (parts: () => Array<Stoppable | undefined | null>) => async (): Promise<void> => {
  for (const part of parts()) if (part) await ('stop' in part ? part.stop() : part.close());
};

/**
 * A clean-up list run (in reverse, each failure ignored) by an `afterAll` this registers: push
 * what a test started as it starts it.
 */
export function cleanupAfterAll(): Array<() => Promise<unknown> | unknown> {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const f of cleanup.reverse()) await Promise.resolve(f()).catch(() => {});
  });
  return cleanup;
}
