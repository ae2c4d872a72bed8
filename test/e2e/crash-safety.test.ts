/**
 * Crash safety: kill -9 the indexer at seeded random instants during backfill and during live
 * follow, restart on the same data directory each time; afterwards every block is present
 * exactly once and equals the node (no gap, no duplicate, no half-written block).
 */
import { createHash } from 'node:crypto';
import { prng } from '@chain-indexer/devnet/math';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, mineTransferBlocks, startAnvil } from '../harness/anvil.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';

let anvil: Anvil;
let idx: IndexerProcess | null = null;
const KILLS = Number(process.env.CRASH_KILLS ?? 20);

beforeAll(async () => {
  anvil = await startAnvil();
  await mineTransferBlocks(anvil, 150, (b) => 1 + (b % 5));
  await anvil.mine(1500);
});

afterAll(stopAll(() => [idx, anvil]));

/** Digest of the indexed chain through the API: every header hash and transaction list. */
async function digestOf(get: IndexerProcess['get'], head: number): Promise<string> {
  const h = createHash('sha256');
  for (let n = 0; n <= head; n++) {
    const b = await get(`/blocks/${n}`);
    expect(b.status).toBe(200);
    h.update(b.body.data.hash);
    const txs = await get(`/blocks/${n}/transactions?limit=1000`);
    expect(txs.body.data.length).toBe(b.body.data.transactions.length);
    for (const t of txs.body.data) h.update(t.hash);
  }
  return h.digest('hex');
}

async function nodeDigest(head: number): Promise<string> {
  const h = createHash('sha256');
  for (let n = 0; n <= head; n++) {
    const b = await anvil.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    h.update(b.hash);
    for (const t of b.transactions) h.update(t);
  }
  return h.digest('hex');
}

describe('kill -9 during backfill and live follow', () => {
  it(`survives ${KILLS} kills with no gap and no duplicate`, async () => {
    const rand = prng(42); // seeded (mulberry32): the same kill schedule on every run
    const target = await anvil.head();
    idx = await startIndexer({ rpcUrl: anvil.rpcUrl, env: { BLOCKS_PER_TASK: '5', DECODE_THREADS: '1' } });
    let kills = 0;
    let liveKills = 0;
    let midBackfill = 0;
    while (kills < KILLS) {
      // Let it run 50–400 ms, then kill -9 wherever it is.
      await new Promise((r) => setTimeout(r, 50 + rand() * 350));
      const live = kills >= KILLS - 5;
      if (live) {
        // Live follow: new blocks arriving while the process dies.
        await anvil.sendTransfers(2);
        await anvil.mine();
        liveKills++;
      }
      const at = (await idx.get('/checkpoints').catch(() => null))?.body?.anchor?.block ?? -1;
      if (at < target) midBackfill++;
      await idx.kill9();
      kills++;
      await idx.restart();
    }
    const head = await anvil.head();
    await idx.waitForHead(head, 120_000);
    expect(liveKills).toBeGreaterThan(0);
    expect(midBackfill).toBeGreaterThanOrEqual(KILLS / 2);
    expect(target).toBeGreaterThan(1500);
    const checkpoints = await idx.get('/checkpoints');
    expect(checkpoints.body.anchor.block).toBe(head);
    expect(await digestOf(idx.get, head)).toBe(await nodeDigest(head));
  });
});
