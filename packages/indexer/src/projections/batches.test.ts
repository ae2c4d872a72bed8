/**
 * Projections that keep state over a batch (the tokens fold, the wallets memo) write the same rows
 * however blocks are grouped into batches. On six blocks made from recorded mainnet block
 * 18,000,000 (mainnet-chain.fixture.ts), with chain records, tokens and wallets:
 *  - history: one batch per block, one for all six, two batches of two and four — every row the same;
 *  - live: one batch per block, and one batch of six blocks each ending with its own undo record
 *    (BlockBatch.endBlock, steps then seal per block, as the live driver catches up) — every row
 *    the same, and the same state after each single-block rollback down to the first block;
 *  - the projections' tables equal between the history and the live builds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { applyChainRecords } from '../ingest/apply.js';
import { chain as chainAt } from '../ingest/mainnet-chain.fixture.js';
import type { BlockDelta } from '../schema/delta.js';
import { ZERO } from '../schema/rows/tokens.js';
import { transferOf } from '../schema/stateless.js';
import { META } from '../schema/tables/chain.js';
import { TOKENS_TABLES } from '../schema/tables/tokens.js';
import { EDGE_IN, EDGE_OUT, NATIVE_ASSET, WALLETS_TABLES } from '../schema/tables/wallets.js';
import type { BlockBatch, Store } from '../storage/index.js';
import { tempStores } from '../storage/temp-stores.fixture.js';
import { createTokensProjection } from '../tokens/projection.js';
import { createWalletsProjection } from '../wallets/projection.js';
import { drain, type Projection } from './index.js';

const stores = tempStores();
const chain = () => chainAt(FIXTURES_DIR);
afterEach(stores.closeAll);

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const projections = (): Projection[] => [
  createTokensProjection({ launchpads: new Map() }),
  createWalletsProjection({ quoteAssets: [WETH] }),
];

/** Every row, as hex, but the store's random generation id (and, with `keep`, only those it keeps). */
const rowsOf = (s: Store, keep: (k: Buffer) => boolean = () => true) =>
  s.rocks
    .scan({})
    .filter(([k]) => !k.equals(META.key('generation')) && keep(k))
    .map(([k, v]) => `${k.toString('hex')}=${v.toString('hex')}`);

/** Block `d` into `batch`: chain records, then each projection's steps and seal. */
function build(batch: BlockBatch, d: BlockDelta, ps: Projection[], seal: boolean): void {
  applyChainRecords(batch, d);
  for (const p of ps) drain(p.steps!(batch, d));
  if (seal) for (const p of ps) if (p.seal) drain(p.seal(batch));
}

/** History: one batch without undo per group of `sizes` blocks, sealed after its last block. */
async function history(blocks: BlockDelta[], sizes: number[]): Promise<Store> {
  const store = await stores.open('batches-', { unfinalisedWindow: 8 });
  const ps = projections();
  let i = 0;
  for (const size of sizes) {
    const batch = store.newBatch({ undo: false });
    const group = blocks.slice(i, (i += size));
    for (const [j, d] of group.entries()) build(batch, d, ps, j === group.length - 1);
    const last = group[group.length - 1];
    store.commitBatch({ number: last.number, hash: last.hash }, batch);
    await store.settled();
  }
  return store;
}

/**
 * Live: undo records; `grouped` builds every block into one batch (endBlock between blocks). The
 * rows at the head, then after each rollback down to the first block.
 */
