/**
 * The tokens projection's supply semantics on recorded receipts: a `Transfer(0x0, 0x0, v)` is a
 * mint to the zero address (Uniswap V2 locks MINIMUM_LIQUIDITY this way), so the indexed supply
 * equals the chain's `totalSupply()`; the zero address holds `v` and stays a burn sink.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../../../../test/fixtures/index.js';
import { ZERO } from '../schema/rows/tokens.js';
import { createStore, type Store } from '../storage/index.js';
import { shapeBlock } from '../workers/decode/fetch-blocks.js';
import { createTokensProjection } from './projection.js';
import { balanceAt, statsAt } from './read.js';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function indexBlock(set: string): Promise<{ store: Store; number: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tokens-proj-'));
  dirs.push(dir);
  const store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
  stores.push(store);
  const read = (f: string) => JSON.parse(readFileSync(join(FIXTURES_DIR, set, f), 'utf8'));
  const d = shapeBlock(read('block.json'), read('receipts.json'));
  const tokens = createTokensProjection({ launchpads: new Map() });
  store.commitBlock({ number: d.number, hash: d.hash }, (batch) => tokens.apply(batch, d));
  return { store, number: d.number };
}

const word = (hex: string) => BigInt(hex);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = `0x${'00'.repeat(32)}`;

describe('supply from transfers', () => {
  it('a Uniswap V2 first mint (real V2 bytecode): supply = minted liquidity + 1000 = totalSupply()', async () => {
    const set = 'devnet/v2-first-mint';
    const expected = JSON.parse(readFileSync(join(FIXTURES_DIR, set, 'expected.json'), 'utf8'));
    const { store, number } = await indexBlock(set);
    const pair = expected.pair as string;
    const receipts = JSON.parse(readFileSync(join(FIXTURES_DIR, set, 'receipts.json'), 'utf8'));
    const logs = receipts.flatMap((r: { logs: unknown[] }) => r.logs) as Array<{
      address: string;
      topics: string[];
      data: string;
    }>;
    const mints = logs.filter(
      (l) => l.address === pair && l.topics[0] === TRANSFER && l.topics[1] === ZERO_TOPIC,
    );
    const locked = mints.filter((l) => l.topics[2] === ZERO_TOPIC);
    expect(locked.map((l) => word(l.data))).toEqual([1000n]);
    const liquidity = mints.filter((l) => l.topics[2] !== ZERO_TOPIC).reduce((a, l) => a + word(l.data), 0n);
    const stats = statsAt(store.view(), pair, number)!;
    expect(stats.supplyFromTransfers).toBe((liquidity + 1000n).toString());
    expect(stats.supplyFromTransfers).toBe(expected.totalSupplyAtBlock);
    // balanceOf(address(0)) on the pair is MINIMUM_LIQUIDITY: the zero address holds it, as a sink.
    expect(balanceAt(store.view(), pair, ZERO, number)).toBe(1000n);
    expect(stats.burnSinkHolders).toBe(1);
    expect(stats.holders).toBe(1);
  });

  it('a recorded mainnet V2-style pair minting to the zero address (block 17,000,000)', async () => {
    const { store, number } = await indexBlock('ethereum/17000000');
    const pair = '0x534044106b09d0c15d3248917a23d52646d374bb';
    const receipts = JSON.parse(
      readFileSync(join(FIXTURES_DIR, 'ethereum/17000000/receipts.json'), 'utf8'),
    ) as Array<{ logs: Array<{ address: string; topics: string[]; data: string }> }>;
    let minted = 0n;
    let burned = 0n;
    for (const l of receipts.flatMap((r) => r.logs)) {
      if (l.address !== pair || l.topics[0] !== TRANSFER) continue;
      if (l.topics[1] === ZERO_TOPIC) minted += word(l.data);
      else if (l.topics[2] === ZERO_TOPIC) burned += word(l.data);
    }
    expect(minted).toBeGreaterThan(0n);
    // Only this block is indexed: the supply is this block's mints minus burns, the 0x0 → 0x0
    // mint counted once as a mint (it used to net to zero).
    expect(statsAt(store.view(), pair, number)!.supplyFromTransfers).toBe((minted - burned).toString());
    expect(balanceAt(store.view(), pair, ZERO, number)).toBe(0x603ae0ab6b1639a5n);
  });
});
