/**
 * A devnet that has run seeded traffic and then stopped (the benches that read a settled chain):
 * 500 ms blocks, seed 1, 15 transactions a second, state in `stateDir`.
 */
import { type DevnetHandle, startDevnet } from '@chain-indexer/devnet';
import { freePort } from '../test/harness/anvil.js';
import { devnetIndexerEnv } from '../test/harness/devnet.js';
import { rpc, sleep } from './lib.js';

/** Starts the devnet on a free port with its traffic (not yet ready: {@link settleTraffic} waits). */
export async function startTrafficDevnet(stateDir: string): Promise<DevnetHandle> {
  return startDevnet({
    port: await freePort(),
    blockTimeMs: 500,
    seed: 1,
    txPerSecond: 15,
    stateDir,
    log: () => {},
  });
}

/**
 * Waits for the traffic, calls `onReady`, lets it run `seconds`, stops traffic and block
 * production, and writes the indexer's markets file (the devnet's factories and manager, its
 * stablecoins as USD, quotes: stablecoins, WETH, native). Returns the head block number and the
 * file's path; a failed node read throws.
 */
export async function settleTraffic(
  dev: DevnetHandle,
  stateDir: string,
  seconds: number,
  onReady: () => void,
): Promise<{ head: number; markets: string }> {
  await dev.traffic!.ready;
  onReady();
  await sleep(seconds * 1000);
  await dev.stop();
  await sleep(2500);
  await rpc(dev.rpcUrl, 'evm_setIntervalMining', [0]);
  const head = Number.parseInt(await rpc<string>(dev.rpcUrl, 'eth_blockNumber', []), 16);
  const { MARKETS_FILE } = devnetIndexerEnv({ deployment: dev.deployment, stateDir }, { launchpad: false });
  return { head, markets: MARKETS_FILE };
}
