/**
 * The embedded devnet's start: `startDevnet(opts)` reuses or spawns the devnet node, deploys (or
 * replays) the contracts and starts the traffic worker. The package's door is index.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hex } from 'viem';
import {
  DEVNET_CHAIN_ID,
  killAnvil,
  killNodeNow,
  nodeFacts,
  nodeOnPort,
  patiently,
  readMarker,
  rpc,
  runningAnvilPid,
  spawnNode,
} from './anvil.js';
import { compileContracts } from './compile.js';
import { deployAll } from './deploy.js';
import { noRefusals } from './funds.js';
import { codelessCount, deployedAddresses, devAccount, replayDeployment, type SignedTx } from './signer.js';
import { startTraffic, type TrafficHandle } from './traffic.js';
import type { DevnetDeployment, DevnetStatus, TrafficStatus } from './types.js';

export interface DevnetOptions {
  /** TCP port on 127.0.0.1 (env DEVNET_PORT, default 8545). */
  port: number;
  /** Block period of the devnet's miner in ms (default 1000; any number of ms). */
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
  /** True when an already running node of ours with a matching deployment.json was reused. */
  reused: boolean;
  /** Stops the traffic generator only; the node keeps running (it is detached). */
  stop(): Promise<void>;
  /** Kills the devnet node's process group, anvil included (if this process or an earlier one spawned it). */
  killNode(): Promise<void>;
  /** SIGKILLs the devnet node's process group now, synchronously (a shutdown past its deadline). */
  killNodeNow(): void;
  traffic: TrafficHandle | null;
  /** Node and traffic generator state (served in /health as `devnet`). */
  status(): DevnetStatus;
}

/**
 * Thrown when the port is served by a node this devnet did not start; the message says what was
 * found and what to do.
 */
export class ForeignNodeError extends Error {}

/**
 * Whether the node answering at rpcUrl is one this devnet started from stateDir: its block-0 hash
 * equals the one recorded in `anvil.json` when it was spawned, or the one of `deployment.json`
 * (a node an earlier version started and deployed to). A node left by a crash or kept with
 * DEVNET_KEEP=1 passes; any other node (another anvil, a node started from another DATA_DIR)
 * does not. @throws ForeignNodeError describing the node and the way out.
 */
async function checkOurs(rpcUrl: string, port: number, stateDir: string): Promise<void> {
  const found = await patiently((t) => nodeFacts(rpcUrl, t));
  const marker = readMarker(stateDir);
  const depFile = join(stateDir, 'deployment.json');
  const dep = existsSync(depFile)
    ? (JSON.parse(readFileSync(depFile, 'utf8')) as Partial<DevnetDeployment>)
    : null;
  const ours =
    found.chainId === DEVNET_CHAIN_ID &&
    ((marker?.port === port && marker.genesisHash === found.genesisHash) ||
      dep?.genesisHash === found.genesisHash);
  if (ours) return;
  const recorded = marker
    ? `the node this data directory started (${join(stateDir, 'anvil.json')}) had pid ${marker.pid}, port ${marker.port}, genesis ${marker.genesisHash}, started ${marker.startedAt}`
    : `no node was started from this data directory (${stateDir} has no anvil.json)`;
  throw new ForeignNodeError(
    `devnet: 127.0.0.1:${port} is served by a node this devnet did not start: ${found.clientVersion}, chain id ${found.chainId}, genesis ${found.genesisHash}, head block ${found.head}; ${recorded}. ` +
      `It is not reused: its accounts and contracts are unknown (deploying on it fails or mixes with someone else's state). ` +
      `Stop that node (e.g. find it with \`lsof -i :${port}\`), or set DEVNET_PORT to a free port.`,
  );
}

/**
 * Loads the deployment of a reused node (same genesis as `deployment.json`). When a reorg dropped
 * part of it (contracts, tokens or seeded launches without code), its signed transactions
 * (`deployment-txs.json`) are sent again first — same senders and nonces, so the same addresses —
 * as the traffic generator does after a reorg: a restart that caught that replay half-way must
 * finish it, not deploy a second copy at new addresses (the markets and launchpad addresses other
 * readers of this devnet were given would then name contracts this devnet no longer uses).
 * Null when there is nothing to reuse, or the deployment cannot be restored (logged).
 */
