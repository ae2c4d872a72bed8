/**
 * The reconciler asks again before it publishes a mismatch: a node can answer a call at its newest
 * block from the state of the block it is building (anvil while it mines: the soak's "node
 * races"). Indexed figures come from a recorded devnet block (real Uniswap V2 bytecode's first
 * mint); the node's answers are scripted from the values recorded with it (`expected.json`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import type { Rpc } from '../rpc/client.js';
import { ZERO } from '../schema/rows/tokens.js';
import { createStore, type Store } from '../storage/index.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';
import { createTokensProjection } from './projection.js';
import { balanceAt } from './read.js';
import { reconcileToken } from './reconcile.js';

const SET = 'devnet/v2-first-mint';
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function indexed(): Promise<{ store: Store; block: number; pair: string; supply: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'reconcile-'));
  dirs.push(dir);
  const store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
  stores.push(store);
  const read = (f: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, SET, f), 'utf8'));
  const d = shapeBlock(read('block.json'), read('receipts.json'));
  const tokens = createTokensProjection({ launchpads: new Map() });
  store.commitBlock({ number: d.number, hash: d.hash }, (batch) => tokens.apply(batch, d));
  const e = read('expected.json');
  return { store, block: d.number, pair: e.pair, supply: e.totalSupplyAtBlock };
}

const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;

/**
 * A node answering `totalSupply()` and `balanceOf()` at `block` from `truth`, except that the
 * first `lies` answers for `liar` are `truth + 1` (a read of a block being built). Its head is
 * `block + 1`. Everything else (the metadata probe) reverts.
 */
function node(o: { truth: Map<string, bigint>; supply: string; liar: string; lies: number }) {
  const asked: string[] = [];
  let lies = o.lies;
  const rpc: Rpc = {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      asked.push(method);
      if (method === 'eth_blockNumber') return '0xb' as T;
      const data = (params[0] as { data: string }).data;
      if (data === '0x18160ddd') return word(BigInt(o.supply)) as T;
      if (data.startsWith('0x70a08231')) {
        const w = `0x${data.slice(-40)}`;
        const v = o.truth.get(w) ?? 0n;
        if (w === o.liar && lies > 0) {
          lies--;
          return word(v + 1n) as T;
        }
        return word(v) as T;
      }
      throw new Error('execution reverted');
    },
  } as Rpc;
  return { rpc, asked };
}

describe('reconcileToken', () => {
  it('a node that answers one balance differently, then as the index once asked again: exact', async () => {
    const { store, block, pair, supply } = await indexed();
    const holder = [...holdersOf(pair)].find((w) => w !== ZERO)!;
    const truth = new Map([...holdersOf(pair)].map((w) => [w, balanceAt(store.view(), pair, w, block)]));
    const n = node({ truth, supply, liar: holder, lies: 1 });
    const v = await reconcileToken(store, n.rpc, pair, block);
    expect(v).toMatchObject({ status: 'consistent', holdersMismatched: 0, supplyOnChain: supply });
    expect(n.asked).toContain('eth_blockNumber'); // it waited for the node to pass the block
  });

  it('a node that says it twice: the mismatch stands', async () => {
    const { store, block, pair, supply } = await indexed();
    const holder = [...holdersOf(pair)].find((w) => w !== ZERO)!;
    const truth = new Map([...holdersOf(pair)].map((w) => [w, balanceAt(store.view(), pair, w, block)]));
    const v = await reconcileToken(store, node({ truth, supply, liar: holder, lies: 2 }).rpc, pair, block);
    expect(v).toMatchObject({ status: 'mismatch', holdersMismatched: 1 });
  });

  it('agreeing answers need no second round', async () => {
    const { store, block, pair, supply } = await indexed();
    const truth = new Map([...holdersOf(pair)].map((w) => [w, balanceAt(store.view(), pair, w, block)]));
    const n = node({ truth, supply, liar: '', lies: 0 });
    expect(await reconcileToken(store, n.rpc, pair, block)).toMatchObject({ status: 'consistent' });
    expect(n.asked).not.toContain('eth_blockNumber');
  });
});

/** The wallets the recorded block's transfers touch on `token` (the fixture's receipts). */
function holdersOf(token: string): Set<string> {
  const receipts = JSON.parse(readFileSync(join(FIXTURES_DIR, SET, 'receipts.json'), 'utf8')) as Array<{
    logs: Array<{ address: string; topics: string[] }>;
  }>;
  const out = new Set<string>();
  for (const l of receipts.flatMap((r) => r.logs))
    if (l.address === token && l.topics[0] === TRANSFER_TOPIC)
      for (const t of [l.topics[1], l.topics[2]]) out.add(`0x${t.slice(-40)}`);
  return out;
}
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
