/**
 * Verifiable chain records, end to end, on a real devnet (anvil with the project's deployment and
 * traffic) indexed through the fault proxy:
 *
 *  - every block ingest commits was held to its header's roots (/health ingest.roots);
 *  - `?proof=true` on the transaction, receipt and logs routes serves proofs that the typed
 *    client's verifiers accept against the node's own block hash, for every transaction of a
 *    devnet block, and reject with one byte flipped (in a proof node, in the header RLP, in the
 *    record) or against another block's hash;
 *  - a node that alters one receipt's log: ingest halts with `roots_mismatch` (typed, with the
 *    block and the mismatching root, counted in the metrics), nothing of that block is committed
 *    while the node keeps serving it, reads of the committed chain go on; with the alteration
 *    removed, ingest resumes by itself and indexes the block as the node has it.
 */
import { verifyLog, verifyReceipt, verifyTransaction } from '@chain-indexer/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { jsonRpc as rpc } from '../harness/rpc.js';
import { type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';

let dev: TestDevnet;
let proxy: RpcProxy;
let idx: IndexerProcess;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hex = (n: number) => `0x${n.toString(16)}`;
type Json = Record<string, any>;

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, txPerSecond: 20 });
  proxy = await startRpcProxy({ upstream: dev.rpcUrl });
  idx = await startIndexer({
    rpcUrl: proxy.url,
    env: { ...devnetIndexerEnv(dev, { chain: 'testnet' }), TRACES: 'off' },
  });
});

afterAll(async () => {
  await idx?.stop();
  await proxy?.close();
  await dev?.stop();
});

const nodeBlock = (n: number): Promise<Json> => rpc(dev.rpcUrl, 'eth_getBlockByNumber', [hex(n), false]);

/** A committed block with at least `minTxs` transactions, one of them with logs (scans back from the head). */
async function blockWithLogs(minTxs: number): Promise<{ n: number; block: Json; receipts: Json[] }> {
  for (let tries = 0; tries < 60; tries++) {
    const head = (await idx.get('/checkpoints')).body.anchor.block as number;
    for (let n = head; n > Math.max(0, head - 40); n--) {
      const block = await nodeBlock(n);
      if (block.transactions.length < minTxs) continue;
      const receipts: Json[] = await rpc(dev.rpcUrl, 'eth_getBlockReceipts', [hex(n)]);
      if (receipts.some((r) => r.logs.length > 0)) return { n, block, receipts };
    }
    await sleep(1000);
  }
  throw new Error('no devnet block with logs');
}

const flip = (h: string, at?: number): string => {
  const i = at ?? 2 + 2 * Math.floor((h.length - 2) / 4); // a nibble in the middle
  return h.slice(0, i) + (h[i] === '0' ? '1' : '0') + h.slice(i + 1);
};

describe('roots check and proofs', () => {
  it('every committed block was checked; proofs of every transaction of a devnet block verify against the node hash', async () => {
    await idx.waitForHead(30, 120_000);
    const { n, block } = await blockWithLogs(3);
    const health = (await idx.get('/health')).body;
    expect(health.ingest.roots.enabled).toBe(true);
    expect(health.ingest.roots.verified).toBeGreaterThanOrEqual(n);
    expect(health.ingest.roots.mismatches).toBe(0);
    expect(health.ingest.roots.notCheckable).toBe(0);
    const trusted = block.hash as string;
    let logsProved = 0;
    for (const hash of block.transactions as string[]) {
      const tx = await idx.get(`/transactions/${hash}?proof=true`);
      expect(tx.status).toBe(200);
      expect(tx.body.data.proof.rootsCheck).toEqual({ status: 'verified' });
      expect(tx.body.data.proofReason).toBeNull();
      expect(await verifyTransaction(tx.body.data, trusted)).toMatchObject({ ok: true, blockNumber: n });

      const rc = await idx.get(`/transactions/${hash}/receipt?proof=true`);
      expect(rc.status).toBe(200);
      expect(await verifyReceipt(rc.body.data, trusted)).toMatchObject({ ok: true, blockNumber: n });

      const logs = await idx.get(`/transactions/${hash}/logs?proof=true&limit=1000`);
      expect(logs.status).toBe(200);
      expect(await verifyLog(logs.body, trusted)).toMatchObject({ ok: true, blockNumber: n });
      logsProved += logs.body.data.length;

      // Without ?proof the responses carry no proof fields (unchanged contract).
      const plain = await idx.get(`/transactions/${hash}/receipt`);
      expect('proof' in plain.body.data).toBe(false);
    }
    expect(logsProved).toBeGreaterThan(0);
  });

  it('one flipped byte (proof node, header RLP, record) or another block hash is rejected', async () => {
    const { block, receipts } = await blockWithLogs(2);
    const withLogs = receipts.find((r) => r.logs.length > 0)!;
    const hash = withLogs.transactionHash as string;
    const trusted = block.hash as string;
    const rc = (await idx.get(`/transactions/${hash}/receipt?proof=true`)).body.data;
    const tx = (await idx.get(`/transactions/${hash}?proof=true`)).body.data;
    const logs = (await idx.get(`/transactions/${hash}/logs?proof=true`)).body;
    expect((await verifyReceipt(rc, trusted)).ok).toBe(true);

    const nodes = rc.proof.nodes as string[];
    for (let k = 0; k < nodes.length; k++) {
      const bad = structuredClone(rc);
      bad.proof.nodes[k] = flip(nodes[k]);
      const v = await verifyReceipt(bad, trusted);
      expect(v.ok, `node ${k} flipped`).toBe(false);
    }
    const badHeader = structuredClone(tx);
    badHeader.proof.headerRlp = flip(tx.proof.headerRlp);
    expect(await verifyTransaction(badHeader, trusted)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^header_hash_mismatch/),
    });

    const badLog = structuredClone(rc);
    badLog.receipt.logs[0].data = flip(badLog.receipt.logs[0].data, badLog.receipt.logs[0].data.length - 1);
    expect(await verifyReceipt(badLog, trusted)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^record_mismatch/),
    });

    const badTx = structuredClone(tx);
    badTx.transaction.input = flip(badTx.transaction.input, badTx.transaction.input.length - 1);
    expect((await verifyTransaction(badTx, trusted)).ok).toBe(false);

    const badLogs = structuredClone(logs);
    badLogs.data[0].topics[0] = flip(badLogs.data[0].topics[0]);
    expect(await verifyLog(badLogs, trusted)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^record_mismatch/),
    });

    const other = await nodeBlock(Number(block.number) - 1);
    expect(await verifyReceipt(rc, other.hash)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^header_hash_mismatch/),
    });
    expect(await verifyReceipt({ receipt: rc.receipt }, trusted)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^no_proof/),
    });
  });
});

