/**
 * The set-up of the late-start suites: a devnet whose traffic runs before the indexer starts with
 * START_BLOCK past the creation and first trades of its pools, then goes quiet.
 */

import type { TestDevnet } from './devnet.js';
import type { IndexerProcess } from './indexer.js';
import { jsonRpc } from './rpc.js';

/** The devnet of the late-start suites: 500 ms blocks, traffic at 25 transactions a second. */
export const LATE_START_DEVNET = { blockTimeMs: 500, traffic: true, txPerSecond: 25 } as const;

const headOf = async (dev: TestDevnet) =>
  Number.parseInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);

/**
 * Waits for the traffic and lets it run until block 40 (at most 120 s), so pools are created,
 * seeded and traded before the indexed range starts; returns the head then (the START_BLOCK).
 */
export async function tradeBeforeStart(dev: TestDevnet): Promise<number> {
  await dev.traffic?.ready;
  for (const t0 = Date.now(); (await headOf(dev)) < 40 && Date.now() - t0 < 120_000; )
    await new Promise((r) => setTimeout(r, 250));
  return headOf(dev);
}

/**
 * Lets the indexer follow 25 blocks past `startBlock` under traffic, stops the traffic and waits
 * until the indexer reaches the quiet head, which it returns. Throws when a wait times out.
 */
export async function followThenQuiet(
  dev: TestDevnet,
  idx: IndexerProcess,
  startBlock: number,
): Promise<number> {
  await idx.waitForHead(startBlock + 25, 120_000);
  await dev.traffic?.stop();
  const quietHead = await headOf(dev);
  await idx.waitForHead(quietHead, 60_000);
  return quietHead;
}
