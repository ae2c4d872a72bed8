/**
 * shapeBlock on real recorded mainnet blocks and receipts (test/fixtures): the delta the
 * ingest writer commits keeps every record byte-for-byte (as parsed JSON) and indexes logs and
 * transactions consistently.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import { type Rpc, RpcError } from '../../rpc/client.js';
import { elementSpans, memberSpan } from '../../rpc/json-spans.js';
import type { RawRpc } from '../../rpc/raw.js';
import { HASH_TO_NUMBER, TX_BY_HASH } from '../../schema/tables/chain.js';
import { encodeRows, fetchBlocks, type NodeRpc, restoreBlock, shapeBlock } from './fetch-blocks.js';

const FIX = FIXTURES_DIR;
const SETS = [
  'ethereum/17000000',
  'ethereum/18000000',
  'ethereum/18500000',
  'ethereum/21925176',
  'arbitrum/150000000',
];

describe('shapeBlock on recorded blocks', () => {
  for (const set of SETS) {
    it(set, () => {
      const dir = join(FIX, set);
      const block = JSON.parse(readFileSync(join(dir, 'block.json'), 'utf8'));
      const receipts = JSON.parse(readFileSync(join(dir, 'receipts.json'), 'utf8'));
      if (typeof block.transactions[0] === 'string') return; // hashes-only block: nothing to shape
      const d = shapeBlock(structuredClone(block), structuredClone(receipts));
      expect(d.number).toBe(Number.parseInt(block.number, 16));
      expect(d.hash).toBe(block.hash);
      expect(d.txs).toHaveLength(block.transactions.length);
      const header = JSON.parse(d.header);
      expect(header.transactions).toEqual(block.transactions.map((t: { hash: string }) => t.hash));
      const allLogs = receipts.flatMap((r: { logs: unknown[] }) => r.logs);
      expect(d.logs).toHaveLength(allLogs.length);
      for (let i = 0; i < d.txs.length; i++) {
        expect(JSON.parse(d.txs[i].json)).toEqual(block.transactions[i]);
        expect(JSON.parse(d.txs[i].receipt)).toEqual(receipts[i]);
        expect(d.txs[i].logCount).toBe(receipts[i].logs.length);
        if (receipts[i].logs.length)
          expect(d.txs[i].firstLogIndex).toBe(Number.parseInt(receipts[i].logs[0].logIndex, 16));
        expect(['decoded', 'unknown']).toContain(JSON.parse(d.txs[i].decoded).status);
      }
      for (let j = 0; j < d.logs.length; j++) {
        expect(JSON.parse(d.logs[j].json)).toEqual(allLogs[j]);
        expect(['decoded', 'unknown']).toContain(JSON.parse(d.logs[j].decoded).status);
      }
      // Decoded events are exactly the decoded logs.
      expect(d.events.length).toBe(d.logs.filter((l) => JSON.parse(l.decoded).status === 'decoded').length);
      // A stored block restores to the same delta (projection rebuilds never touch the node).
      const restored = restoreBlock({
        header: d.header,
        txs: d.txs.map((t) => t.json),
        receipts: d.txs.map((t) => t.receipt),
        probes: null,
      });
      expect(restored).toEqual(d);
    });
  }

  it('refuses receipts that do not belong to the block', () => {
    const dir = join(FIX, 'ethereum/18000000');
    if (!existsSync(dir)) return;
    const block = JSON.parse(readFileSync(join(dir, 'block.json'), 'utf8'));
    const receipts = JSON.parse(readFileSync(join(dir, 'receipts.json'), 'utf8'));
    receipts[3].blockHash = `0x${'00'.repeat(32)}`;
    expect(() => shapeBlock(block, receipts)).toThrow(/does not belong/);
  });
});

describe('the state keys a decode worker lists', () => {
  /** The keys of an encoded key list (storage/keylist.ts layout: u32 count, then u16 length + key). */
  const keysOf = (ab: ArrayBuffer): string[] => {
    const b = Buffer.from(ab);
    const out: string[] = [];
    for (let i = 0, off = 4; i < b.readUInt32LE(0); i++) {
      const len = b.readUInt16LE(off);
      out.push(b.subarray(off + 2, off + 2 + len).toString('hex'));
      off += 2 + len;
    }
    return out;
  };

  it('name the hash-index rows its chain rows overwrite only for a batch with undo (priors)', () => {
    const dir = join(FIX, 'ethereum/18000000');
    const block = JSON.parse(readFileSync(join(dir, 'block.json'), 'utf8'));
    const receipts = JSON.parse(readFileSync(join(dir, 'receipts.json'), 'utf8'));
    const history = shapeBlock(structuredClone(block), structuredClone(receipts));
    const live = shapeBlock(structuredClone(block), structuredClone(receipts));
    encodeRows(history, false);
    encodeRows(live, true, true);
    const overwritten = [
      HASH_TO_NUMBER.key(live.hash).toString('hex'),
      ...live.txs.map((tx) => TX_BY_HASH.key(tx.hash).toString('hex')),
    ];
    expect(overwritten.length).toBe(live.txs.length + 1);
    expect(live.txs.length).toBeGreaterThan(50);
    const inHistory = new Set(keysOf(history.stateKeys!));
    const inLive = new Set(keysOf(live.stateKeys!));
    for (const k of overwritten) {
      expect(inLive.has(k)).toBe(true);
      expect(inHistory.has(k)).toBe(false);
    }
    // Beside them, the same state keys.
    expect(inLive.size).toBe(inHistory.size + overwritten.length);
  });
});

