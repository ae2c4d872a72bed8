/**
 * Sliced projection builds (`Projection.steps`): live ingest pauses a dense block's build between
 * slices so HTTP reads run. On two recorded mainnet blocks (17000000, then 18000000 on top of it), the
 * tokens and wallets projections built slice by slice, with the event loop turning between every
 * slice, must (1) yield many times on a dense block, (2) leave the store exactly at the previous
 * block at every pause (no row of the block in progress is visible: each key written so far still
 * holds the prior value the undo record saved), and (3) commit byte-for-byte the rows `apply`
 * commits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { applyChainRecords } from '../ingest/apply.js';
import type { BlockDelta } from '../schema/delta.js';
import { META } from '../schema/tables/chain.js';
import type { Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { createTokensProjection } from '../tokens/projection.js';
import { createWalletsProjection } from '../wallets/projection.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';
import type { Projection } from './index.js';

const stores = tempStores();
afterEach(stores.closeAll);

const blockOf = (n: number): BlockDelta => {
  const read = (f: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, 'ethereum', String(n), f), 'utf8'));
  return shapeBlock(read('block.json'), read('receipts.json'));
};

const openStore = (): Promise<Store> => stores.open('slices-', { unfinalisedWindow: 8 });

const projections = (): Projection[] => [
  createTokensProjection({ launchpads: new Map() }),
  createWalletsProjection({ quoteAssets: [] }),
];

/** Every row, as hex, but the store's random generation id. */
const rowsOf = (s: Store) =>
  s.rocks
    .scan({})
    .filter(([k]) => !k.equals(META.key('generation')))
    .map(([k, v]) => `${k.toString('hex')}=${v.toString('hex')}`);

describe('sliced projection builds', () => {
  it('a dense block yields often, shows nothing of itself while paused, and commits what apply commits', async () => {
    const first = blockOf(17000000);
    const second = blockOf(18000000);
    expect(second.txs.length).toBeGreaterThan(90);

    const whole = await openStore();
    const sliced = await openStore();
    const ps = projections();
    for (const s of [whole, sliced])
      s.commitBlock({ number: first.number, hash: first.hash }, (b) => {
        applyChainRecords(b, first);
        for (const p of ps) p.apply(b, first);
      });
    whole.commitBlock({ number: second.number, hash: second.hash }, (b) => {
      applyChainRecords(b, second);
      for (const p of ps) p.apply(b, second);
    });

    const batch = sliced.newBatch();
    applyChainRecords(batch, second);
    let pauses = 0;
    // Each projection's slices, then its seal's (what it folded over the batch: a range of one).
    const slices = function* (p: (typeof ps)[number]) {
      yield* p.steps!(batch, second);
      if (p.seal) yield* p.seal(batch);
    };
    for (const p of ps) {
      expect(p.steps).toBeDefined();
      for (const _ of slices(p)) {
        pauses++;
        await new Promise((r) => setImmediate(r));
        // What a read at this instant sees: the previous block whole, nothing of this one.
        const v = sliced.view();
        expect(v.head).toEqual({ number: first.number, hash: first.hash });
        v.close();
        const prior = new Map<string, Buffer | null>();
        for (const u of batch.undo ?? []) {
          const k = u.key.toString('latin1');
          if (!prior.has(k)) prior.set(k, u.prior);
        }
        const keys = [...prior.keys()].map((k) => Buffer.from(k, 'latin1'));
        const now = sliced.rocks.getMany(keys);
        for (let i = 0; i < keys.length; i++)
          expect(now[i] ?? null, keys[i].toString('hex')).toEqual(prior.get(keys[i].toString('latin1')));
      }
    }
    // 94 transactions and their transfers, cut every 16 rows.
    expect(pauses).toBeGreaterThanOrEqual(8);
    sliced.commitBatch({ number: second.number, hash: second.hash }, batch);
    expect(rowsOf(sliced)).toEqual(rowsOf(whole));
  });
});
