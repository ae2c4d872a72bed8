/**
 * The embedded devnet: a detached anvil (chain id 31337) with real Uniswap V2/V3/V4 bytecode,
 * WETH9, test tokens, a launchpad and a value forwarder, plus a traffic generator running in a
 * worker thread. See README.md in this folder for what is deployed and the emitted events.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { DEVNET_CHAIN_ID, killAnvil, probeChainId, rpc, spawnAnvil } from './anvil.js';
import { compileContracts } from './compile.js';
import { deployAll } from './deploy.js';
import { startTraffic, type TrafficHandle } from './traffic.js';
import type { DevnetDeployment } from './types.js';

export { DEVNET_CHAIN_ID } from './anvil.js';
export { startTraffic, type TrafficHandle, type TrafficOptions, type TrafficStats } from './traffic.js';
export type {
  DevnetContracts,
  DevnetDeployment,
  LaunchpadInfo,
  PoolInfo,
  PoolProtocol,
  TokenInfo,
  TokenKind,
} from './types.js';

export interface DevnetOptions {
  /** TCP port on 127.0.0.1 (env DEVNET_PORT, default 8545). */
  port: number;
  /** Interval-mining period in ms (default 1000; fractions of a second are fine on a fresh anvil). */
  blockTimeMs: number;
  /** Seed of the traffic generator's PRNG and of its wallet keys. */
  seed: number;
  /** Target transactions per second sent by the traffic generator (default 15); 0 = no traffic. */
  txPerSecond: number;
  /** Directory for deployment.json, anvil.log, anvil.pid and the solc cache (DATA_DIR/devnet). */
  stateDir: string;
  log: (msg: string) => void;
}

/** Defaults for DevnetOptions (the lead maps env vars onto these). */
export const DEVNET_DEFAULTS = { port: 8545, blockTimeMs: 1000, seed: 1, txPerSecond: 15 } as const;

export interface DevnetHandle {
  /** http://127.0.0.1:<port> */
  rpcUrl: string;
  deployment: DevnetDeployment;
  /** True when an already running node with a matching deployment.json was reused. */
  reused: boolean;
  /** Stops the traffic generator only; anvil keeps running (it is detached). */
  stop(): Promise<void>;
  /** Kills the anvil process group (if this process or an earlier one spawned it). */
  killNode(): Promise<void>;
  traffic: TrafficHandle | null;
}

/**
 * Starts (or reuses) anvil on 127.0.0.1:port, deploys (or reuses) the contracts, starts traffic.
 * Reuse rule: a node already answering eth_chainId is reused; its deployment is reused when
 * `<stateDir>/deployment.json` has the node's block-0 hash and the contracts have code.
 */
export async function startDevnet(opts: DevnetOptions): Promise<DevnetHandle> {
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  mkdirSync(opts.stateDir, { recursive: true });
  const depFile = join(opts.stateDir, 'deployment.json');
  let spawned = false;
  const chainId = await probeChainId(rpcUrl);
  if (chainId === null) {
    await spawnAnvil({
      port: opts.port,
      stateDir: opts.stateDir,
      extraArgs: ['--block-time', String(opts.blockTimeMs / 1000)],
    });
    spawned = true;
    opts.log(
      `devnet: started anvil on ${rpcUrl} (block time ${opts.blockTimeMs} ms, log ${join(opts.stateDir, 'anvil.log')})`,
    );
  } else if (chainId !== DEVNET_CHAIN_ID) {
    throw new Error(`devnet: ${rpcUrl} answers chain id ${chainId}, expected ${DEVNET_CHAIN_ID}`);
  } else {
    opts.log(`devnet: reusing the node already answering on ${rpcUrl}`);
    // Keep the requested period when it is whole seconds (the RPC takes integer seconds).
    if (opts.blockTimeMs % 1000 === 0)
      await rpc(rpcUrl, 'evm_setIntervalMining', [opts.blockTimeMs / 1000]).catch(() => undefined);
  }

  let deployment: DevnetDeployment | null = null;
  let reused = false;
  if (!spawned && existsSync(depFile)) {
    const saved = JSON.parse(readFileSync(depFile, 'utf8')) as DevnetDeployment;
    const genesis = await rpc<{ hash: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false]);
    if (saved.version === 1 && saved.genesisHash === genesis.hash) {
      const codes = await Promise.all(
        Object.values(saved.contracts).map((a) => rpc<Hex>(rpcUrl, 'eth_getCode', [a, 'latest'])),
      );
      if (codes.every((c) => c !== '0x')) {
        deployment = saved;
        reused = true;
        opts.log(`devnet: reusing deployment from ${depFile}`);
      }
    }
  }
  const compiled = compileContracts(opts.stateDir, opts.log);
  if (!deployment) {
    deployment = await deployAll(rpcUrl, compiled, opts.log);
    writeFileSync(depFile, `${JSON.stringify(deployment, null, 2)}\n`);
  }

  const traffic =
    opts.txPerSecond > 0
      ? await startTraffic({
          rpcUrl,
          deployment,
          seed: opts.seed,
          txPerSecond: opts.txPerSecond,
          blockTimeMs: opts.blockTimeMs,
          childBytecode: compiled.Child?.bytecode,
          log: opts.log,
        })
      : null;
  return {
    rpcUrl,
    deployment,
    reused,
    traffic,
    stop: async () => {
      await traffic?.stop();
    },
    killNode: async () => {
      await traffic?.stop();
      await killAnvil(opts.stateDir);
    },
  };
}
