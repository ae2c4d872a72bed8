/**
 * The phases the as-of-block suites share (test/e2e/as-of-*.test.ts): a devnet indexed from a late
 * start, so its first blocks are written as history segments and the rest block by block, and one
 * `anvil_reorg` the index follows.
 */

import { hex, sleep } from '../faults/lib.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from './devnet.js';
import { type IndexerProcess, startIndexer } from './indexer.js';
import { freezeNode, jsonRpc } from './rpc.js';

/** Replacement transaction of the reorg: native value from a funded dev account to a fresh wallet. */
const REPLACER = '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f';

/**
 * Starts the indexer (env `env`, kept by reference for restarts) once the devnet is past block
 * 100, so those blocks are final when it comes up and written as history segments, and waits until
 * it has indexed block 140. @throws Error when the devnet or the index does not get there in time.
 */
export async function startLate(dev: TestDevnet, env: Record<string, string>): Promise<IndexerProcess> {
  const head = async () => Number(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber'));
  for (const t0 = Date.now(); (await head()) < 100; await sleep(200))
    if (Date.now() - t0 > 120_000) throw new Error('devnet did not reach block 100');
  const idx = await startIndexer({ rpcUrl: dev.rpcUrl, env });
  await idx.waitForHead(140, 180_000);
  return idx;
}

/**
 * Replaces the last `depth` blocks of the (frozen) node with one native transfer, mines under
 * traffic for 6 s more, stops the traffic, freezes the node and waits until the index's anchor is
 * the node's head by hash. Returns that head. @throws Error when the index does not get there.
 */
export async function reorgAndSettle(dev: TestDevnet, idx: IndexerProcess, depth: number): Promise<number> {
  const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
  await rpc('anvil_reorg', [
    depth,
    [[{ from: REPLACER, to: `0x${'7'.repeat(40)}`, value: hex(10 ** 15) }, 0]],
  ]);
  await rpc('evm_setIntervalMining', [1]);
  await sleep(6_000);
  await dev.traffic?.stop();
  const head = await freezeNode(dev.rpcUrl);
  const finalHash = (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(head), false])).hash;
  for (const t0 = Date.now(); ; await sleep(100)) {
    const a = (await idx.get('/health')).body.anchor;
    if (a && a.block === head && a.hash === finalHash) return head;
    if (Date.now() - t0 > 120_000) throw new Error(`the index did not reach ${head} ${finalHash}`);
  }
}

/** The reads at a block the as-of suites hold the index to, on the node behind `rpcUrl()`. */
export function nodeAt(rpcUrl: () => string) {
  const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(rpcUrl(), method, params);
  /** The node's hash of block `n`. */
  const hashOf = async (n: number) =>
    (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(n), false])).hash;
  /** The 32-byte words `to` answers to `data` at block `n`. */
  const words = async (to: string, data: string, n: number) => {
    const out = await rpc<string>('eth_call', [{ to, data }, hex(n)]);
    return (out.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
  };
  /** A 32-byte ABI word of an integer or an address. */
  const pad = (v: bigint | string) => (typeof v === 'bigint' ? v.toString(16) : v.slice(2)).padStart(64, '0');
  return { rpc, hashOf, words, pad };
}

/**
 * The set-up the as-of suites share: a devnet of seed `seed` with traffic (250 ms blocks, 25 tx/s)
 * and an indexer started late on it ({@link startLate}) with a live window of `window` blocks,
 * TRACES off, and `extraEnv`. Returns the devnet, the indexer, its environment (kept by reference
 * for restarts) and the end of the history it wrote as segments.
 */
export async function startAsOfIndex(
  seed: number,
  window: number,
  extraEnv: Record<string, string> = {},
): Promise<{ dev: TestDevnet; idx: IndexerProcess; env: Record<string, string>; historyEnd: number }> {
  const dev = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 25, seed });
  const env = {
    ...devnetIndexerEnv(dev),
    FINALITY: 'window',
    UNFINALISED_WINDOW: String(window),
    TRACES: 'off',
    ...extraEnv,
  };
  // A late start: the first ~100 blocks are written as history segments, the rest block by block.
  const idx = await startLate(dev, env);
  const historyEnd = (await idx.get('/health')).body.ingest.historyEnd as number;
  return { dev, idx, env, historyEnd };
}
