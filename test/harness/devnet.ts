/**
 * End-to-end test helper: a throwaway devnet on a free port with a temp stateDir.
 * `stop()` stops traffic and kills anvil's process group for sure.
 * Tests may call anvil_reorg, evm_mine, evm_setIntervalMining, ... on `rpcUrl`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevnetDeployment, startDevnet, type TrafficHandle } from '@chain-indexer/devnet';
import { compileContracts } from '@chain-indexer/devnet/contracts';
import { startIndexer } from './indexer.js';

export interface TestDevnet {
  rpcUrl: string;
  port: number;
  stateDir: string;
  deployment: DevnetDeployment;
  traffic: TrafficHandle | null;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Whether `port` can be bound on 127.0.0.1 right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A first port P such that P … P+n−1 are all free now (embedded devnets take DEVNET_PORT + i).
 * Drawn below Linux's ephemeral range (32768–60999): ports there are also handed out as the
 * local end of outgoing connections (the indexer's own RPC sockets to the first devnet), so a
 * neighbour of an OS-chosen port can be taken a moment later.
 */
export async function freePortRun(n: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const p = 20_000 + Math.floor(Math.random() * (12_000 - n));
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await bindable(p + i);
    if (ok) return p;
  }
  throw new Error(`no run of ${n} free ports found below the ephemeral range`);
}

export async function startTestDevnet(
  o: {
    blockTimeMs?: number;
    traffic?: boolean;
    seed?: number;
    txPerSecond?: number;
    log?: (m: string) => void;
  } = {},
): Promise<TestDevnet> {
  const port = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'devnet-test-'));
  const dev = await startDevnet({
    port,
    blockTimeMs: o.blockTimeMs ?? 500,
    seed: o.seed ?? 1,
    txPerSecond: o.traffic === false ? 0 : (o.txPerSecond ?? 15),
    stateDir,
    log: o.log ?? (() => undefined),
  }).catch(async (e) => {
    // startDevnet may have spawned anvil before failing: kill it before rethrowing.
    const { killAnvil } = await import('@chain-indexer/devnet/anvil');
    await killAnvil(stateDir);
    throw e;
  });
  let stopped = false;
  return {
    rpcUrl: dev.rpcUrl,
    port,
    stateDir,
    deployment: dev.deployment,
    traffic: dev.traffic,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await dev.killNode();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * Indexer configuration for a test devnet (the shape `npm start` derives for its embedded devnet):
 * its Uniswap V2/V3/V4 factories and manager, USD stablecoins (default: the devnet's stablecoins),
 * quote assets (default: stablecoins, WETH, native; `null` leaves the service default), and its
 * launchpad as `devnet-pad` on chain `chain` (unless `launchpad: false`). Writes the files into the
 * devnet's stateDir and returns the env entries (MARKETS_FILE, and LAUNCHPADS_FILE).
 */
export function devnetIndexerEnv(
  dev: Pick<TestDevnet, 'deployment' | 'stateDir'>,
  o: {
    chain?: string;
    usdStablecoins?: string[];
    quoteAssets?: string[] | null;
    launchpad?: boolean;
  } = {},
): Record<string, string> {
  const c = dev.deployment.contracts as unknown as Record<string, string>;
  const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address;
  const stables = dev.deployment.tokens.filter((t) => t.kind === 'stable').map((t) => t.address);
  const quoteAssets =
    o.quoteAssets === undefined
      ? [...stables, weth, '0x0000000000000000000000000000000000000000']
      : o.quoteAssets;
  const markets = join(dev.stateDir, 'markets.json');
  writeFileSync(
    markets,
    JSON.stringify({
      v2Factories: [c.uniswapV2Factory],
      v3Factories: [c.uniswapV3Factory],
      v4Managers: [c.poolManager],
      usdStablecoins: o.usdStablecoins ?? stables,
      ...(quoteAssets ? { quoteAssets } : {}),
    }),
  );
  if (o.launchpad === false) return { MARKETS_FILE: markets };
  return { MARKETS_FILE: markets, LAUNCHPADS_FILE: writeLaunchpads(dev, o.chain ?? 'testnet') };
}

/**
 * Writes the devnet's launchpad as `devnet-pad` on chain `chain` (its factory and curve, its
 * graduation target) into the devnet's stateDir; returns the file's path (LAUNCHPADS_FILE).
 */
export function writeLaunchpads(dev: Pick<TestDevnet, 'deployment' | 'stateDir'>, chain: string): string {
  const pads = join(dev.stateDir, 'launchpads.json');
  const pad = dev.deployment.launchpad;
  const at = { factories: [pad.address], curve: pad.address, graduationTargetWei: pad.graduationTargetWei };
  writeFileSync(pads, JSON.stringify({ 'devnet-pad': { [chain]: at } }));
  return pads;
}

/** solc output compiled once per test process (the compile takes seconds); removed at exit. */
let solcCache: string | null = null;

/**
 * A fresh data directory (`<tmp>/<prefix>…`) for an indexer with its embedded devnet, with the
 * compiled contracts already in its devnet state dir. The caller removes it.
 */
export function embeddedDataDir(prefix: string): string {
  if (!solcCache) {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-solc-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    compileContracts(dir, () => undefined);
    solcCache = dir;
  }
  const d = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(d, 'devnet'), { recursive: true });
  for (const f of readdirSync(solcCache).filter((x) => x.startsWith('solc-cache-')))
    copyFileSync(join(solcCache, f), join(d, 'devnet', f));
  return d;
}

/**
 * The real indexer (`dist/app/main.js`) with its embedded devnet on `port` as chain `devnet`:
 * 500 ms blocks, 10 tx/s, traces and scanner off unless `env` says otherwise.
 */
export function startEmbeddedIndexer(dataDir: string, port: number, env: Record<string, string> = {}) {
  return startIndexer({
    chain: 'devnet',
    dataDir,
    env: {
      DEVNET_PORT: String(port),
      DEVNET_BLOCK_TIME_MS: '500',
      DEVNET_TX_PER_SECOND: '10',
      TRACES: 'off',
      SCANNER: 'off',
      ...env,
    },
  });
}