/** A copy of receipts with the first log of the first receipt that has one altered (one data nibble). */
function alter(receipts: Json[]): Json[] {
  const out = structuredClone(receipts);
  const r = out.find((x) => x.logs.length > 0)!;
  const d = r.logs[0].data as string;
  r.logs[0].data = d.length > 2 ? flip(d, d.length - 1) : '0x01';
  return out;
}

describe('a node that alters one receipt log', () => {
  it('halts ingest with roots_mismatch, commits nothing of the block, and resumes once the node is right again', async () => {
    const head0 = (await idx.get('/checkpoints')).body.anchor.block as number;
    const from = head0 + 2;
    let target: number | null = null;
    proxy.setRewrite((method, _params, result) => {
      if (method === 'eth_getBlockReceipts' && Array.isArray(result) && result.length) {
        const n = Number((result[0] as Json).blockNumber);
        if (target === null && n >= from && (result as Json[]).some((x) => x.logs.length > 0)) target = n;
        return n === target ? alter(result as Json[]) : undefined;
      }
      if (
        method === 'eth_getTransactionReceipt' &&
        result &&
        Number((result as Json).blockNumber) === target
      ) {
        const [one] = alter([result as Json]);
        return (result as Json).logs.length ? one : undefined;
      }
      return undefined;
    });

    // Ingest halts with the typed reason.
    let health: Json = {};
    for (let i = 0; i < 120; i++) {
      health = (await idx.get('/health')).body;
      if (health.ingest.state === 'halted') break;
      await sleep(500);
    }
    expect(target).not.toBeNull();
    const T = target as unknown as number;
    expect(health.ingest.state).toBe('halted');
    expect(health.ingest.haltReason).toBe('roots_mismatch');
    expect(health.ingest.haltDetail).toContain(`block ${T} `);
    expect(health.ingest.haltDetail).toContain('receipts_root');
    expect(health.ingest.roots.mismatches).toBeGreaterThanOrEqual(1);
    expect(proxy.stats().rewrites).toBeGreaterThanOrEqual(3); // the fetch and its refetches

    // Nothing of block T is committed while the node keeps serving the altered receipts, and the
    // committed chain is still served.
    const tampered = await nodeBlock(T);
    await sleep(3000);
    const cp = (await idx.get('/checkpoints')).body.anchor;
    expect(cp.block).toBeLessThan(T);
    expect((await idx.get(`/blocks/${T}`)).status).toBe(404);
    for (const h of tampered.transactions as string[]) {
      expect((await idx.get(`/transactions/${h}`)).status).toBe(404);
      expect((await idx.get(`/transactions/${h}/receipt`)).status).toBe(404);
    }
    const below = await idx.get(`/blocks/${cp.block}`);
    expect(below.status).toBe(200);
    expect(below.body.data.hash).toBe((await nodeBlock(cp.block)).hash);
    expect((await idx.get('/health')).body.ingest.haltReason).toBe('roots_mismatch');
    const port = [...idx.logs().matchAll(/"metricsPort":(\d+)/g)].at(-1)?.[1];
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/indexer_ingest_roots_blocks_total\{chain="testnet",outcome="mismatch"\} [1-9]/);
    expect(metrics).toMatch(/indexer_ingest_halted\{chain="testnet",reason="roots_mismatch"\} 1/);

    // The node serves the right records again: ingest resumes and indexes block T as it is.
    proxy.setRewrite(null);
    await idx.waitForHead(T + 2, 60_000);
    const after = (await idx.get('/health')).body;
    expect(after.ingest.state).not.toBe('halted');
    expect(after.ingest.haltReason).toBeNull();
    expect(after.ingest.haltDetail).toBeNull();
    const b = await idx.get(`/blocks/${T}`);
    expect(b.status).toBe(200);
    expect(b.body.data.hash).toBe(tampered.hash);
    const h0 = (tampered.transactions as string[])[0];
    const rc = (await idx.get(`/transactions/${h0}/receipt?proof=true`)).body.data;
    expect(await verifyReceipt(rc, tampered.hash)).toMatchObject({ ok: true, blockNumber: T });
  });
});
