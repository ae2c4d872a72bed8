/**
 * Runs the real indexer (`node dist/app/main.js`) as a child process against a node, for
 * end-to-end tests: HTTP helpers, kill -9 and restart on the same data directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertContract } from './contract.js';
import { addTraceGate } from './trace-gate.js';

/** The cursor secret every test process shares (CURSOR_SECRET: hex, ≥ 32 bytes). */
export const TEST_CURSOR_SECRET = '5e'.repeat(32);

export const TEST_KEY = 'test-key-all-scopes';
// From the sources (vitest) the build is ../../dist; from the build itself (bench/scale-out.ts
// imports this harness compiled) it is ../../app beside it.
const MAIN = new URL(
  import.meta.url.includes('/dist/test/') ? '../../app/main.js' : '../../dist/app/main.js',
  import.meta.url,
).pathname;

export interface IndexerProcess {
  port: number;
  /** OS process id of the running indexer (changes on restart; 0 when not running). */
  readonly pid: number;
  dataDir: string;
  /**
   * GET on the indexer (chain-relative paths are prefixed with `/index/v1/<chain>`). Every body is
   * validated against the route's contract (harness/contract.ts): a violation fails the caller.
   */
  get(
    path: string,
    opts?: { key?: string | null; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  /** POST of a JSON body (batch), validated like {@link get}. */
  post(
    path: string,
    body: unknown,
    opts?: { key?: string | null; headers?: Record<string, string>; timeoutMs?: number; raw?: boolean },
  ): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  /** Resolves once the indexed head of `chain` (default: the process's default chain) is ≥ n. */
  waitForHead(n: number, timeoutMs?: number, chain?: string): Promise<number>;
  kill9(): Promise<void>;
  /**
   * SIGTERM, then waits for the exit (SIGKILL after 30 s): how long it took from the signal, ms,
   * and the exit code or signal. Unlike {@link stop} it never kills early: shutdown deadlines are
   * measured with it.
   */
  sigterm(): Promise<{ ms: number; code: number | null; signal: string | null }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
  /** Log lines of unhandled rejections, from every run of this process (restarts included). */
  strayRejections(): string[];
}

export async function startIndexer(o: {
  /** The node to index as chain `chain` (single-chain variables); omit with `chainsFile`. */
  rpcUrl?: string;
  /** A CHAINS_FILE to serve several chains; `chain` then names the default chain of `get`. */
  chainsFile?: string;
  chain?: string;
  env?: Record<string, string>;
  dataDir?: string;
  /** Every line the process writes (every run, restarts included) is also appended here. */
  logFile?: string;
  /** How long a start (or restart) may take until the process serves, ms (default 60 s). */
  startTimeoutMs?: number;
}): Promise<IndexerProcess> {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'idx-test-'));
  const chain = o.chain ?? 'testnet';
  let child: ChildProcess | null = null;
  let port = 0;
  let out = '';
  /** Unhandled-rejection lines of earlier runs (a restart starts a new log). */
  const stray: string[] = [];
  const strayIn = (log: string) => log.split('\n').filter((l) => l.includes('unhandled rejection'));

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      stray.push(...strayIn(out));
      out = '';
      const c = spawn(process.execPath, [MAIN], {
        env: {
          ...process.env,
          ...(o.chainsFile ? { CHAINS_FILE: o.chainsFile } : { RPC_URL: o.rpcUrl, CHAIN: chain }),
          DATA_DIR: dataDir,
          DEV_API_KEY: TEST_KEY,
          // A writer and its replicas share one cursor secret from their config (never from NATS).
          CURSOR_SECRET: TEST_CURSOR_SECRET,
          PORT: '0',
          METRICS_PORT: '0',
          POLL_MS: '50',
          LOG_LEVEL: 'info',
          ...o.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = c;
      const timer = setTimeout(
        () => reject(new Error(`indexer did not start:\n${out}`)),
        o.startTimeoutMs ?? 60_000,
      );
      const onData = (d: Buffer) => {
        out += d.toString();
        if (o.logFile) appendFileSync(o.logFile, d);
        if (out.length > 2_000_000) out = out.slice(-1_000_000);
        const m = /serving http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        if (m && !port) {
          port = Number(m[1]);
          clearTimeout(timer);
          resolve();
        }
      };
      c.stdout!.on('data', onData);
      c.stderr!.on('data', onData);
      c.on('exit', (code) => {
        if (!port) {
          clearTimeout(timer);
          reject(new Error(`indexer exited with ${code}:\n${out}`));
        }
      });
    });

  const exited = (c: ChildProcess) =>
    new Promise<void>((r) =>
      c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r()),
    );

