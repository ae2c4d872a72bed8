/**
 * Issue U item 2 end-to-end: a node that contradicts itself is a fault, not a silent fork.
 *
 * A real anvil behind the RPC proxy, which plays what anvil was seen doing under the embedded
 * devnet's races (test/harness/rpc-proxy.ts dropBlocks): blocks it had served answer null by number
 * and by hash (their transactions and receipts too) while its later blocks still name them as
 * parents.
 *  - One node: ingest pauses with the typed reason (/health `ingest.state: paused`, `haltReason:
 *    node_inconsistent`, `nodeFault`), the metric counts it, and nothing is built on top while the
 *    node keeps mining; once the proxy serves the blocks again ingest resumes by itself and the store
 *    equals a fresh index of the chain.
 *  - Two nodes (chains file `rpcUrls`: the faulty proxy first, the same anvil directly second):
 *    ingest moves to the second node and keeps following.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chainTables, compareWithFresh, hex, sleep, tempDir, waitConverged } from '../faults/lib.js';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await Promise.resolve(f()).catch(() => {});
});

/** Mines `n` blocks with a few transfers each. */
async function grow(anvil: Anvil, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await anvil.sendTransfers(1 + (i % 3));
    await anvil.mine();
  }
}

/** Polls /health until `pred` holds on its ingest record; returns that record. */
async function ingestUntil(
  idx: IndexerProcess,
  pred: (ingest: any) => boolean,
  what: string,
  ms = 30_000,
): Promise<any> {
  const t0 = Date.now();
  let last: any = null;
  while (Date.now() - t0 < ms) {
    const r = await idx.get('/health');
    last = r.body?.ingest;
    if (last && pred(last)) return last;
    await sleep(100);
  }
  throw new Error(
    `${what}: not within ${ms} ms; last ingest ${JSON.stringify(last)}\n${idx.logs().slice(-3000)}`,
  );
}

/** The loopback metrics listener of `idx` (its port is in the start-up line). */
async function metrics(idx: IndexerProcess): Promise<string> {
  const m = [...idx.logs().matchAll(/"metricsPort":(\d+)/g)].pop();
  if (!m) throw new Error('no metrics port in the log');
  return (await fetch(`http://127.0.0.1:${m[1]}/metrics`)).text();
}

describe('a node that contradicts itself', () => {
  it('pauses ingest with a typed reason, builds nothing on it, and resumes when the node agrees again', async () => {
    const anvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    await grow(anvil, 30);
    const proxy: RpcProxy = await startRpcProxy({ upstream: anvil.rpcUrl });
    cleanup.push(() => proxy.close());
    const dataDir = tempDir('idx-node-fault-');
    const idx = await startIndexer({
      rpcUrl: proxy.url,
      dataDir,
      env: { NODE_CHECK_INTERVAL_MS: '300', WS_URL: 'off' },
    });
    cleanup.push(() => idx.stop());
    await idx.waitForHead(30);
    const before = await ingestUntil(idx, (i) => i.state === 'following', 'following');
    expect(before.nodeFault).toBeNull();
    expect(before.node).toEqual({ index: 0, count: 1 });

    // The node loses blocks 24–27 it served; its block 28 still names 27 as parent.
    await proxy.dropBlocks({ from: 24, to: 27 });
    const paused = await ingestUntil(idx, (i) => i.state === 'paused', 'paused');
    expect(paused.haltReason).toBe('node_inconsistent');
    expect(paused.nodeFault).toMatchObject({
      kind: 'block_missing',
      block: 24,
      missingParent: null,
      node: 0,
    });
    expect(paused.nodeFault.hash).toBe(
      (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(24), false])).hash,
    );
    expect(await metrics(idx)).toMatch(
      /indexer_ingest_node_faults_total\{chain="testnet",kind="block_missing"\} 1\b/,
    );

    // Nothing is built on that node while it contradicts itself, however far it mines.
    const held = (await idx.get('/checkpoints')).body.anchor.block;
    expect(held).toBe(30);
    await grow(anvil, 8);
    await sleep(3_000);
    const still = await ingestUntil(idx, (i) => i.nodeHead >= 38, 'node head seen');
    expect(still.state).toBe('paused');
    expect((await idx.get('/checkpoints')).body.anchor.block).toBe(held);
    // Reads go on while paused (the index holds what the node served).
    expect((await idx.get('/blocks/30')).status).toBe(200);

    // The node serves its blocks again: ingest resumes by itself and converges.
    await proxy.dropBlocks(null);
    await ingestUntil(idx, (i) => i.state === 'following' && i.nodeFault === null, 'resumed');
    const head = await anvil.head();
    const hash = (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(head), false])).hash;
    await idx.waitForHead(head);
    await waitConverged(idx, head, hash);
    expect((await idx.get('/health')).body.ingest.haltReason).toBeNull();
    await idx.stop();
    const { got, want, diff } = await compareWithFresh(dataDir, anvil.rpcUrl, head);
    expect(got.head).toEqual({ number: head, hash });
    expect(diff, 'rows that differ from a fresh index').toBe('');
    expect(chainTables(got)).toEqual(chainTables(want));
  });

  it('with a second node in the chains file, ingest moves to it and keeps following', async () => {
    const anvil = await startAnvil();
    cleanup.push(() => anvil.stop());
    await grow(anvil, 20);
    const proxy = await startRpcProxy({ upstream: anvil.rpcUrl });
    cleanup.push(() => proxy.close());
    const dir = tempDir('idx-node-failover-');
    const chainsFile = join(dir, 'chains.json');
    writeFileSync(
      chainsFile,
      JSON.stringify([{ name: 'testnet', rpcUrls: [proxy.url, anvil.rpcUrl], wsUrl: 'off', pollMs: 50 }]),
    );
    const idx = await startIndexer({
      chainsFile,
      chain: 'testnet',
      dataDir: join(dir, 'data'),
      env: { NODE_CHECK_INTERVAL_MS: '300' },
    });
    cleanup.push(() => idx.stop());
    await idx.waitForHead(20);
    expect((await idx.get('/health')).body.ingest.node).toEqual({ index: 0, count: 2 });

    await proxy.dropBlocks({ from: 15, to: 18 });
    const moved = await ingestUntil(
      idx,
      (i) => i.node.index === 1 && i.state !== 'paused',
      'moved to node 1',
    );
    expect(moved.nodeFault).toBeNull();
    expect(await metrics(idx)).toMatch(
      /indexer_ingest_node_faults_total\{chain="testnet",kind="block_missing"\} 1\b/,
    );
    // It keeps following on the second node.
    await grow(anvil, 5);
    const head = await anvil.head();
    await idx.waitForHead(head);
    const h = (await anvil.rpc<{ hash: string }>('eth_getBlockByNumber', [hex(head), false])).hash;
    await waitConverged(idx, head, h);
    const blockReads = () => {
      const m = proxy.stats().methods;
      return (m.eth_getBlockByNumber ?? 0) + (m.eth_getBlockReceipts ?? 0) + (m.eth_blockNumber ?? 0);
    };
    const before = blockReads();
    await grow(anvil, 2);
    await idx.waitForHead(head + 2);
    // The follower, its decode tasks and the node check read the second node now, not the faulty one.
    expect(blockReads() - before).toBe(0);
  });
});
