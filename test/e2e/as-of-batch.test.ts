/**
 * Issue AC end-to-end, POST /batch as of a block (docs/contract-choices.md, "Batch items as of a
 * block"), on the full devnet (real anvil, which keeps every block's state) indexed with
 * HISTORY_RETENTION=40 and frozen once past block 90:
 *
 *  - one batch mixes items at two past blocks (by number and by hash) and at the head: each item's
 *    body is anchored at its own block (the node's hash of it) and equals the route's answer alone
 *    at that block; the figures are the node's at that block (a V2 pair's `getReserves()`, a
 *    wallet's `balanceOf`); the batch's anchor is the head;
 *  - each as-of refusal fails its item alone, typed as the route answers alone: above the head 409
 *    block_not_indexed, an unknown hash 409 block_not_canonical, below the retained range 410
 *    history_pruned naming the oldest retained block, a route that does not answer as of a block
 *    (pool swaps) 400 naming why, both parameters 400; the batch is still 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '../faults/lib.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';

const RETENTION = 40;

let dev: TestDevnet;
let idx: IndexerProcess;
let head = 0;
/** A V2 pair that has traded, a standard token and one of its holders. */
let pair = '';
let token = '';
let wallet = '';

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const hashOf = async (n: number) =>
  (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(n), false])).hash;
