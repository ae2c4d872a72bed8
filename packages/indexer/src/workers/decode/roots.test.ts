/**
 * The decode worker's roots check on recorded mainnet blocks (test/fixtures): untouched blocks
 * verify; one altered byte anywhere in a consensus field is a typed mismatch; a refetch that
 * returns the right records recovers; an unknown type makes the block not_checkable, named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import { loadConfig } from '../../config/index.js';
import type { Rpc } from '../../rpc/client.js';
import { ROOTS } from '../../schema/tables/chain.js';
import { eachOp } from '../../storage/writer.js';
import { fetchBlocks } from './fetch-blocks.js';
import { checkRoots, RootsMismatchError, rootsMismatchOf, verifyBlocks } from './roots.js';

type Json = Record<string, any>;
const load = (set: string): [Json, Json[]] => [
  JSON.parse(readFileSync(join(FIXTURES_DIR, set, 'block.json'), 'utf8')),
  JSON.parse(readFileSync(join(FIXTURES_DIR, set, 'receipts.json'), 'utf8')),
];
const SETS = [
  'ethereum/17000000',
  'ethereum/18000000',
  'ethereum/18500000',
  'arbitrum/150000000',
  'devnet/v2-first-mint',
  'devnet/tx-types',
  'optimism/154497277',
];

describe('checkRoots', () => {
  for (const set of SETS) {
    it(`${set} verifies`, () => {
      const [b, rs] = load(set);
      expect(checkRoots(b, rs)).toEqual({ check: { status: 'verified' }, mismatches: [] });
    });
  }

  it('an unsigned (impersonated) transaction leaves the transactions unchecked, not a mismatch', () => {
    const [b, rs] = load('devnet/tx-types');
    // What anvil serves for an anvil_impersonateAccount send: r = s = 0, a hash of its own.
    b.transactions[0] = { ...b.transactions[0], r: '0x0', s: '0x0', hash: `0x${'ab'.repeat(32)}` };
    const r = checkRoots(b, rs);
    expect(r.mismatches).toEqual([]);
    expect(r.check).toEqual({ status: 'not_checkable', types: ['unsigned'], unchecked: ['transactions'] });
  });

  it("one altered byte of a log's data is a receipts_root mismatch", () => {
    const [b, rs] = load('ethereum/18000000');
    const i = rs.findIndex((r) => r.logs.length > 0);
    const d = rs[i].logs[0].data as string;
    rs[i].logs[0].data = `${d.slice(0, -1)}${d.endsWith('0') ? '1' : '0'}`;
    const r = checkRoots(b, rs);
    expect(r.mismatches.map((m) => m.what)).toEqual(['receipts_root']);
    expect(r.mismatches[0].expected).toBe(b.receiptsRoot);
  });

  it("an altered transaction value is that transaction's hash and the transactions root", () => {
    const [b, rs] = load('ethereum/17000000');
    b.transactions[5].value = '0x1234';
    expect(checkRoots(b, rs).mismatches.map((m) => [m.what, m.index])).toEqual([
      ['transaction_hash', 5],
      ['transactions_root', undefined],
    ]);
  });

  it('an altered header field is a header_hash mismatch', () => {
    const [b, rs] = load('ethereum/18500000');
    b.gasUsed = '0x1';
    expect(checkRoots(b, rs).mismatches.map((m) => m.what)).toEqual(['header_hash']);
  });

  it('a receipt out of order is a receipts_root mismatch', () => {
    const [b, rs] = load('ethereum/18500000');
    [rs[3], rs[4]] = [rs[4], rs[3]];
    expect(checkRoots(b, rs).mismatches.map((m) => m.what)).toEqual(['receipts_root']);
  });

  it('an unknown transaction type makes the block not_checkable, the type named', () => {
    const [b, rs] = load('arbitrum/150000000');
    b.transactions[1].type = '0x65';
    rs[1].type = '0x65';
    const r = checkRoots(b, rs);
    expect(r.mismatches).toEqual([]);
    expect(r.check).toEqual({
      status: 'not_checkable',
      types: ['0x65'],
      unchecked: ['transactions', 'receipts'],
    });
  });

  it('an unknown header field leaves the header hash unchecked, the roots still checked', () => {
    const [b, rs] = load('ethereum/18000000');
    b.futureField = '0x01';
    const r = checkRoots(b, rs);
    expect(r.check).toEqual({
      status: 'not_checkable',
      types: ['header:futureField'],
      unchecked: ['header'],
    });
    rs[0].cumulativeGasUsed = '0x1';
    expect(checkRoots(b, rs).mismatches.map((m) => m.what)).toEqual(['receipts_root']);
  });
});

describe('verifyBlocks', () => {
  it('refetches a mismatching block and keeps the copy that matches', async () => {
    const [b, rs] = load('ethereum/18000000');
    const bad = structuredClone(rs);
    bad[0].status = bad[0].status === '0x1' ? '0x0' : '0x1';
    const blocks = [b];
    const receipts = [bad];
    let calls = 0;
    const out = await verifyBlocks(blocks, receipts, true, async (n) => {
      calls++;
      expect(n).toBe(b.number);
      return { block: b, receipts: rs };
    });
    expect(out).toEqual([{ status: 'verified' }]);
    expect(calls).toBe(1);
    expect(receipts[0]).toBe(rs);
  });

  it('throws a typed RootsMismatchError when the mismatch persists; the cause survives a structured clone', async () => {
    const [b, rs] = load('ethereum/17000000');
    rs[2].logs = [];
    let calls = 0;
    const err = await verifyBlocks([b], [rs], true, async () => {
      calls++;
      return { block: b, receipts: rs };
    }).catch((e) => e);
    expect(err).toBeInstanceOf(RootsMismatchError);
    expect(calls).toBe(2);
    const cloned = structuredClone(err);
    const cause = rootsMismatchOf(cloned);
    expect(cause).toMatchObject({ kind: 'roots_mismatch', block: 17_000_000, hash: b.hash, attempts: 3 });
    expect(cause?.mismatches[0].what).toBe('receipts_root');
    expect(String(cloned.message)).toMatch(/^roots_mismatch: block 17000000/);
  });

  it('with verify off marks every block unchecked and checks nothing', async () => {
    const [b, rs] = load('ethereum/17000000');
    rs[2].logs = [];
    expect(await verifyBlocks([b], [rs], false, async () => null)).toEqual([{ status: 'unchecked' }]);
  });
});

describe('VERIFY_ROOTS', () => {
  it('is on by default, off when asked, and refuses anything else', () => {
    const key = () => 'k';
    expect(loadConfig({}, key).ingestTuning.verifyRoots).toBe(true);
    expect(loadConfig({ VERIFY_ROOTS: 'on' }, key).ingestTuning.verifyRoots).toBe(true);
    expect(loadConfig({ VERIFY_ROOTS: 'off' }, key).ingestTuning.verifyRoots).toBe(false);
    expect(() => loadConfig({ VERIFY_ROOTS: 'no' }, key)).toThrow(/VERIFY_ROOTS must be one of on, off/);
  });
});

describe('fetchBlocks holds every block to its header before rows are encoded', () => {
  /** A node answering block 17,000,000 from the recording; `tamper` alters the receipts it serves. */
  const node = (tamper: (rs: Json[]) => Json[]) => {
    const [b, rs] = load('ethereum/17000000');
    const calls: string[] = [];
    const rpc: Rpc = {
      async call<T>(method: string, params: unknown[] = []): Promise<T> {
        calls.push(method);
        if (method === 'eth_getBlockByNumber')
          return (params[0] === b.number ? structuredClone(b) : null) as T;
        if (method === 'eth_getBlockReceipts') return tamper(structuredClone(rs)) as T;
        throw new Error(`unexpected ${method}`);
      },
    };
    return { rpc, calls, block: b };
  };

  it('a matching block carries roots: verified, and its ROOTS row is among the encoded rows', async () => {
    const { rpc, block } = node((rs) => rs);
    const r = await fetchBlocks(rpc, 17_000_000, 17_000_000, { rows: true, texts: false });
    expect(r.blocks[0].roots).toEqual({ status: 'verified' });
    let rootsRow: string | null = null;
    eachOp(r.blocks[0].parts!.chain as ArrayBuffer, (key, value) => {
      if (key[0] === ROOTS.id) rootsRow = Buffer.from(value!).toString();
    });
    expect(rootsRow).toBe('{"status":"verified"}');
    expect(r.blocks[0].hash).toBe(block.hash);
  });

  it('a node that keeps altering a log fails the task with RootsMismatchError after three fetches', async () => {
    const { rpc, calls } = node((rs) => {
      const i = rs.findIndex((x) => x.logs.length > 0);
      rs[i].logs[0].topics = [...rs[i].logs[0].topics].reverse();
      return rs;
    });
    const err = await fetchBlocks(rpc, 17_000_000, 17_000_000, { rows: true }).catch((e) => e);
    expect(rootsMismatchOf(err)).toMatchObject({ block: 17_000_000, attempts: 3 });
    expect(calls.filter((c) => c === 'eth_getBlockReceipts')).toHaveLength(3);
  });

  it('with verifyRoots off the altered block passes, marked unchecked', async () => {
    const { rpc } = node((rs) => {
      rs[0].cumulativeGasUsed = '0x1';
      return rs;
    });
    const r = await fetchBlocks(rpc, 17_000_000, 17_000_000, { verifyRoots: false });
    expect(r.blocks[0].roots).toEqual({ status: 'unchecked' });
  });
});
