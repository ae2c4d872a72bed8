/**
 * A node that falls behind is never taken for a reorg. The indexer follows a real anvil through the
 * fault proxy up to head H; the proxy then answers like a node stuck at H-10 (eth_blockNumber H-10,
 * null for every block above) while new blocks are mined upstream. The indexer must not roll back:
 * reorgs stay 0, the checkpoint stays H, every indexed block still equals the node's. When the
 * proxy recovers, the blocks mined meanwhile are indexed.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../faults/lib.js';
import { type Anvil, mineTransferBlocks, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';

let anvil: Anvil;
let proxy: RpcProxy;
let idx: IndexerProcess;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number) => `0x${n.toString(16)}`;

beforeAll(async () => {
  anvil = await startAnvil();
  await mineTransferBlocks(anvil, 30, (b) => 1 + (b % 3));
  proxy = await startRpcProxy({ upstream: anvil.rpcUrl });
  idx = await startIndexer({ rpcUrl: proxy.url });
});

afterAll(async () => {
  await idx?.stop();
  await proxy?.close();
  await anvil?.stop();
});

async function expectEqualsNode(from: number, to: number) {
  for (let n = from; n <= to; n++) {
    const node = await anvil.rpc('eth_getBlockByNumber', [hex(n), false]);
    const r = await idx.get(`/blocks/${n}`);
    expect(r.status).toBe(200);
    expect(r.body.data.hash).toBe(node.hash);
    const txs = await idx.get(`/blocks/${n}/transactions?limit=1000`);
    expect(txs.body.data.map((t: { hash: string }) => t.hash)).toEqual(node.transactions);
  }
}

describe('node behind', () => {
  it('a stale head (H-10, nulls above) is waited out, never rolled back', async () => {
    const H = await anvil.head();
    await idx.waitForHead(H);
    const hHash = (await anvil.rpc('eth_getBlockByNumber', [hex(H), false])).hash;

    proxy.setStaleHead(H - 10);
    // New blocks upstream that the stale node does not show.
    for (let i = 0; i < 5; i++) {
      await anvil.sendTransfers(2);
      await anvil.mine();
      await sleep(300);
      const health = await idx.get('/health');
      expect(health.body.ingest.reorgs).toBe(0);
      expect(health.body.ingest.state).not.toBe('halted');
      const cp = await idx.get('/checkpoints');
      expect(cp.body.anchor).toEqual({ block: H, hash: hHash });
    }
    // Let it poll the stale node a while longer (POLL_MS=50: dozens of polls).
    await sleep(1500);
    const health = await idx.get('/health');
    expect(health.body.ingest.reorgs).toBe(0);
    expect(health.body.ingest.nodeHead).toBe(H - 10);
    expect(proxy.stats().methods.eth_blockNumber).toBeGreaterThan(20);
    expect((await idx.get('/checkpoints')).body.anchor).toEqual({ block: H, hash: hHash });
    await expectEqualsNode(0, H);

    // Recovery: the blocks mined meanwhile (and new ones) are indexed.
    proxy.setStaleHead(null);
    await anvil.sendTransfers(3);
    await anvil.mine(2);
    const H2 = await anvil.head();
    expect(H2).toBe(H + 7);
    await idx.waitForHead(H2, 30_000);
    await expectEqualsNode(Math.max(0, H - 12), H2);
    // /health shows the engine thread's status as last reported (every commit, and every 200 ms):
    // the follower's switch back to `following` after the catch-up may be a report away.
    let after = await idx.get('/health');
    for (let i = 0; i < 50 && after.body.ingest.state !== 'following'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await idx.get('/health');
    }
    expect(after.body.ingest.reorgs).toBe(0);
    expect(after.body.ingest.state).toBe('following');
  });

  it('a node that briefly forgets blocks at and below our head (nulls only) is not a reorg either', async () => {
    const H = await anvil.head();
    await idx.waitForHead(H);
    // Stuck far below our head: even our own head block answers null.
    proxy.setStaleHead(H - 40);
    await anvil.mine();
    await sleep(1000);
    expect((await idx.get('/health')).body.ingest.reorgs).toBe(0);
    expect((await idx.get('/checkpoints')).body.anchor.block).toBe(H);
    proxy.setStaleHead(null);
    await idx.waitForHead(H + 1, 30_000);
    await expectEqualsNode(Math.max(0, H - 45), H + 1);
    expect((await idx.get('/health')).body.ingest.reorgs).toBe(0);
  });

  // Regression: on restart the identity check used to take a node behind START_BLOCK (null) for
  // "a different chain" and refuse to start; it now waits like ingest does.
  it('a restart while the node is behind START_BLOCK waits instead of refusing as "a different chain"', async () => {
    const dataDir = tempDir('idx-behind-start-');
    let second: IndexerProcess | null = null;
    try {
      const first = await startIndexer({ rpcUrl: proxy.url, dataDir, env: { START_BLOCK: '20' } });
      const H = await anvil.head();
      await first.waitForHead(H);
      await first.stop();
      proxy.setStaleHead(10); // the node is resyncing: it has blocks 0..10 only
      const restarted = startIndexer({ rpcUrl: proxy.url, dataDir, env: { START_BLOCK: '20' } });
      restarted.catch(() => {});
      await sleep(1500);
      proxy.setStaleHead(null);
      second = await restarted;
      await anvil.mine();
      await second.waitForHead(H + 1, 30_000);
      expect((await second.get('/health')).body.ingest.reorgs).toBe(0);
    } finally {
      proxy.setStaleHead(null);
      await second?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
