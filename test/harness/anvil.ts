/**
 * A bare anvil node for chain-record end-to-end tests (the full devnet with Uniswap and traffic
 * lives in test/harness/devnet.ts). Real node, real JSON-RPC; nothing is mocked.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeNodeWrite } from './trace-gate.js';

const require = createRequire(import.meta.url);

/** Path of the anvil binary shipped by the @foundry-rs/anvil-<platform> package (Linux x64 here: the only platform package the registry serves). */
export function anvilBinary(): string {
  const pkg = require.resolve(
    `@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`,
  );
  return join(dirname(pkg), 'bin', 'anvil');
}

/**
 * Every thread's stack of a hung process (gdb in batch mode, when installed), written to
 * test-output/hangs/; returns where, or why not. Diagnostic only: a hung node still fails the test.
 */
export function dumpStacks(pid: number | undefined): string {
  if (!pid) return 'no pid';
  const dir = join(process.cwd(), 'test-output', 'hangs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `anvil-${pid}-${Date.now()}.txt`);
  // The devnet node is a front process with anvil as its child: the child's stacks are the ones
  // that show a node-side lock, so every process of the tree is dumped.
  let out = '';
  for (const p of [pid, ...descendants(pid)]) {
    const gdb = spawnSync('gdb', ['-p', String(p), '-batch', '-ex', 'thread apply all bt'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (gdb.error) return `no stacks (gdb: ${gdb.error.message})`;
    out += `===== pid ${p}: ${cmdline(p)}\n${gdb.stdout}\n${gdb.stderr}\n`;
  }
  writeFileSync(file, out);
  return `thread stacks in ${file}`;
}

/** Pids of every descendant of pid (Linux /proc; none elsewhere). */
function descendants(pid: number): number[] {
  const kids = (p: number): number[] => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const out: number[] = [];
  for (let queue = kids(pid); queue.length > 0; ) {
    const p = queue.shift()!;
    out.push(p);
    queue = queue.concat(kids(p));
  }
  return out;
}

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').slice(0, 300);
  } catch {
    return '?';
  }
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

export interface Anvil {
  rpcUrl: string;
  port: number;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** Sends `n` native transfers between dev accounts (automine off: they land in the next mined block). */
  sendTransfers(n: number): Promise<string[]>;
  mine(blocks?: number): Promise<void>;
  head(): Promise<number>;
  stop(): Promise<void>;
}

export const DEV_ACCOUNTS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
  '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65',
];

/**
 * The arguments every anvil of the tests and benches takes: `port` on 127.0.0.1, silent, and its
 * persisted-state cache in a fresh temp dir (`cacheDir`, the caller removes it on stop).
 */
export function anvilBaseArgs(port: number): { args: string[]; cacheDir: string } {
  const cacheDir = mkdtempSync(join(tmpdir(), 'anvil-cache-'));
  return {
    args: ['--port', String(port), '--host', '127.0.0.1', '--silent', '--cache-path', cacheDir],
    cacheDir,
  };
}

/** Mines `blocks` blocks on `anvil`, block b holding `perBlock(b)` transfers. */
export async function mineTransferBlocks(
  anvil: Anvil,
  blocks: number,
  perBlock: (b: number) => number,
): Promise<void> {
  for (let b = 0; b < blocks; b++) {
    await anvil.sendTransfers(perBlock(b));
    await anvil.mine();
  }
}

export async function startAnvil(
  o: { blockTime?: number; args?: string[] /** Fixed port (default: a free one). */; port?: number } = {},
): Promise<Anvil> {
  const port = o.port ?? (await freePort());
  // anvil's persisted-state cache goes to ~/.foundry/anvil/tmp unless told otherwise and is never
  // removed, even on a graceful exit: give it a temp dir and remove that on stop.
  const { args: base, cacheDir } = anvilBaseArgs(port);
  const args = [...base, ...(o.args ?? [])];
  if (o.blockTime) args.push('--block-time', String(o.blockTime));
  else args.push('--no-mining');
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: 'ignore' });
  const rpcUrl = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    await beforeNodeWrite(method);
    let res: Response;
    try {
      res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        // A hung node fails the test with the method named, not a silent test timeout.
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      if ((err as Error).name !== 'TimeoutError') throw err;
      throw new Error(
        `anvil (pid ${child.pid}) did not answer ${method} within 30 s: ${dumpStacks(child.pid)}`,
        {
          cause: err,
        },
      );
    }
    const j = (await res.json()) as { result?: T; error?: { message: string } };
    if (j.error) throw new Error(`${method}: ${j.error.message}`);
    return j.result as T;
  };
  for (let i = 0; ; i++) {
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (i > 100) throw new Error('anvil did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    rpcUrl,
    port,
    rpc,
    async sendTransfers(n) {
      const hashes: string[] = [];
      for (let i = 0; i < n; i++) {
        const from = DEV_ACCOUNTS[i % DEV_ACCOUNTS.length];
        const to = DEV_ACCOUNTS[(i + 1) % DEV_ACCOUNTS.length];
        hashes.push(await rpc('eth_sendTransaction', [{ from, to, value: `0x${(1000 + i).toString(16)}` }]));
      }
      return hashes;
    },
    async mine(blocks = 1) {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    async head() {
      return Number.parseInt(await rpc<string>('eth_blockNumber'), 16);
    },
    async stop() {
      // SIGTERM first: anvil removes its on-disk state cache (~/.foundry/anvil/tmp/anvil-state-*)
      // only on a graceful exit; SIGKILL leaves it behind (74 GB of them filled the disk once).
      const exited = new Promise((r) =>
        child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r),
      );
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(t);
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}
