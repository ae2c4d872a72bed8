/**
 * Issue A end-to-end: a real anvil, the real indexer process, no mocks.
 *  - block, transaction and receipt routes equal what the node returns for the same block;
 *  - a cursor walk keeps its anchor while new blocks arrive;
 *  - after anvil_reorg past a cursor's block the cursor answers 409 stale_cursor, and the
 *    reorged blocks are re-indexed with their new hashes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';

let anvil: Anvil;
let idx: IndexerProcess;

beforeAll(async () => {
  anvil = await startAnvil();
  for (let b = 0; b < 12; b++) {
    await anvil.sendTransfers(3 + (b % 4));
    await anvil.mine();
  }
  idx = await startIndexer({ rpcUrl: anvil.rpcUrl });
  await idx.waitForHead(await anvil.head());
});

afterAll(async () => {
  await idx?.stop();
  await anvil?.stop();
});

describe('chain records equal the node', () => {
  it('blocks by number and by hash', async () => {
    const head = await anvil.head();
    for (let n = 0; n <= head; n++) {
      const node = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      const r = await idx.get(`/blocks/${n}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual(node);
      expect(r.body.anchor.block).toBeGreaterThanOrEqual(n);
      const byHash = await idx.get(`/blocks/by-hash/${node.hash}`);
      expect(byHash.body.data).toEqual(node);
    }
  });

  it('transactions, receipts and logs', async () => {
    const head = await anvil.head();
    let seen = 0;
    for (let n = 1; n <= head; n++) {
      const block = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const page = await idx.get(`/blocks/${n}/transactions?limit=1000`);
      expect(page.body.data).toEqual(block.transactions);
      expect(page.body.page.stoppedBy).toBe('exhausted');
      for (const tx of block.transactions) {
        const t = await idx.get(`/transactions/${tx.hash}`);
        expect(t.body.data.transaction).toEqual(await anvil.rpc('eth_getTransactionByHash', [tx.hash]));
        expect(t.body.data.from).toBe(tx.from.toLowerCase());
        expect(t.body.data.value).toBe(BigInt(tx.value).toString());
        const rc = await idx.get(`/transactions/${tx.hash}/receipt`);
        expect(rc.body.data.receipt).toEqual(await anvil.rpc('eth_getTransactionReceipt', [tx.hash]));
        expect(rc.body.data.l1Gas).toBeNull();
        expect(rc.body.data.l1GasReason).toBe('not_an_l2_receipt');
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(30);
  });

  it('timestamp bounds', async () => {
    const b5 = await anvil.rpc('eth_getBlockByNumber', ['0x5', false]);
    const r = await idx.get(`/blocks/at?timestamp=${Number.parseInt(b5.timestamp, 16)}`);
    expect(r.status).toBe(200);
    expect(Number.parseInt(b5.timestamp, 16)).toBe(r.body.data.lastAtOrBefore.timestamp);
    expect(r.body.data.firstAtOrAfter.timestamp).toBe(r.body.data.lastAtOrBefore.timestamp);
    const missing = await idx.get('/blocks/at');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('bad_request');
  });
});

describe('cursors', () => {
  it('a walk keeps its anchor while new blocks arrive', async () => {
    const n = 4; // 3 + (3 % 4) = 6 transfers in block 4
    const p1 = await idx.get(`/blocks/${n}/transactions?limit=2`);
    expect(p1.body.data).toHaveLength(2);
    expect(p1.body.page.stoppedBy).toBe('rows');
    const anchor = p1.body.anchor;
    await anvil.sendTransfers(2);
    await anvil.mine(3);
    await idx.waitForHead(anchor.block + 3);
    const p2 = await idx.get(`/blocks/${n}/transactions?limit=2&cursor=${p1.body.page.nextCursor}`);
    expect(p2.status).toBe(200);
    expect(p2.body.anchor).toEqual(anchor);
    const fresh = await idx.get(`/blocks/${n}/transactions`);
    expect(fresh.body.anchor.block).toBeGreaterThan(anchor.block);
    expect([...p1.body.data, ...p2.body.data]).toEqual(fresh.body.data.slice(0, 4));
  });

  it('refuses forged, cross-route and truncated cursors with 400', async () => {
    const p1 = await idx.get('/blocks/4/transactions?limit=1');
    const c: string = p1.body.page.nextCursor;
    const flipped = c.slice(0, 10) + (c[10] === 'A' ? 'B' : 'A') + c.slice(11);
    for (const bad of [flipped, c.slice(0, c.length - 4), 'not-a-cursor']) {
      const r = await idx.get(`/blocks/4/transactions?cursor=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('bad_cursor');
    }
    const other = await idx.get(`/blocks/5/transactions?cursor=${c}`);
    expect(other.body.error).toBe('bad_cursor');
    const otherOrder = await idx.get(`/blocks/4/transactions?order=desc&cursor=${c}`);
    expect(otherOrder.body.error).toBe('bad_cursor');
  });

  it('after anvil_reorg past the cursor block: 409 stale_cursor and the new branch is indexed', async () => {
    await anvil.sendTransfers(3);
    await anvil.mine();
    const target = await anvil.head();
    await anvil.mine();
    const head = await anvil.head();
    await idx.waitForHead(head);
    const before = await idx.get(`/blocks/${target}`);
    const p1 = await idx.get(`/blocks/${target}/transactions?limit=1`);
    expect(p1.body.anchor.block).toBe(head);
    const cursor: string = p1.body.page.nextCursor;
    expect(cursor).toBeTruthy();
    // An older block's walk anchored at the same head is also bound to the dropped fork.
    const onOld = (await idx.get('/blocks/4/transactions?limit=1')).body.page.nextCursor as string;
    await anvil.rpc('anvil_reorg', [
      3,
      [
        [
          {
            from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
            to: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            value: '0x7',
          },
          0,
        ],
        [
          {
            from: '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
            to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
            value: '0x9',
          },
          1,
        ],
      ],
    ]);
    const newHash = (await anvil.rpc('eth_getBlockByNumber', [`0x${target.toString(16)}`, false])).hash;
    expect(newHash).not.toBe(before.body.data.hash);
    // The indexer notices on its next poll (same height, different hash) and rolls back.
    const t0 = Date.now();
    for (;;) {
      const r = await idx.get(`/blocks/${target}`);
      if (r.body?.data?.hash === newHash) break;
      if (Date.now() - t0 > 20_000) throw new Error(`not re-indexed:\n${idx.logs().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const c of [cursor, onOld]) {
      const path = c === cursor ? `/blocks/${target}` : '/blocks/4';
      const stale = await idx.get(`${path}/transactions?cursor=${c}`);
      expect(stale.status).toBe(409);
      expect(stale.body.error).toBe('stale_cursor');
    }
    // Every reorged block equals the node's new branch, transactions included.
    const nodeHead = await anvil.head();
    await idx.waitForHead(nodeHead);
    for (let n = target - 2; n <= nodeHead; n++) {
      const node = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      const r = await idx.get(`/blocks/${n}`);
      expect(r.body.data.hash).toBe(node.hash);
      const txs = await idx.get(`/blocks/${n}/transactions`);
      expect(txs.body.data).toEqual(node.transactions);
    }
    // The old hash is no longer served.
    const old = await idx.get(`/blocks/by-hash/${before.body.data.hash}`);
    expect(old.status).toBe(404);
    const health = await idx.get('/health');
    expect(health.body.ingest.reorgs).toBeGreaterThanOrEqual(1);
    // anvil offers eth_subscribe over WebSocket: live following is woken by newHeads.
    expect(health.body.ingest.headSource).toBe('newHeads');
  });
});
