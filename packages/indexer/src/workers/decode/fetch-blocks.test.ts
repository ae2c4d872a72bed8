/**
 * shapeBlock on real recorded mainnet blocks and receipts (test/fixtures): the delta the
 * ingest writer commits keeps every record byte-for-byte (as parsed JSON) and indexes logs and
 * transactions consistently.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import { restoreBlock, shapeBlock } from './fetch-blocks.js';

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
