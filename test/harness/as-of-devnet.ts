/**
 * The phases the as-of-block suites share (test/e2e/as-of-*.test.ts): a devnet indexed from a late
 * start, so its first blocks are written as history segments and the rest block by block, and one
 * `anvil_reorg` the index follows.
 */

import { hex, sleep } from '../faults/lib.js';
import type { TestDevnet } from './devnet.js';
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
