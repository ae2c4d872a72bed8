/**
 * Six blocks made from recorded Ethereum mainnet block 18,000,000 (94 transactions, ERC-20 and
 * WETH transfers among real wallets, mints and burns included), for the unit tests of folds over a
 * batch (a `.fixture.ts`: not part of the build): the block as recorded (A) and reversed (B: every
 * Transfer's from and to swapped, every WETH Deposit a Withdrawal and back), in the order
 * A A B A B B — balances go up, come back to the same value, cross zero, go negative and return.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockDelta } from '../schema/delta.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const DEPOSIT = '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c';
const WITHDRAWAL = '0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65';

// biome-ignore lint/suspicious/noExplicitAny: recorded node JSON
type Json = Record<string, any>;
/** The recorded block's files, under the repository's test fixtures (`dir`: its FIXTURES_DIR). */
const read = (dir: string, f: string): any =>
  JSON.parse(readFileSync(join(dir, 'ethereum', '18000000', f), 'utf8'));

/** Block 18,000,000's content as block `n` (hash made from `n`), reversed when `reverse`; `dir`: FIXTURES_DIR. */
export function blockAt(dir: string, n: number, reverse: boolean): BlockDelta {
  const hash = `0x${n.toString(16).padStart(64, 'f')}`;
  const parentHash = `0x${(n - 1).toString(16).padStart(64, 'f')}`;
  const number = `0x${n.toString(16)}`;
  const block: Json = { ...read(dir, 'block.json'), number, hash, parentHash };
  block.transactions = block.transactions.map((t: Json) => ({ ...t, blockHash: hash, blockNumber: number }));
  const receipts = (read(dir, 'receipts.json') as Json[]).map((r) => ({
    ...r,
    blockHash: hash,
    blockNumber: number,
    logs: r.logs.map((l: Json) => {
      const topics = [...l.topics];
      if (reverse && topics[0] === TRANSFER && topics.length === 3)
        [topics[1], topics[2]] = [topics[2], topics[1]];
      else if (reverse && topics[0] === DEPOSIT) topics[0] = WITHDRAWAL;
      else if (reverse && topics[0] === WITHDRAWAL) topics[0] = DEPOSIT;
      return { ...l, topics, blockHash: hash, blockNumber: number };
    }),
  }));
  return shapeBlock(block, receipts);
}

export const FIRST = 18_000_000;
/** The six blocks (A A B A B B) from block {@link FIRST} on; `dir`: FIXTURES_DIR. */
export const chain = (dir: string): BlockDelta[] =>
  [false, false, true, false, true, true].map((rev, i) => blockAt(dir, FIRST + i, rev));
