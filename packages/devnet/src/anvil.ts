/**
 * Devnet node process management: probe a port, spawn the detached devnet node (node-main.ts:
 * anvil behind the JSON-RPC front, one process group, output to `<stateDir>/anvil.log`, unref'd)
 * so it outlives a crash of the indexer, record it in `<stateDir>/anvil.json` (the marker that
 * tells our node from a foreign one), and kill it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { moduleProcessArgs } from './ts-loader.js';

/** Chain id every devnet uses (anvil's default). */
export const DEVNET_CHAIN_ID = 31337;
/** Native balance of each anvil dev account, in ETH: deep enough for all seeded liquidity. */
export const DEV_ACCOUNT_BALANCE_ETH = 10_000_000;
/** How long to wait for a freshly spawned devnet node to answer, in ms. */
const ANVIL_START_TIMEOUT_MS = 20_000;
/**
 * How long a node that holds the port but is slow to answer (busy tracing, a loaded machine) is
 * waited for before start-up gives up, in ms. It is never taken for an absent node.
 */
export const BUSY_NODE_TIMEOUT_MS = 30_000;

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

/**
 * Runs `call` against a node that holds its port but may be slow (busy tracing or mining a large
 * block on a loaded machine). `call` gets its timeout in ms: `firstTimeoutMs`, doubled on each try
 * that timed out, until `budgetMs` has passed since the first try; then the last error is thrown.
 * An answer with an RPC error (or any error other than a timeout) is not retried.
 * Used where start-up reuses a running node (a restart must not fail because the kept node was
 * busy for a few seconds: the soak's kill -9 restarts hit that on a loaded CI machine).
 */
export async function patiently<T>(
  call: (timeoutMs: number) => Promise<T>,
  budgetMs = BUSY_NODE_TIMEOUT_MS,
  firstTimeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let timeoutMs = firstTimeoutMs; ; timeoutMs *= 2) {
    try {
      return await call(Math.max(1, Math.min(timeoutMs, deadline - Date.now())));
    } catch (err) {
      const name = (err as Error).name;
      const slow = name === 'TimeoutError' || name === 'AbortError';
      if (!slow || Date.now() >= deadline) throw err;
    }
  }
}

/**
 * One JSON-RPC batch over fetch with a timeout: `calls` as [method, params], results in the same
 * order. @throws Error naming the first call the node answered with an error.
 */
export async function rpcBatch<T = unknown>(
  url: string,
  calls: Array<[string, unknown[]]>,
  timeoutMs = 10_000,
): Promise<T[]> {
  if (calls.length === 0) return [];
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as Array<{ id: number; result?: T; error?: { message: string } }>;
  const byId = new Map(body.map((a) => [a.id, a]));
  return calls.map(([method], id) => {
    const a = byId.get(id);
    if (!a || a.error) throw new Error(`${method}: ${a?.error?.message ?? 'no answer in the batch'}`);
    return a.result as T;
  });
}

/**
 * The marker of a node this devnet started: `<stateDir>/anvil.json`. A node answering on the port
 * is "ours" when its block-0 hash equals the marker's (anvil's genesis hash includes its start
 * time, so two anvils never share one) — whatever happened to the process that started it.
 */
export interface NodeMarker {
  /** Process id of the devnet node (node-main.ts; its process group holds anvil too). */
  pid: number;
  /** The devnet port (the front). */
  port: number;
  chainId: number;
  /** Hash of block 0 of the node as started. */
  genesisHash: string;
  /** ISO time the node was started. */
  startedAt: string;
  /** True for a node with the JSON-RPC front (absent: a bare anvil an earlier version started). */
  front?: boolean;
}

const markerFile = (stateDir: string) => join(stateDir, 'anvil.json');

/** Reads `<stateDir>/anvil.json`; null when absent or unreadable. */
export function readMarker(stateDir: string): NodeMarker | null {
  try {
    return JSON.parse(readFileSync(markerFile(stateDir), 'utf8')) as NodeMarker;
  } catch {
    return null;
  }
}

/** What answers on a port: the identity facts a refusal message reports. */
export interface NodeFacts {
  chainId: number;
  genesisHash: string;
  head: number;
  clientVersion: string;
}

