/**
 * Chain records from a decode worker's encoded rows (ingest/apply.ts): a probe row the tokens
 * projection's `prepare` adds to a block (tokens first seen by a Transfer log, probed on the main
 * thread) is undone with the block. Found by the soak (issue U): the row was written without an
 * undo entry, so after a reorg the dropped block's probes stayed (a store differing from a fresh
 * index in table 0x0c).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockDelta } from '../schema/delta.js';
import { PROBE } from '../schema/tables/chain.js';
import type { Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { applyChainRecords } from './apply.js';
import { emptyBlock } from './empty-block.fixture.js';

const stores = tempStores();
afterEach(stores.closeAll);
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;

/** An empty block `n` as the decode worker hands it over (encoded rows, no probes of its own). */
const block = (n: number): BlockDelta => emptyBlock(n, hash(n + 1), hash(n));

const probed = (s: Store, n: number) => {
  const v = s.view();
  try {
    return v.get(PROBE, n);
  } finally {
    v.close();
  }
};

describe('chain records from encoded rows', () => {
  it("a probe added by a projection's prepare is rolled back with its block", async () => {
    const store = await stores.open('apply-', { unfinalisedWindow: 16 });
    for (const n of [0, 1]) {
      const d = block(n);
      // What the tokens projection's prepare does for a token first seen by its Transfer log.
      if (n === 1)
        d.probes[`0x${'ab'.repeat(20)}`] = {
          name: { value: 'Uniswap V2', reason: null, encoding: 'string' },
        } as unknown as BlockDelta['probes'][string];
      const batch = store.newBatch();
      applyChainRecords(batch, d);
      store.commitBatch({ number: n, hash: d.hash }, batch);
    }
    await store.settled();
    expect(probed(store, 1)).toBeDefined();
    store.rollbackHead();
    await store.settled();
    expect(store.head()?.number).toBe(0);
    expect(probed(store, 1)).toBeUndefined();
  });
});