  const request = async (
    method: 'GET' | 'POST',
    path: string,
    payload: string | undefined,
    opts: { key?: string | null; headers?: Record<string, string>; timeoutMs?: number },
  ) => {
    const full =
      path.startsWith('/index/') || path.startsWith('/health/') || path.startsWith('/metrics')
        ? path
        : `/index/v1/${chain}${path}`;
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? TEST_KEY : opts.key;
    if (key !== null) headers['x-api-key'] = key;
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    // Bounded: an indexer that stops answering fails the caller's check instead of hanging it.
    const res = await fetch(`http://127.0.0.1:${port}${full}`, {
      method,
      headers,
      body: payload,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {}
    if ((res.headers.get('content-type') ?? '').startsWith('application/json'))
      assertContract(method, full, res.status, body, text);
    return { status: res.status, body, text, headers: res.headers };
  };

  await launch();
  /**
   * Before the test mines or reorgs: wait (at most 15 s) until this indexer's traces lane has
   * replayed every indexed block, so no debug_traceBlockByNumber is in flight (harness/trace-gate.ts).
   */
  const removeGate = addTraceGate(async () => {
    for (const t0 = Date.now(); port && Date.now() - t0 < 15_000; ) {
      const h = (await request('GET', '/health', undefined, { timeoutMs: 2_000 }).catch(() => null))?.body;
      if (h?.traces?.state !== 'following' || !h.traces.behindBlocks) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  const api: IndexerProcess = {
    get port() {
      return port;
    },
    get pid() {
      const c = child as ChildProcess | null;
      return c && c.exitCode === null && c.signalCode === null ? (c.pid ?? 0) : 0;
    },
    dataDir,
    async get(path, opts = {}) {
      return request('GET', path, undefined, opts);
    },
    async post(path, body, opts = {}) {
      return request('POST', path, opts.raw ? String(body) : JSON.stringify(body), opts);
    },
    async waitForHead(n, timeoutMs = 60_000, on = chain) {
      const t0 = Date.now();
      for (;;) {
        const r = await api.get(`/index/v1/${on}/checkpoints`).catch(() => null);
        const h = r?.body?.anchor?.block;
        if (typeof h === 'number' && h >= n) return h;
        if (Date.now() - t0 > timeoutMs)
          throw new Error(`head did not reach ${n} (at ${h}):\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill9() {
      const c = child!;
      c.kill('SIGKILL');
      await exited(c);
      port = 0;
    },
    async sigterm() {
      const c = child!;
      const t0 = Date.now();
      const done = new Promise<{ ms: number; code: number | null; signal: string | null }>((r) =>
        c.exitCode !== null || c.signalCode !== null
          ? r({ ms: 0, code: c.exitCode, signal: c.signalCode })
          : c.once('exit', (code, signal) => r({ ms: Date.now() - t0, code, signal })),
      );
      c.kill('SIGTERM');
      const killer = setTimeout(() => c.kill('SIGKILL'), 30_000);
      const res = await done;
      clearTimeout(killer);
      port = 0;
      return res;
    },
    async restart() {
      port = 0;
      await launch();
    },
    async stop() {
      removeGate();
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        c.kill('SIGTERM');
        await Promise.race([exited(c), new Promise((r) => setTimeout(r, 5000))]);
        if (c.exitCode === null && c.signalCode === null) {
          // Wait for the kill too: the next reader of the data dir needs RocksDB's lock released.
          process.stderr.write(
            `indexer (${dataDir}) did not stop within 5 s of SIGTERM: killed\n${out.slice(-2000)}\n`,
          );
          c.kill('SIGKILL');
          await exited(c);
        }
      }
      if (!o.dataDir) rmSync(dataDir, { recursive: true, force: true });
      // Every suite's stray rejections, wherever it does not check them itself, for a sweep:
      // STRAY_REJECTIONS_LOG=path npm test, then read the file.
      const lines = api.strayRejections();
      if (lines.length && process.env.STRAY_REJECTIONS_LOG)
        appendFileSync(process.env.STRAY_REJECTIONS_LOG, `${dataDir}\n${lines.join('\n')}\n`);
    },
    logs: () => out,
    strayRejections: () => [...stray, ...strayIn(out)],
  };
  return api;
}