describe('fetchBlocks: block and receipts asked together', () => {
  const dir = join(FIX, 'ethereum/18000000');
  const block = JSON.parse(readFileSync(join(dir, 'block.json'), 'utf8'));
  const receipts = JSON.parse(readFileSync(join(dir, 'receipts.json'), 'utf8'));
  const n = Number.parseInt(block.number, 16);

  /** A node serving the recorded block; `byNumber` is its answer to receipts asked by number. */
  function recordedNode(byNumber: () => unknown) {
    const calls: string[] = [];
    const rpc: Rpc = {
      async call<T>(method: string, params: unknown[] = []): Promise<T> {
        calls.push(`${method}(${String(params[0]).slice(0, 10)})`);
        if (method === 'eth_getBlockByNumber') return structuredClone(block) as T;
        if (method === 'eth_getBlockReceipts' && params[0] === block.hash)
          return structuredClone(receipts) as T;
        if (method === 'eth_getBlockReceipts') return byNumber() as T;
        if (method === 'eth_getTransactionReceipt')
          return structuredClone(
            receipts.find((r: { transactionHash: string }) => r.transactionHash === params[0]),
          ) as T;
        throw new RpcError(`${method} not served by this recording`, method, false);
      },
    };
    return { rpc, calls };
  }

  it('one round of calls when the receipts name the block: no second receipts call', async () => {
    const node = recordedNode(() => structuredClone(receipts));
    const r = await fetchBlocks(node.rpc, n, n, { verifyRoots: true });
    expect(r.blocks[0].hash).toBe(block.hash);
    expect(r.blocks[0].txs.map((t) => JSON.parse(t.receipt))).toEqual(receipts);
    expect(node.calls.filter((c) => c.startsWith('eth_getBlockReceipts'))).toEqual([
      `eth_getBlockReceipts(0x${n.toString(16).slice(0, 8)})`,
    ]);
  });

  it('receipts of another fork (the node moved between the two answers) are asked again by hash', async () => {
    const other = `0x${'ab'.repeat(32)}`;
    const node = recordedNode(() => receipts.map((r: object) => ({ ...r, blockHash: other })));
    const r = await fetchBlocks(node.rpc, n, n, { verifyRoots: true });
    expect(r.blocks[0].txs.map((t) => JSON.parse(t.receipt))).toEqual(receipts);
    expect(node.calls).toContain(`eth_getBlockReceipts(${block.hash.slice(0, 10)})`);
  });

  it("stores the node's bytes: each transaction, receipt and log as sent, the header with the transactions as hashes", async () => {
    // Spaced as no serialiser of the parsed values would write it.
    const blockText = JSON.stringify(block, null, 1);
    const receiptsText = JSON.stringify(receipts, null, 3);
    const calls: string[] = [];
    const rpc: NodeRpc = {
      call: async () => {
        throw new Error('only raw calls expected');
      },
      callRaw: (async (method: string) => {
        calls.push(method);
        const text = method === 'eth_getBlockByNumber' ? blockText : receiptsText;
        return { value: JSON.parse(text), text };
      }) as RawRpc['callRaw'],
    };
    const r = await fetchBlocks(rpc, n, n, { verifyRoots: true });
    const d = r.blocks[0];
    const slices = (text: string, at: number) =>
      elementSpans(text, at).map((sp) => text.slice(sp.start, sp.end));
    const txTexts = slices(blockText, memberSpan(blockText, 0, 'transactions')!.start);
    const rcTexts = slices(receiptsText, 0);
    expect(d.txs.map((t) => t.json)).toEqual(txTexts);
    expect(d.txs.map((t) => t.receipt)).toEqual(rcTexts);
    expect(d.txs[0].json).not.toBe(JSON.stringify(block.transactions[0]));
    const logTexts = rcTexts.flatMap((t) => slices(t, memberSpan(t, 0, 'logs')!.start));
    expect(d.logs.map((l) => l.json)).toEqual(logTexts);
    expect(JSON.parse(d.header)).toEqual({
      ...block,
      transactions: block.transactions.map((t: { hash: string }) => t.hash),
    });
    expect(d.header.startsWith(blockText.slice(0, 20))).toBe(true);
    // A rebuild from the stored texts shapes the same bytes again.
    const again = restoreBlock({
      header: d.header,
      txs: d.txs.map((t) => t.json),
      receipts: d.txs.map((t) => t.receipt),
      probes: null,
    });
    expect(again.txs.map((t) => [t.json, t.receipt])).toEqual(d.txs.map((t) => [t.json, t.receipt]));
    expect(again.header).toBe(d.header);
    expect(calls).toEqual(['eth_getBlockReceipts', 'eth_getBlockByNumber']);
  });

  it('a node without eth_getBlockReceipts falls back to one receipt per transaction', async () => {
    const node = recordedNode(() => {
      throw new RpcError('method not found', 'eth_getBlockReceipts', false, -32601);
    });
    const r = await fetchBlocks(node.rpc, n, n, { verifyRoots: true });
    expect(r.blocks[0].txs.map((t) => JSON.parse(t.receipt))).toEqual(receipts);
    expect(node.calls.filter((c) => c.startsWith('eth_getTransactionReceipt'))).toHaveLength(receipts.length);
  });
});