async function live(blocks: BlockDelta[], grouped: boolean): Promise<string[][]> {
  const store = await stores.open('batches-live-', { unfinalisedWindow: 8 });
  const ps = projections();
  if (grouped) {
    const batch = store.newBatch();
    for (const [j, d] of blocks.entries()) {
      if (j > 0) store.endBlock({ number: blocks[j - 1].number, hash: blocks[j - 1].hash }, batch);
      build(batch, d, ps, true);
    }
    const last = blocks[blocks.length - 1];
    store.commitBatch({ number: last.number, hash: last.hash }, batch);
  } else {
    for (const d of blocks)
      store.commitBlock({ number: d.number, hash: d.hash }, (b) => build(b, d, ps, true));
  }
  await store.settled();
  const states = [rowsOf(store)];
  for (let i = 1; i < blocks.length; i++) {
    store.rollbackHead();
    await store.settled();
    states.push(rowsOf(store));
  }
  return states;
}

describe('projections folded over a batch write the same rows however blocks are batched', () => {
  it('history: one batch per block, one for all, two batches', async () => {
    const blocks = chain();
    const perBlock = rowsOf(await history(blocks, [1, 1, 1, 1, 1, 1]));
    expect(perBlock.length).toBeGreaterThan(1000);
    expect(rowsOf(await history(blocks, [6]))).toEqual(perBlock);
    expect(rowsOf(await history(blocks, [2, 4]))).toEqual(perBlock);
  });

  it('live: one batch per block and one catch-up batch of six hold the same rows, before and after each rollback', async () => {
    const blocks = chain();
    const perBlock = await live(blocks, false);
    const grouped = await live(blocks, true);
    expect(grouped).toEqual(perBlock);
    // Rolled back to the first block: what one block alone writes.
    const first = await live(blocks.slice(0, 1), false);
    expect(perBlock.at(-1)).toEqual(first[0]);
  });

  it("the projections' tables are the same built as history and built live", async () => {
    const blocks = chain();
    const ids = new Set([...TOKENS_TABLES, ...WALLETS_TABLES].map((t) => t.id.toString(16).padStart(2, '0')));
    const mine = (row: string) => ids.has(row.slice(0, 2));
    const h = rowsOf(await history(blocks, [6])).filter(mine);
    const l = (await live(blocks, true))[0].filter(mine);
    expect(h.length).toBeGreaterThan(1000);
    expect(l).toEqual(h);
  });

  it('the funding edges equal a recount from the transfers (count, total, first and last block, both indices)', async () => {
    const blocks = chain();
    const want = new Map<string, { count: number; total: bigint; first: number; last: number }>();
    const edge = (w: string, funder: string, asset: string, value: bigint, n: number) => {
      if (funder === ZERO || w === funder || value === 0n) return; // (a burn funds the zero address: as the projection counts it)
      const k = `${w} ${funder} ${asset}`;
      const e = want.get(k) ?? { count: 0, total: 0n, first: n, last: n };
      want.set(k, e);
      e.count++;
      e.total += value;
      e.last = n;
    };
    for (const d of blocks) {
      for (const tx of d.txs)
        if (tx.status === 1 && tx.to && BigInt(tx.value) > 0n)
          edge(tx.to, tx.from, NATIVE_ASSET, BigInt(tx.value), d.number);
      for (const e of d.events) {
        const m = transferOf(e);
        if (m) edge(m.to, m.from, e.address, m.value, d.number);
      }
    }
    expect(want.size).toBeGreaterThan(100);
    for (const sizes of [[6], [1, 1, 1, 1, 1, 1]]) {
      const view = (await history(blocks, sizes)).view();
      try {
        for (const [k, e] of want) {
          const [w, funder, asset] = k.split(' ') as [`0x${string}`, `0x${string}`, `0x${string}`];
          const row = view.get(EDGE_IN, w, funder, asset);
          expect(row, k).toMatchObject({ count: e.count, total: e.total.toString(), lastBlock: e.last });
          expect(row?.first.block).toBe(e.first);
          expect(view.has(EDGE_OUT, funder, w, asset), k).toBe(true);
        }
        expect(view.count(EDGE_IN, {}, 1_000_000)).toBe(want.size);
        expect(view.count(EDGE_OUT, {}, 1_000_000)).toBe(want.size);
      } finally {
        view.close();
      }
    }
  });
});