/** Reads chain id, block-0 hash, head and client version of the node at url (each call bounded by `timeoutMs`, default 5 s). @throws on RPC failure or timeout. */
export async function nodeFacts(url: string, timeoutMs?: number): Promise<NodeFacts> {
  const [chainId, genesis, head, clientVersion] = await Promise.all([
    rpc<string>(url, 'eth_chainId', [], timeoutMs),
    rpc<{ hash: string } | null>(url, 'eth_getBlockByNumber', ['0x0', false], timeoutMs),
    rpc<string>(url, 'eth_blockNumber', [], timeoutMs),
    rpc<string>(url, 'web3_clientVersion', [], timeoutMs).catch(() => 'unknown client'),
  ]);
  return {
    chainId: Number(chainId),
    genesisHash: genesis?.hash ?? 'none',
    head: Number(head),
    clientVersion,
  };
}

/** Pids of devnet nodes this process spawned and has not killed yet (stateDir by pid). */
const spawnedHere = new Map<number, string>();

/**
 * Kills every devnet node this process spawned and did not kill yet (start-up interrupted by a
 * signal before the chain runtime that owns the node existed).
 */
export async function killNodesStartedHere(): Promise<void> {
  for (const [pid, stateDir] of [...spawnedHere]) await killAnvil(stateDir, pid);
}

/**
 * Whether something accepts TCP connections on 127.0.0.1:port. Refused: false. Accepted, or no
 * answer to the connect within `timeoutMs` (a full accept queue): true.
 */
export function portHeld(port: number, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    const done = (held: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(held);
    };
    const timer = setTimeout(() => done(true), timeoutMs);
    sock.once('connect', () => done(true));
    sock.once('error', (e: NodeJS.ErrnoException) => done(e.code !== 'ECONNREFUSED'));
  });
}

/**
 * The chain id of the node on 127.0.0.1:port, or null when nothing listens there. A listener that
 * is slow to answer `eth_chainId` is asked again until `waitMs` has passed: a busy node is not an
 * absent one (taking it for absent would spawn a second node on a held port and deploy again on
 * the first one's chain). @throws Error when the port is held but nothing answers within waitMs.
 */
