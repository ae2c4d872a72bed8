/**
 * Anvil process management: probe a port, spawn a detached anvil (own process group, stdio
 * to `<stateDir>/anvil.log`, unref'd) so it outlives a crash of the indexer, and kill it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Chain id every devnet uses (anvil's default). */
export const DEVNET_CHAIN_ID = 31337;
/** Native balance of each anvil dev account, in ETH: deep enough for all seeded liquidity. */
export const DEV_ACCOUNT_BALANCE_ETH = 10_000_000;
/** How long to wait for a freshly spawned anvil to answer, in ms. */
const ANVIL_START_TIMEOUT_MS = 20_000;

/** JSON-RPC call over fetch with a timeout; throws on RPC error. */
export async function rpc<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 5_000,
): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Returns the chain id if something answers `eth_chainId` at url, else null. */
export async function probeChainId(url: string): Promise<number | null> {
  try {
    return Number(await rpc<string>(url, 'eth_chainId', [], 1_000));
  } catch {
    return null;
  }
}

export function anvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const require = createRequire(import.meta.url);
  try {
    const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
    const bin = join(dirname(pkg), 'bin', 'anvil');
    if (existsSync(bin)) return bin;
  } catch {
    /* fall through */
  }
  return 'anvil';
}

export interface SpawnAnvilOptions {
  port: number;
  stateDir: string;
  /** Extra CLI args (e.g. `--block-time`); automine is the default. */
  extraArgs?: string[];
}

/** Where the devnet's anvil keeps its persisted-state cache (inside the devnet state dir). */
const anvilCacheDir = (stateDir: string) => join(stateDir, 'anvil-cache');

/**
 * Spawns anvil detached on 127.0.0.1:port with chain id 31337 and automine, waits until it
 * answers, and writes its pid to `<stateDir>/anvil.pid`. Returns the pid.
 */
export async function spawnAnvil(o: SpawnAnvilOptions): Promise<number> {
  mkdirSync(o.stateDir, { recursive: true });
  rmSync(anvilCacheDir(o.stateDir), { recursive: true, force: true });
  mkdirSync(anvilCacheDir(o.stateDir), { recursive: true });
  const logFd = openSync(join(o.stateDir, 'anvil.log'), 'a');
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(o.port),
    '--chain-id',
    String(DEVNET_CHAIN_ID),
    '--balance',
    String(DEV_ACCOUNT_BALANCE_ETH),
    '--accounts',
    '10',
    // Many txs per block: the block gas limit must hold a second of traffic easily.
    '--gas-limit',
    '60000000',
    // anvil's persisted-state cache would go to ~/.foundry/anvil/tmp and is never removed, not
    // even on a graceful exit: keep it in the state dir, cleared at each start.
    '--cache-path',
    anvilCacheDir(o.stateDir),
    ...(o.extraArgs ?? []),
  ];
  const child = spawn(anvilBinary(), args, {
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('devnet: failed to spawn anvil');
  writeFileSync(join(o.stateDir, 'anvil.pid'), String(pid));
  const url = `http://127.0.0.1:${o.port}`;
  const deadline = Date.now() + ANVIL_START_TIMEOUT_MS;
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  while (Date.now() < deadline) {
    if (exited !== null) {
      throw new Error(`devnet: anvil exited with ${exited}; see ${join(o.stateDir, 'anvil.log')}`);
    }
    if ((await probeChainId(url)) !== null) return pid;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`devnet: anvil did not answer on ${url} within ${ANVIL_START_TIMEOUT_MS} ms`);
}

/** Kills the anvil process group whose pid is recorded in stateDir (SIGTERM, then SIGKILL). */
export async function killAnvil(stateDir: string, pid?: number): Promise<void> {
  const pidFile = join(stateDir, 'anvil.pid');
  const p = pid ?? (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : NaN);
  if (!Number.isFinite(p) || p <= 0) return;
  const alive = () => {
    try {
      process.kill(p, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-p, 'SIGTERM');
  } catch {
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      return;
    }
  }
  for (let i = 0; i < 30 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) {
    try {
      process.kill(-p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
