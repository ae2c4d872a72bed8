/**
 * The balance fold (fold.ts) writes over a range what a block-by-block build writes. A chain of six
 * blocks made from recorded mainnet block 18,000,000 (94 transactions, ERC-20 and WETH transfers
 * among real wallets, mints and burns included): the block as recorded (A) and reversed (B: every
 * Transfer's from and to swapped, every WETH Deposit a Withdrawal and back), in the order
 * A A B A B B — balances go up, come back to the same value, cross zero, go negative and return, so
 * holder rows retire and come back under the same key, rows are deleted and made again. Indexed
 * three ways into fresh stores — one batch per block, one batch for all six (a history segment),
 * two batches of two and four — every row of every table must be byte-for-byte the same; and a
 * live build (undo records) must hold the same token rows as the rest. Since every build runs the
 * fold (a block is a range of one), the rows are also held to a recount from the logs: as of every
 * block of the six, each wallet's balance, each token's counters and both holder lists.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import { applyChainRecords } from '../../ingest/apply.js';
import { chain as chainAt } from '../../ingest/mainnet-chain.fixture.js';
import { drain } from '../../projections/index.js';
import type { BlockDelta } from '../../schema/delta.js';
import { BURN_SINKS, ZERO } from '../../schema/rows/tokens.js';
import { transferOf } from '../../schema/stateless.js';
import { META } from '../../schema/tables/chain.js';
import { STATS, TOKENS_TABLES } from '../../schema/tables/tokens.js';
import type { Store } from '../../storage/index.js';
import { tempStores } from '../../storage/temp-stores.fixture.js';
import type { HolderIdRow, HolderRow } from '../primitives.js';
import { createTokensProjection } from '../projection.js';
import { balanceAt, statsAt } from '../read.js';
import { TOKEN_WALKS } from '../walks.js';

const stores = tempStores();
const chain = () => chainAt(FIXTURES_DIR);
afterEach(stores.closeAll);

/** Every row, as hex, but the store's random generation id. */
const rowsOf = (s: Store, keep: (k: Buffer) => boolean = () => true) =>
  s.rocks
    .scan({})
    .filter(([k]) => !k.equals(META.key('generation')) && keep(k))
    .map(([k, v]) => `${k.toString('hex')}=${v.toString('hex')}`);

/** Indexes `blocks` into a fresh store, one batch (no undo) per group of `sizes` blocks. */
async function indexInBatches(blocks: BlockDelta[], sizes: number[]): Promise<Store> {
  const store = await stores.open('fold-', { unfinalisedWindow: 8 });
  const tokens = createTokensProjection({ launchpads: new Map() });
  let i = 0;
  for (const size of sizes) {
    const batch = store.newBatch({ undo: false });
    const group = blocks.slice(i, i + size);
    i += size;
    for (const d of group) {
      applyChainRecords(batch, d);
      drain(tokens.steps!(batch, d));
    }
    drain(tokens.seal!(batch));
    const last = group[group.length - 1];
    store.commitBatch({ number: last.number, hash: last.hash }, batch);
    await store.settled();
  }
  return store;
}

