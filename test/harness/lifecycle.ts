/**
 * Suite lifecycle helpers shared by the end-to-end files.
 */

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