export async function nodeOnPort(port: number, waitMs = BUSY_NODE_TIMEOUT_MS): Promise<number | null> {
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (!(await portHeld(port))) return null;
    const id = await probeChainId(url, Math.min(5_000, Math.max(1_000, deadline - Date.now())));
    if (id !== null) return id;
    if (Date.now() >= deadline)
      throw new Error(
        `devnet: 127.0.0.1:${port} accepts connections but does not answer eth_chainId within ${waitMs} ms; ` +
          `a node started by this data directory may be stuck (see its anvil.log) or another program holds the port. ` +
          `Stop it (find it with \`lsof -i :${port}\`) or set DEVNET_PORT to a free port.`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Returns the chain id if something answers `eth_chainId` at url within timeoutMs, else null. */
export async function probeChainId(url: string, timeoutMs = 1_000): Promise<number | null> {
  try {
    return Number(await rpc<string>(url, 'eth_chainId', [], timeoutMs));
  } catch {
    return null;
  }
}

/** The anvil binary: ANVIL_BIN, else the one the @foundry-rs/anvil-linux-amd64 package ships, else `anvil`. */
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

/** Where the devnet's anvil keeps its persisted-state cache (inside the devnet state dir). */
export const anvilCacheDir = (stateDir: string) => join(stateDir, 'anvil-cache');

/**
 * anvil's command line for the devnet (without the mining mode): 127.0.0.1:port, chain id 31337,
 * 10 dev accounts of {@link DEV_ACCOUNT_BALANCE_ETH}, a 60M block gas limit, its state cache in
 * `cachePath`.
 */
export function anvilArgs(o: { port: number; cachePath: string }): string[] {
  return [
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
    o.cachePath,
  ];
}

export interface SpawnNodeOptions {
  /** The devnet port (the JSON-RPC front). */
  port: number;
  stateDir: string;
  /** The front's block period, ms (0 = no interval mining). */
  blockTimeMs: number;
  /** Extra anvil arguments. */
  extraArgs?: string[];
}

/** The last lines of a log file, on one line (for an error message); '' when unreadable. */
function logTail(path: string, lines = 5): string {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

/**
 * Spawns the devnet node detached (node-main.ts: anvil on an internal port with mining off, and
 * the JSON-RPC front on 127.0.0.1:port whose miner mines every `blockTimeMs`; own process group,
 * output to `<stateDir>/anvil.log`, unref'd), waits until the front answers, and records it in
 * `<stateDir>/anvil.json` and `anvil.pid`. Returns the node process's pid.
 * @throws Error when the port is already held, or the node exits or does not answer within 20 s
 *   (with the log's last lines).
 */
export async function spawnNode(o: SpawnNodeOptions): Promise<number> {
  // A node that answers on the port must never be taken for the one spawned here (nor its cache
  // directory removed from under it).
  if (await portHeld(o.port))
    throw new Error(`devnet: 127.0.0.1:${o.port} is already in use; not starting a second node on it`);
  mkdirSync(o.stateDir, { recursive: true });
  rmSync(anvilCacheDir(o.stateDir), { recursive: true, force: true });
  mkdirSync(anvilCacheDir(o.stateDir), { recursive: true });
  const logFile = join(o.stateDir, 'anvil.log');
  const logFd = openSync(logFile, 'a');
  const args = [
    ...moduleProcessArgs('node-main'),
    '--port',
    String(o.port),
    '--block-time-ms',
    String(o.blockTimeMs),
    '--cache-path',
    anvilCacheDir(o.stateDir),
    '--',
    ...(o.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('devnet: failed to spawn the devnet node');
  spawnedHere.set(pid, o.stateDir);
  writeFileSync(join(o.stateDir, 'anvil.pid'), String(pid));
  const url = `http://127.0.0.1:${o.port}`;
  const deadline = Date.now() + ANVIL_START_TIMEOUT_MS;
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  while (Date.now() < deadline) {
    if (exited !== null) {
      spawnedHere.delete(pid);
      throw new Error(
        `devnet: the devnet node exited with ${exited} (port ${o.port}); last log lines: ${logTail(logFile)}`,
      );
    }
    if ((await probeChainId(url)) !== null && exited === null) {
      const facts = await nodeFacts(url);
      const marker: NodeMarker = {
        pid,
        port: o.port,
        chainId: facts.chainId,
        genesisHash: facts.genesisHash,
        startedAt: new Date().toISOString(),
        front: true,
      };
      writeFileSync(markerFile(o.stateDir), `${JSON.stringify(marker, null, 2)}\n`);
      return pid;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`devnet: the devnet node did not answer on ${url} within ${ANVIL_START_TIMEOUT_MS} ms`);
}

/**
 * Whether pid still runs the devnet node (or, from an earlier version, the bare anvil) started for
 * stateDir: on Linux its command line must name the state dir's cache path (a recycled pid of
 * another program is never signalled); elsewhere the pid is trusted.
 */
function isOurAnvil(pid: number, stateDir: string): boolean {
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync('/proc/self/cmdline')) return true;
  try {
    return readFileSync(cmdline, 'utf8').split('\0').includes(anvilCacheDir(stateDir));
  } catch {
    return false;
  }
}

/** Pid of the devnet node started for stateDir (anvil.json, else anvil.pid) if it still runs; else null. */
export function runningAnvilPid(stateDir: string): number | null {
  const pidFile = join(stateDir, 'anvil.pid');
  const p = readMarker(stateDir)?.pid ?? (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : NaN);
  return Number.isFinite(p) && p > 0 && isOurAnvil(p, stateDir) ? p : null;
}

/**
 * Whether pid runs: it exists and, where /proc tells, is no zombie (a node whose starter exited is
 * reaped by init, which can take a while; it runs nothing and holds no port meanwhile).
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; the command may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Kills the devnet node's process group started for stateDir (pid from anvil.json / anvil.pid, or
 * `pid`; the group holds anvil too): SIGTERM, then SIGKILL after 3 s. A pid that no longer runs
 * that node is left alone.
 */
export async function killAnvil(stateDir: string, pid?: number): Promise<void> {
  const p = pid ?? runningAnvilPid(stateDir) ?? NaN;
  if (pid !== undefined) spawnedHere.delete(pid);
  if (!Number.isFinite(p) || p <= 0) return;
  spawnedHere.delete(p);
  if (!isOurAnvil(p, stateDir)) return;
  const alive = () => isRunning(p);
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

/**
 * SIGKILLs the devnet node's process group started for stateDir at once, synchronously (a
 * shutdown past its deadline). A pid that no longer runs that node is left alone.
 */
export function killNodeNow(stateDir: string): void {
  const p = runningAnvilPid(stateDir);
  if (p === null) return;
  spawnedHere.delete(p);
  try {
    process.kill(-p, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** {@link killNodeNow} for every devnet node this process spawned and did not kill yet. */
export function killNodesStartedHereNow(): void {
  for (const stateDir of [...spawnedHere.values()]) killNodeNow(stateDir);
}