async function reusableDeployment(
  rpcUrl: string,
  depFile: string,
  txsFile: string,
  log: (m: string) => void,
): Promise<DevnetDeployment | null> {
  if (!existsSync(depFile)) return null;
  const saved = JSON.parse(readFileSync(depFile, 'utf8')) as DevnetDeployment;
  const genesis = await patiently((t) =>
    rpc<{ hash: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['0x0', false], t),
  );
  if (saved.version !== 1 || saved.genesisHash !== genesis.hash) return null;
  const addresses = deployedAddresses(saved);
  const missing = () => patiently((t) => codelessCount(rpcUrl, addresses, t));
  const gone = await missing();
  if (gone > 0) {
    if (!existsSync(txsFile)) {
      log(
        `devnet: ${gone} deployed contract(s) have no code and there is no ${txsFile} to send again; deploying afresh`,
      );
      return null;
    }
    log(
      `devnet: ${gone} deployed contract(s) have no code (a reorg dropped part of the deployment): sending its transactions again (same addresses)`,
    );
    try {
      await replayDeployment(rpcUrl, JSON.parse(readFileSync(txsFile, 'utf8')) as SignedTx[], [
        devAccount(0),
        devAccount(1),
      ]);
    } catch (err) {
      log(`devnet: the deployment cannot be restored (${(err as Error).message}); deploying afresh`);
      return null;
    }
    const still = await missing();
    if (still > 0) {
      log(
        `devnet: ${still} deployed contract(s) still have no code after sending the deployment again; deploying afresh`,
      );
      return null;
    }
  }
  log(`devnet: reusing deployment from ${depFile}`);
  return saved;
}

/**
 * Starts (or reuses) the devnet node on 127.0.0.1:port (anvil behind the JSON-RPC front, whose
 * miner mines a block every `blockTimeMs`), deploys (or reuses) the contracts, starts traffic.
 * Reuse rule: a node already answering on the port is reused only when it is ours (see
 * {@link checkOurs}: a node left by a crash or kept with DEVNET_KEEP=1); its block period is set to
 * `blockTimeMs`; a bare anvil an earlier version started (no front) is replaced; its deployment is reused
 * when `<stateDir>/deployment.json` has the node's block-0 hash and the contracts have code.
 * The deployment's signed transactions are kept in `<stateDir>/deployment-txs.json` so the
 * traffic generator can send them again after a reorg dropped them.
 * @throws ForeignNodeError when another node answers on the port; Error when the node does not
 *   start or the deployment fails.
 */
export async function startDevnet(opts: DevnetOptions): Promise<DevnetHandle> {
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  mkdirSync(opts.stateDir, { recursive: true });
  const depFile = join(opts.stateDir, 'deployment.json');
  const txsFile = join(opts.stateDir, 'deployment-txs.json');
  let spawned = false;
  // A held port is waited on (a busy node is slow, not gone): see nodeOnPort.
  if ((await nodeOnPort(opts.port)) !== null) {
    await checkOurs(rpcUrl, opts.port, opts.stateDir);
    if (readMarker(opts.stateDir)?.front) {
      opts.log(`devnet: reusing the node this data directory started, still answering on ${rpcUrl}`);
      await patiently((t) => rpc(rpcUrl, 'evm_setIntervalMining', [opts.blockTimeMs / 1000], t));
    } else {
      // A bare anvil an earlier version started (no front: its mining races reorgs and traces).
      opts.log(`devnet: the node on ${rpcUrl} predates the devnet front; replacing it with a new one`);
      await killAnvil(opts.stateDir);
    }
  }
  if ((await nodeOnPort(opts.port)) === null) {
    await spawnNode({ port: opts.port, stateDir: opts.stateDir, blockTimeMs: opts.blockTimeMs });
    spawned = true;
    opts.log(
      `devnet: started the devnet node on ${rpcUrl} (anvil behind the front, block time ${opts.blockTimeMs} ms, log ${join(opts.stateDir, 'anvil.log')})`,
    );
  }

  let deployment = spawned ? null : await reusableDeployment(rpcUrl, depFile, txsFile, opts.log);
  const reused = deployment !== null;
  let deploymentTxs: SignedTx[] = [];
  if (deployment && existsSync(txsFile)) deploymentTxs = JSON.parse(readFileSync(txsFile, 'utf8'));
  const compiled = compileContracts(opts.stateDir, opts.log);
  if (!deployment) {
    deployment = await deployAll(rpcUrl, compiled, opts.log, deploymentTxs);
    writeFileSync(txsFile, JSON.stringify(deploymentTxs));
    writeFileSync(depFile, `${JSON.stringify(deployment, null, 2)}\n`);
  }

  const traffic =
    opts.txPerSecond > 0
      ? await startTraffic({
          rpcUrl,
          deployment,
          deploymentTxs,
          seed: opts.seed,
          txPerSecond: opts.txPerSecond,
          blockTimeMs: opts.blockTimeMs,
          childBytecode: compiled.Child?.bytecode,
          log: opts.log,
        })
      : null;
  const startedAt = new Date().toISOString();
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
    killNodeNow: () => killNodeNow(opts.stateDir),
    status: () => ({
      rpcUrl,
      node: { pid: runningAnvilPid(opts.stateDir), reused: !spawned },
      traffic: traffic?.status() ?? disabledTraffic(startedAt),
    }),
  };
}

/** The status of a devnet started with txPerSecond = 0. */
function disabledTraffic(since: string): TrafficStatus {
  return {
    state: 'disabled',
    since,
    stopReason: null,
    lastError: null,
    sent: 0,
    swaps: 0,
    refused: 0,
    refusedBy: noRefusals(),
    failedActions: 0,
    restarts: 0,
    setupRedone: 0,
    reorgsDetected: 0,
    wallets: 0,
  };
}
