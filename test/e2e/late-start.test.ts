/**
 * Issue M part 2: a real chain indexed from any start block. The devnet runs (real Uniswap,
 * traffic) before the indexer starts with START_BLOCK after pools were created and traded; then
 * traffic continues. Tokens that predate START_BLOCK are seeded at first sight (balanceOf and
 * totalSupply at the block before), so every balance the index knows and every supply equals the
 * node's answer at the anchor block, and the coverage fields say which figures are partial.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedClient, walkTyped } from '../harness/client.js';
import { startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { followThenQuiet, LATE_START_DEVNET, tradeBeforeStart } from '../harness/late-start.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;
let startBlock = 0;
let quietHead = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const word = (r: string) => BigInt(r.slice(0, 66));

beforeAll(async () => {
  dev = await startTestDevnet(LATE_START_DEVNET);
  startBlock = await tradeBeforeStart(dev);
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { START_BLOCK: String(startBlock), RECONCILE_INTERVAL_MS: '300' },
  });
  quietHead = await followThenQuiet(dev, idx, startBlock);
}, 300_000);

afterAll(stopAll(() => [idx, dev]));

describe('indexing from a late START_BLOCK', () => {
  it('balances and supplies of tokens older than the start equal the node at the anchor', async () => {
    const api = typedClient(idx);
    const tokens = (
      await walkTyped((cursor) =>
        api.GET('/index/v1/{chain}/tokens', {
          params: { path: { chain: api.chain }, query: { limit: 1000, ...(cursor ? { cursor } : {}) } },
        }),
      )
    ).filter((t) => t.confirmedErc20);
    let predating = 0;
    let balances = 0;
    for (const t of tokens) {
      const d = await api.GET('/index/v1/{chain}/tokens/{address}', {
        params: { path: { chain: api.chain, address: t.address } },
      });
      const body = d.data!;
      const at = `0x${body.anchor.block.toString(16)}`;
      if (!body.data.coverage.predatesIndexedRange) continue;
      predating++;
      expect(body.data.coverage.holdersComplete).toBe(false);
      expect(body.data.holderCount.status).toBe('backfilling');
      expect(body.data.coverage.seedFailures, `${t.symbol} ${t.address}`).toBe(0);
      // Tokens whose balances do not follow their events are flagged instead (issue Q).
      let rec = body.data.reconciliation;
      for (let i = 0; i < 300 && (rec.checkedAtBlock ?? -1) < quietHead; i++) {
        await sleep(100);
        rec = (
          await api.GET('/index/v1/{chain}/tokens/{address}', {
            params: { path: { chain: api.chain, address: t.address } },
          })
        ).data!.data.reconciliation;
      }
      if (rec.status === 'diverges') continue;
      const supply = await jsonRpc<string>(dev.rpcUrl, 'eth_call', [
        { to: t.address, data: '0x18160ddd' },
        at,
      ]);
      expect(body.data.supplyFromTransfers, `${t.symbol} supply`).toBe(word(supply).toString());
      // The holders pages carry their own anchor (a cursor keeps it across pages); it can be later
      // than the detail's when a transaction the stopped traffic had in flight was mined since.
      let holdersAt = '';
      const holders = await walkTyped(async (cursor) => {
        const r = await api.GET('/index/v1/{chain}/tokens/{address}/holders', {
          params: {
            path: { chain: api.chain, address: t.address },
            query: { sort: 'wallet_id', limit: 1000, ...(cursor ? { cursor } : {}) },
          },
        });
        if (r.data && !cursor) holdersAt = `0x${r.data.anchor.block.toString(16)}`;
        return r;
      });
      for (const h of holders.slice(0, 40) as Array<{ wallet: string; balance: string }>) {
        if (h.wallet === `0x${'00'.repeat(20)}`) continue;
        const data = `0x70a08231${h.wallet.slice(2).padStart(64, '0')}`;
        const onChain = await jsonRpc<string>(dev.rpcUrl, 'eth_call', [{ to: t.address, data }, holdersAt]);
        expect(h.balance, `${t.symbol} ${h.wallet}`).toBe(word(onChain).toString());
        const b = await api.GET('/index/v1/{chain}/tokens/{address}/balance/{wallet}', {
          params: { path: { chain: api.chain, address: t.address, wallet: h.wallet } },
        });
        expect(b.data?.data.coverage).toBe('since_first_sight');
        // The wallet's balance at the response's anchor (its latest change), not its first one.
        const atB = `0x${b.data!.anchor.block.toString(16)}`;
        const onChainB = await jsonRpc<string>(dev.rpcUrl, 'eth_call', [{ to: t.address, data }, atB]);
        expect(b.data?.data.balance, `${t.symbol} ${h.wallet} balance route`).toBe(word(onChainB).toString());
        balances++;
      }
      // A wallet the index never saw has an unknown balance, not a zero.
      const unseen = await api.GET('/index/v1/{chain}/tokens/{address}/balance/{wallet}', {
        params: { path: { chain: api.chain, address: t.address, wallet: `0x${'5e'.repeat(20)}` } },
      });
      expect(unseen.data?.data.balance).toBeNull();
      expect(unseen.data?.data.balanceReason).toBe('not_observed_since_start_block');
    }
    expect(predating).toBeGreaterThan(3);
    expect(balances).toBeGreaterThan(20);
  });
});