describe('balances folded over a batch', () => {
  it('one batch per block, one for all, and two batches write the same rows', async () => {
    const blocks = chain();
    const transfers = blocks[0].events.filter((e) => e.event === 'Transfer').length;
    expect(transfers).toBeGreaterThan(50);
    const perBlock = rowsOf(await indexInBatches(blocks, [1, 1, 1, 1, 1, 1]));
    const segment = rowsOf(await indexInBatches(blocks, [6]));
    const split = rowsOf(await indexInBatches(blocks, [2, 4]));
    expect(perBlock.length).toBeGreaterThan(1000);
    expect(segment).toEqual(perBlock);
    expect(split).toEqual(perBlock);
  });

  it('the live build (undo records, apply = steps then seal) holds the same token rows', async () => {
    const blocks = chain();
    const live = await stores.open('fold-live-', { unfinalisedWindow: 8 });
    const tokens = createTokensProjection({ launchpads: new Map() });
    for (const d of blocks)
      live.commitBlock({ number: d.number, hash: d.hash }, (b) => {
        applyChainRecords(b, d);
        tokens.apply(b, d);
      });
    await live.settled();
    const history = await indexInBatches(blocks, [6]);
    // Every table of the tokens projection, by its id (a key's first byte).
    const ids = new Set(TOKENS_TABLES.map((t) => t.id));
    const tokenTable = (k: Buffer) => ids.has(k[0]);
    const a = rowsOf(live, tokenTable);
    expect(a.length).toBeGreaterThan(10);
    expect(a).toEqual(rowsOf(history, tokenTable));
    // The counters after the last block are the same read back, and supply is exact.
    const s1 = live.view().get(STATS, '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
    const s2 = history.view().get(STATS, '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
    expect(s1).toEqual(s2);
  });
});

/** Balances and counters recounted from the blocks' transfer logs (transfers.ts's semantics). */
function recount(blocks: BlockDelta[]) {
  const balances = new Map<string, Map<string, bigint>>();
  const tallies = new Map<string, { transfers: number; supply: bigint }>();
  return blocks.map((d) => {
    for (const e of d.events) {
      const m = transferOf(e);
      if (!m) continue;
      const t = tallies.get(e.address) ?? { transfers: 0, supply: 0n };
      tallies.set(e.address, t);
      t.transfers++;
      let bal = balances.get(e.address);
      if (!bal) balances.set(e.address, (bal = new Map()));
      const add = (w: string, v: bigint) => bal.set(w, (bal.get(w) ?? 0n) + v);
      if (m.from === ZERO) t.supply += m.value;
      if (m.to === ZERO && m.from !== ZERO) t.supply -= m.value;
      if (m.from === ZERO && m.to === ZERO) add(ZERO, m.value);
      else if (m.from !== m.to) {
        if (m.from !== ZERO) add(m.from, -m.value);
        if (m.to !== ZERO) add(m.to, m.value);
      }
    }
    const snap = new Map<string, { balances: Map<string, bigint>; transfers: number; supply: bigint }>();
    for (const [tk, bal] of balances)
      snap.set(tk, {
        balances: new Map(bal),
        transfers: tallies.get(tk)!.transfers,
        supply: tallies.get(tk)!.supply,
      });
    return { n: d.number, tokens: snap };
  });
}

const page = (at: number) => ({ at, after: null, order: 'asc' as const, limit: 100_000 });

describe('balances folded over a batch, held to a recount', () => {
  it('as of every block: balances, counters and both holder lists equal a recount from the logs', async () => {
    const blocks = chain();
    const store = await indexInBatches(blocks, [6]);
    const view = store.view();
    let checked = 0;
    try {
      for (const { n, tokens } of recount(blocks))
        for (const [tk, r] of tokens) {
          const cls = { holder: 0, sink: 0, negative: 0 };
          const byBalance: string[] = [];
          const byId = new Map<string, bigint>();
          for (const [w, b] of r.balances) {
            expect(balanceAt(view, tk, w, n), `${tk} ${w} at ${n}`).toBe(b);
            checked++;
            if (b === 0n) continue;
            byId.set(w, b);
            if (BURN_SINKS.has(w)) cls.sink++;
            else if (b > 0n) {
              cls.holder++;
              byBalance.push(`${b}:${w}`);
            } else cls.negative++;
          }
          const stats = statsAt(view, tk, n)!;
          expect(stats.transfers).toBe(r.transfers);
          expect(stats.supplyFromTransfers).toBe(r.supply.toString());
          expect({
            holder: stats.holders,
            sink: stats.burnSinkHolders,
            negative: stats.negativeBalances,
          }).toEqual(cls);
          const walked: HolderRow[] = [];
          TOKEN_WALKS.holdersByBalance(view, tk, page(n), (row) => {
            walked.push(row as HolderRow);
            return true;
          });
          expect(walked.map((h) => `${h.balance}:${h.wallet}`).sort()).toEqual(byBalance.sort());
          const ids: HolderIdRow[] = [];
          TOKEN_WALKS.holdersByWalletId(view, tk, page(n), (row) => {
            ids.push(row as HolderIdRow);
            return true;
          });
          expect(new Map(ids.map((h) => [h.wallet, h.balance]))).toEqual(byId);
        }
    } finally {
      view.close();
    }
    expect(checked).toBeGreaterThan(500);
  });
});
