/**
 * The traces lane reads the block it traces consistently: a view is not a snapshot, so a rollback
 * and the replacing block landing between the walk of a block's transactions and the read of its
 * hash must not pair the dropped block's transactions with the new block's hash (the soak, seed 17,
 * kept 30 "unknown transaction" statuses under a replacing block with no transactions).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TX } from '../schema/tables/chain.js';
import type { Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import type { View } from '../storage/view.js';
import { committedBlock } from './traces.js';

const stores = tempStores();
afterEach(stores.closeAll);
const h = (tag: number) => `0x${tag.toString(16).padStart(64, '0')}` as `0x${string}`;

/** Commits block `n` with hash `hash` holding transactions `txs` (their hashes), as the node sends them. */
function commit(store: Store, n: number, hash: `0x${string}`, txs: string[]): void {
  store.commitBlock({ number: n, hash }, (b) => {
    for (const [i, tx] of txs.entries())
      b.insert(TX, [n, i], JSON.stringify({ hash: tx, blockHash: hash, blockNumber: `0x${n.toString(16)}` }));
  });
}

/** `store` whose next `times` views run `during` right after their first transaction walk. */
function interleaved(store: Store, times: number, during: () => void): Store {
  let left = times;
  return {
    ...store,
    view(): View {
      const v = store.view();
      const eachValue = v.eachValue.bind(v) as View['eachValue'];
      v.eachValue = ((t, b, visit) => {
        eachValue(t, b, visit);
        if ((t as unknown) === TX && left > 0) {
          left--;
          during();
        }
      }) as View['eachValue'];
      return v;
    },
  };
}

describe('traces lane: the block it traces', () => {
  it('pairs the hash with the transactions of the same block when a reorg lands mid-read', async () => {
    const store = await stores.open('traces-', { unfinalisedWindow: 16, writer: 'sync' });
    commit(store, 1, h(0x1), ['0xaa01']);
    commit(store, 2, h(0x2), ['0xaa02', '0xbb02', '0xcc02']);
    // The dropped block's transactions are walked, then block 2 is replaced by one without any.
    const racing = interleaved(store, 1, () => {
      store.rollbackHead();
      commit(store, 2, h(0x2f), []);
    });
    const read = committedBlock(racing, 2);
    expect(read).toEqual({ hash: h(0x2f), hashes: [] });
  });

  it('gives up (no hash: the lane re-plans) while writes keep landing mid-read', async () => {
    const store = await stores.open('traces-', { unfinalisedWindow: 16, writer: 'sync' });
    commit(store, 1, h(0x1), ['0xaa01']);
    let k = 0;
    const racing = interleaved(store, 100, () => {
      store.rollbackHead();
      commit(store, 1, h(0x100 + ++k), [`0xdd0${k}`]);
    });
    expect(committedBlock(racing, 1)).toEqual({ hash: undefined, hashes: [] });
  });

  it('reads a quiet block as stored', async () => {
    const store = await stores.open('traces-', { unfinalisedWindow: 16, writer: 'sync' });
    commit(store, 1, h(0x1), ['0xaa01', '0xbb01']);
    expect(committedBlock(store, 1)).toEqual({ hash: h(0x1), hashes: ['0xaa01', '0xbb01'] });
    expect(committedBlock(store, 2)).toEqual({ hash: undefined, hashes: [] });
  });
});
