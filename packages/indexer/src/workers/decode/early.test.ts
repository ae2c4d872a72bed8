/**
 * An early decode task (DecodeTask.early, the live driver's): the worker posts the shaped blocks
 * with their state keys on the task's port, then answers their encoded rows. Against a JSON-RPC
 * node over HTTP serving a recorded mainnet block (test/fixtures): the two answers together hold
 * exactly what a one-answer task's blocks hold, and nothing of the rows is in the first.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../../test/fixtures/index.js';
import type { BlockParts, FetchResult, LateRows } from '../../schema/delta.js';
import decode from './worker.js';

const dir = join(FIXTURES_DIR, 'ethereum/18000000');
const blockText = readFileSync(join(dir, 'block.json'), 'utf8');
const receiptsText = readFileSync(join(dir, 'receipts.json'), 'utf8');
const number = Number.parseInt(JSON.parse(blockText).number, 16);

interface Call {
  id: number;
  method: string;
  params: unknown[];
}

/** A decode task's answer as a worker thread hands it to piscina (moved buffers unwrapped). */
const unwrap = <T>(r: unknown): T => ((r as Record<symbol, unknown>)[Piscina.valueSymbol] ?? r) as T;

/** A node that knows the recorded block (by number or hash) and nothing else. */
let node: Server;
let url: string;
beforeAll(async () => {
  node = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const parsed = JSON.parse(body) as Call | Call[];
      const one = (c: Call) => {
        const result =
          c.method === 'eth_getBlockByNumber'
            ? Number.parseInt(String(c.params[0]), 16) === number
              ? blockText
              : 'null'
            : c.method === 'eth_getBlockReceipts'
              ? receiptsText
              : c.method === 'eth_chainId'
                ? '"0x1"'
                : '"0x"';
        return `{"jsonrpc":"2.0","id":${c.id},"result":${result}}`;
      };
      res.setHeader('content-type', 'application/json');
      res.end(Array.isArray(parsed) ? `[${parsed.map(one).join(',')}]` : one(parsed));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => node.close(() => r())));

const hex = (b: ArrayBuffer | undefined) => (b ? Buffer.from(b).toString('hex') : null);

describe('an early decode task', () => {
  it('posts the shaped blocks and state keys first, then answers the rows a one-answer task carries', async () => {
    const task = { rpcUrl: url, from: number, to: number, rows: true, texts: true, priors: true };
    const whole = unwrap<FetchResult>(await decode(task));
    expect(whole.blocks).toHaveLength(1);

    const { port1, port2 } = new MessageChannel();
    const first = new Promise<FetchResult>((r) => port1.once('message', r));
    const late = unwrap<LateRows>(await decode({ ...task, early: port2 }));
    const early = await first;
    port1.close();

    const [a] = whole.blocks;
    const [b] = early.blocks;
    // The first answer: the shaped block with its texts and state keys, no rows.
    expect(b.parts).toBeUndefined();
    expect(b.txs.length).toBeGreaterThan(50);
    expect(b.txs.map((t) => t.json)).toEqual(a.txs.map((t) => t.json));
    expect(b.logs.map((l) => l.decoded)).toEqual(a.logs.map((l) => l.decoded));
    expect(b.header).toBe(a.header);
    expect(hex(b.stateKeys)).toBe(hex(a.stateKeys));
    expect(b.partProbes).toBe(a.partProbes);
    expect(early.marks!.encoded).toBeLessThanOrEqual(late.encoded);
    // The second: the same rows, byte for byte, part by part.
    expect(late.parts).toHaveLength(1);
    const want = a.parts as BlockParts;
    for (const k of ['chain', 'decodedViews', 'tokens', 'wallets'] as const)
      expect(hex(late.parts[0][k])).toBe(hex(want[k]));
    expect(late.heap?.threadId).toBeTypeOf('number');
  });

  it('a block the node does not have yet is posted as missing, and no rows follow', async () => {
    const { port1, port2 } = new MessageChannel();
    const first = new Promise<FetchResult>((r) => port1.once('message', r));
    const late = unwrap<LateRows>(
      await decode({ rpcUrl: url, from: number + 1, to: number + 1, early: port2 }),
    );
    const early = await first;
    port1.close();
    expect(early.blocks).toEqual([]);
    expect(early.missingFrom).toBe(number + 1);
    expect(late.parts).toEqual([]);
  });
});
