/**
 * Start-up check that the data directory belongs to the node's chain. A devnet replaced since
 * the last run (new genesis) resets the data with a clear message; a real chain that does not
 * match refuses to start — serving another chain's data would be wrong data.
 */
import type { Logger } from 'pino';
import type { Rpc } from '../rpc/client.js';
import type { ChainIdentity } from './refs.js';
import type { Store } from './store-types.js';

export async function checkChainIdentity(o: {
  store: Store;
  rpc: Rpc;
  chain: string;
  startBlock: number;
  /** True for the embedded devnet: a mismatch resets the data instead of refusing. */
  resettable: boolean;
  log: Logger;
}): Promise<ChainIdentity> {
  const chainId = Number.parseInt(await o.rpc.call<string>('eth_chainId'), 16);
  const hashAt = async (n: number) =>
    (await o.rpc.call<{ hash: `0x${string}` } | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]))
      ?.hash ?? null;
  const have = o.store.getMeta<ChainIdentity>('identity');
  if (have) {
    // A node that does not have our first block yet is behind (still syncing), not another chain:
    // wait for it rather than refusing or resetting.
    let nodeHash = await hashAt(have.firstBlock);
    for (let i = 0; nodeHash === null && have.chainId === chainId; i++) {
      if (i % 20 === 0)
        o.log.warn(
          { block: have.firstBlock },
          'the node does not have our first block yet (behind or syncing); waiting',
        );
      await new Promise((r) => setTimeout(r, 500));
      nodeHash = await hashAt(have.firstBlock);
    }
    const why =
      have.chain !== o.chain
        ? `data directory holds chain "${have.chain}", not "${o.chain}"`
        : have.chainId !== chainId
          ? `data directory holds chain id ${have.chainId}, node is chain id ${chainId}`
          : nodeHash !== have.firstBlockHash
            ? `node's block ${have.firstBlock} is ${nodeHash ?? 'missing'}, data directory has ${have.firstBlockHash} (a different chain)`
            : null;
    if (!why) return have;
    if (!o.resettable)
      throw new Error(`refusing to start: ${why}. Point DATA_DIR at an empty directory or the right node.`);
    o.log.warn(
      `the devnet was replaced since the last run (${why}); resetting the index data and indexing the new devnet from block ${o.startBlock}`,
    );
    o.store.wipe();
  }
  let first: `0x${string}` | null = null;
  for (let i = 0; i < 100 && !first; i++) {
    first = await hashAt(o.startBlock);
    if (!first) await new Promise((r) => setTimeout(r, 500));
  }
  if (!first) throw new Error(`the node has no block ${o.startBlock} (START_BLOCK); cannot start`);
  const id: ChainIdentity = { chain: o.chain, chainId, firstBlock: o.startBlock, firstBlockHash: first };
  o.store.putMeta('identity', id);
  return id;
}
