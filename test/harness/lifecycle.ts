/**
 * Suite lifecycle helpers shared by the end-to-end files.
 */

/** Something a suite started and stops at the end (an indexer, a devnet, an anvil node, …). */
interface Stoppable {
  stop(): Promise<unknown>;
}

/**
 * An `afterAll` hook that stops each part `parts()` lists, in that order (an indexer before its
 * node); a part the suite never started (undefined or null) is skipped. `parts` is read when the
 * hook runs, so it sees what `beforeAll` assigned.
 */
export const stopAll = (parts: () => Array<Stoppable | undefined | null>) => async (): Promise<void> => {
  for (const part of parts()) await part?.stop();
};