const words = async (to: string, data: string, n: number) => {
  const out = await rpc<string>('eth_call', [{ to, data }, hex(n)]);
  return (out.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`).toString());
};
/** The pair's reserves at the end of block n (getReserves()). */
const reservesAt = async (n: number) => (await words(pair, '0x0902f1ac', n)).slice(0, 2);
const balanceAt = async (n: number) =>
  (await words(token, `0x70a08231${wallet.slice(2).padStart(64, '0')}`, n))[0];

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 25, seed: 7 });
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { ...devnetIndexerEnv(dev), HISTORY_RETENTION: String(RETENTION), TRACES: 'off' },
  });
  await idx.waitForHead(90, 180_000);
  await dev.traffic?.stop();
  head = await freezeNode(dev.rpcUrl);
  await idx.waitForHead(head, 60_000);
  for (const d of dev.deployment.pools.filter((p) => p.protocol === 'uniswap-v2')) {
    const r = await idx.get(`/pools/${d.address.toLowerCase()}`);
    if (r.status === 200 && r.body.data.state.swaps > 0) {
      pair = d.address.toLowerCase();
      break;
    }
  }
  for (const t of dev.deployment.tokens.filter((x) => x.kind === 'standard')) {
    const r = await idx.get(`/tokens/${t.address}/top-holders?limit=1`);
    if (r.status === 200 && r.body.data.length) {
      token = t.address.toLowerCase();
      wallet = r.body.data[0].wallet;
      break;
    }
  }
  expect({ pair: !!pair, token: !!token }).toEqual({ pair: true, token: true });
}, 300_000);

afterAll(stopAll(() => [idx, dev]));

describe('POST /batch: items as of their own block', () => {
  it('each item is answered at its block, equal to the route alone there and to the node; the batch at the head', async () => {
    const [a, b] = [head - 25, head - 3];
    const hb = await hashOf(b);
    const r = await idx.post('/batch', {
      requests: [
        { id: 'pair@a', route: 'pools.detail', params: { address: pair, atBlock: a } },
        { id: 'pair@b', route: '/pools/{address}', params: { address: pair, atBlockHash: hb } },
        { id: 'pair@head', route: 'pools.detail', params: { address: pair } },
        { id: 'balance@a', route: 'tokens.balance', params: { address: token, wallet, atBlock: a } },
        { id: 'liq@b', route: 'pools.liquidity', params: { address: pair, atBlock: b } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.anchor).toEqual({ block: head, hash: await hashOf(head) });
    const byId = new Map(r.body.results.map((x: any) => [x.id, x]));
    const item = (id: string) => byId.get(id) as { status: number; body: any };
    for (const id of byId.keys()) expect(item(id as string).status, id as string).toBe(200);
    expect(item('pair@a').body.anchor).toEqual({ block: a, hash: await hashOf(a) });
    expect(item('pair@b').body.anchor).toEqual({ block: b, hash: hb });
    expect(item('pair@head').body.anchor).toEqual(r.body.anchor);
    expect(item('balance@a').body.anchor.block).toBe(a);
    expect(item('liq@b').body.anchor.block).toBe(b);
    // The node at each block.
    const st = (id: string) => item(id).body.data.state;
    expect([st('pair@a').reserve0, st('pair@a').reserve1]).toEqual(await reservesAt(a));
    expect([st('pair@b').reserve0, st('pair@b').reserve1]).toEqual(await reservesAt(b));
    expect(item('balance@a').body.data.balance).toBe(await balanceAt(a));
    // The route alone at the same block answers the same body.
    const alone = async (path: string) => (await idx.get(path)).body;
    expect(item('pair@a').body).toEqual(await alone(`/pools/${pair}?atBlock=${a}`));
    expect(item('pair@b').body).toEqual(await alone(`/pools/${pair}?atBlock=${b}`));
    expect(item('balance@a').body).toEqual(await alone(`/tokens/${token}/balance/${wallet}?atBlock=${a}`));
    expect(item('liq@b').body).toEqual(await alone(`/pools/${pair}/liquidity?atBlockHash=${hb}`));
  });

  it('each as-of refusal fails its item alone, typed as the route answers it alone', async () => {
    const oldest = head - RETENTION;
    const unknown = `0x${'ab'.repeat(32)}`;
    const items: Array<[string, Record<string, unknown>, string]> = [
      ['pools.detail', { address: pair, atBlock: head + 5 }, `/pools/${pair}?atBlock=${head + 5}`],
      ['pools.detail', { address: pair, atBlockHash: unknown }, `/pools/${pair}?atBlockHash=${unknown}`],
      ['pools.detail', { address: pair, atBlock: oldest - 1 }, `/pools/${pair}?atBlock=${oldest - 1}`],
      ['pools.swaps', { address: pair, atBlock: head - 5 }, `/pools/${pair}/swaps?atBlock=${head - 5}`],
      [
        'pools.detail',
        { address: pair, atBlock: head - 5, atBlockHash: await hashOf(head - 5) },
        `/pools/${pair}?atBlock=${head - 5}&atBlockHash=${await hashOf(head - 5)}`,
      ],
      ['pools.detail', { address: pair, atBlock: oldest }, `/pools/${pair}?atBlock=${oldest}`],
    ];
    const r = await idx.post('/batch', { requests: items.map(([route, params]) => ({ route, params })) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.anchor.block).toBe(head);
    const got = r.body.results.map((x: any) => [x.status, x.error?.error ?? null]);
    expect(got).toEqual([
      [409, 'block_not_indexed'],
      [409, 'block_not_canonical'],
      [410, 'history_pruned'],
      [400, 'bad_request'],
      [400, 'bad_request'],
      [200, null],
    ]);
    expect(r.body.results[0].error).toMatchObject({ requestedBlock: head + 5, headBlock: head });
    expect(r.body.results[2].error).toMatchObject({ oldestRetainedBlock: oldest, headBlock: head });
    expect(r.body.results[3].error.detail).toMatch(/does not answer as of a block.*list of past events/);
    expect(r.body.results[5].body.anchor).toEqual({ block: oldest, hash: await hashOf(oldest) });
    // Alone, each route answers the same status and error envelope.
    for (const [i, [, , path]] of items.entries()) {
      const one = await idx.get(path);
      const item = r.body.results[i];
      expect([one.status, one.body], path).toEqual([
        item.status,
        item.status === 200 ? item.body : item.error,
      ]);
    }
  });
});
