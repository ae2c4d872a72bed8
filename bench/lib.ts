/**
 * Shared helpers of the release benchmark (bench/run.ts): process lifecycle (every child is
 * registered and killed on exit, even on failure), the indexer child with its pid and metrics
 * port, RSS and metrics sampling, raw JSON-RPC, percentiles and a typed autocannon wrapper.
 */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { closedLoop, type LoopOptions } from './http-sampler.js';

const require = createRequire(import.meta.url);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const log = (m: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

// ---------------------------------------------------------------------------------------------
// Children: every process the bench starts is tracked here and killed on exit / signal.

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void> | void> = [];

export function track(c: ChildProcess): ChildProcess {
  children.add(c);
  c.once('exit', () => children.delete(c));
  return c;
}

/**
 * Runs `cmd args` in `cwd` (tracked, so it is stopped with the bench), output dropped.
 * @throws when it exits non-zero, with the end of its stderr.
 */
export function runQuiet(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = track(spawn(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] }));
    let err = '';
    c.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    c.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`)),
    );
  });
}
export function onCleanup(f: () => Promise<void> | void): void {
  cleanups.push(f);
}
export async function cleanupAll(): Promise<void> {
  for (const f of cleanups.splice(0).reverse()) {
    try {
      await f();
    } catch {}
  }
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}
/**
 * Runs a bench's `main` (its exit code) as the whole process: a throw is logged as FAILED with its
 * stack and exits 1; every tracked child and clean-up runs before the exit.
 */
export async function runBench(main: () => Promise<number>): Promise<never> {
  let exitCode = 1;
  try {
    exitCode = await main();
  } catch (e) {
    log(`FAILED: ${(e as Error).stack ?? e}`);
    exitCode = 1;
  } finally {
    await cleanupAll();
  }
  process.exit(exitCode);
}
/**
 * Runs a CLI bench's `main` when this process was started as `file` (e.g. `traces-lane.js`): a
 * throw is written to stderr and sets exit code 1; the clean-ups run either way.
 */
export function runIfEntry(file: string, main: () => Promise<void>): void {
  if (!process.argv[1]?.endsWith(file)) return;
  main()
    .catch((e) => {
      process.stderr.write(`${e?.stack ?? e}\n`);
      process.exitCode = 1;
    })
    .finally(() => cleanupAll());
}

/** Writes a markdown report to stdout, and to the file of `--out` when `arg` names one. */
export function emitReport(md: string, arg: (name: string, d: string) => string): void {
  process.stdout.write(`${md}\n`);
  const out = arg('--out', '');
  if (out) writeFileSync(out, `${md}\n`);
}

/**
 * Runs `main` and exits 0 when it resolves; when it throws, logs `failed:` with the stack, runs the
 * clean-ups and exits 1.
 */
export function exitAfter(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      log(`failed: ${(e as Error).stack ?? e}`);
      void cleanupAll().then(() => process.exit(1));
    },
  );
}

/**
 * The short commit of the checkout at `root` and whether its tracked files have uncommitted
 * changes; `nocommit` (and not dirty) when git does not answer.
 */
export function headCommit(root: string): { commit: string; dirty: boolean } {
  let commit = 'nocommit';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { cwd: root, encoding: 'utf8' });
    return { commit, dirty: dirty.trim() !== '' };
  } catch {
    return { commit, dirty: false };
  }
}

process.once('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    void cleanupAll().finally(() => process.exit(130));
  });
}

export const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

export async function stopChild(c: ChildProcess, graceMs = 5000): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGTERM');
  await Promise.race([exited(c), sleep(graceMs)]);
  if (c.exitCode === null && c.signalCode === null) {
    c.kill('SIGKILL');
    await exited(c);
  }
}

// ---------------------------------------------------------------------------------------------
// Raw JSON-RPC over fetch (no viem: the bench measures the node, not a client library).

let rpcId = 0;
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const j = (await res.json()) as { result?: T; error?: { message: string } };
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result as T;
}
export async function rpcBatch(url: string, calls: Array<[string, unknown[]]>): Promise<any[]> {
  const body = calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: i, method, params }));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as Array<{ id: number; result?: unknown; error?: { message: string } }>;
  const out = new Array(calls.length);
  for (const r of j) {
    if (r.error) throw new Error(`${calls[r.id]?.[0]}: ${r.error.message}`);
    out[r.id] = r.result;
  }
  return out;
}
export const hex = (n: number | bigint) => `0x${n.toString(16)}`;

// ---------------------------------------------------------------------------------------------
// Statistics.

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
export function summarize(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    p999: percentile(s, 99.9),
    max: s[s.length - 1] ?? Number.NaN,
  };
}
export const round = (x: number, d = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);

// ---------------------------------------------------------------------------------------------
// Process sampling.

/** Resident set size of a pid in MiB (VmRSS of /proc/<pid>/status), or NaN when gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Reads one gauge from a Prometheus text page (first sample, no labels). */
export function promValue(text: string, name: string): number | null {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

// ---------------------------------------------------------------------------------------------
// The indexer as a child process (pid and metrics port exposed, unlike test/harness/indexer.ts).

/**
 * The indexer entry point measured: this tree's build, or `INDEXER_MAIN` (e.g. the build of a clean
 * `git archive` of the release commit while the working tree is mid-edit).
 */
export const INDEXER_MAIN = process.env.INDEXER_MAIN ?? new URL('../app/main.js', import.meta.url).pathname;
const MAIN = INDEXER_MAIN;
export const BENCH_KEY = 'bench-key-all-scopes';

/**
 * The command line of the A/B ingest benches: `arg(name, default)` reads `--name value`, and
 * `mains` lists every `--main label=path` (or `--main path`) build to alternate, this tree's build
 * when none is given.
 */
export function benchArgs(argv: string[]): {
  arg: (name: string, d: string) => string;
  mains: Array<[string, string]>;
} {
  const arg = (name: string, d: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : d;
  };
  const mains: Array<[string, string]> = [];
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === '--main') {
      const v = argv[i + 1];
      const eq = v.indexOf('=');
      mains.push(eq > 0 ? [v.slice(0, eq), v.slice(eq + 1)] : [v, v]);
    }
  if (!mains.length) mains.push(['this build', INDEXER_MAIN]);
  return { arg, mains };
}

/**
 * The environment a `--main` build runs with: every `<flag> label=K=V,K2=V2` of that label (so one
 * build can run twice under two labels with different settings).
 */
export function envFor(argv: string[], label: string, flag = '--env'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== flag) continue;
    const v = argv[i + 1] ?? '';
    const eq = v.indexOf('=');
    if (eq <= 0 || v.slice(0, eq) !== label) continue;
    for (const kv of v.slice(eq + 1).split(',')) {
      const e = kv.indexOf('=');
      if (e > 0) out[kv.slice(0, e)] = kv.slice(e + 1);
    }
  }
  return out;
}

/**
 * Node/V8 flags for the indexer of one `--main` build: `--node-flags label=--flag1,--flag2`
 * (repeatable; e.g. `--node-flags minor-ms=--minor-ms`). The same dist may be listed twice under two
 * labels to compare flags in one run. Empty for a label without flags.
 */
export function nodeFlagsFor(argv: string[], label: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === '--node-flags') {
      const v = argv[i + 1] ?? '';
      const eq = v.indexOf('=');
      if (eq > 0 && v.slice(0, eq) === label)
        out.push(
          ...v
            .slice(eq + 1)
            .split(',')
            .filter(Boolean),
        );
    }
  return out;
}

export interface IndexerChild {
  pid: number;
  port: number;
  metricsPort: number;
  base: string;
  startedAt: number;
  get(path: string): Promise<{ status: number; body: any; bytes: number }>;
  anchor(): Promise<number>;
  metrics(): Promise<string>;
  stop(): Promise<void>;
  logs(): string;
}

export async function startIndexerChild(o: {
  rpcUrl: string;
  chain: string;
  dataDir: string;
  env?: Record<string, string>;
  /** Extra node flags before the entry point (e.g. `--cpu-prof`). */
  execArgv?: string[];
  /** Entry point to run instead of {@link INDEXER_MAIN} (e.g. a baseline build to compare with). */
  main?: string;
}): Promise<IndexerChild> {
  const startedAt = performance.now();
  const c = track(
    spawn(process.execPath, [...(o.execArgv ?? []), o.main ?? MAIN], {
      env: {
        // As `npm start` runs the service: two glibc malloc arenas (bench/results/engine-thread-2026-11-28-second.md).
        MALLOC_ARENA_MAX: '2',
        ...process.env,
        RPC_URL: o.rpcUrl,
        CHAIN: o.chain,
        DATA_DIR: o.dataDir,
        DEV_API_KEY: BENCH_KEY,
        // A writer and its replicas share one cursor secret from their config (never from NATS).
        CURSOR_SECRET: BENCH_CURSOR_SECRET,
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        ...o.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  const { port, metricsPort } = await new Promise<{ port: number; metricsPort: number }>(
    (resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`indexer did not start:\n${out.slice(-4000)}`)),
        60_000,
      );
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.length > 1_000_000) out = out.slice(-500_000);
        const m = /serving http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
        if (m) {
          // The serving line itself (the configuration line before it also names metricsPort: 0).
          const line = out.slice(out.lastIndexOf('\n', m.index) + 1, m.index);
          const mp = /"metricsPort":(\d+)/.exec(line);
          clearTimeout(timer);
          resolve({ port: Number(m[1]), metricsPort: mp ? Number(mp[1]) : 0 });
        }
      };
      c.stdout!.on('data', onData);
      c.stderr!.on('data', onData);
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`indexer exited with ${code}:\n${out.slice(-4000)}`));
      });
    },
  );
  const base = `http://127.0.0.1:${port}/index/v1/${o.chain}`;
  const api: IndexerChild = {
    pid: c.pid!,
    port,
    metricsPort,
    base,
    startedAt,
    async get(path) {
      const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': BENCH_KEY } });
      const buf = Buffer.from(await res.arrayBuffer());
      let body: any = null;
      try {
        body = JSON.parse(buf.toString('utf8'));
      } catch {}
      return { status: res.status, body, bytes: buf.length };
    },
    async anchor() {
      const r = await api.get('/checkpoints').catch(() => null);
      const b = r?.body?.anchor?.block;
      return typeof b === 'number' ? b : -1;
    },
    async metrics() {
      if (!metricsPort) return '';
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      return res.text();
    },
    stop: () => stopChild(c),
    logs: () => out,
  };
  return api;
}

// ---------------------------------------------------------------------------------------------
// autocannon (no published types: the parts used are typed here).

export interface CannonResult {
  requests: { average: number; total: number; sent: number };
  latency: { p50: number; p99: number; p99_9: number; average: number; max: number };
  throughput: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats?: Record<string, { count: number }>;
}
const autocannonFn = require('autocannon') as (
  opts: Record<string, unknown>,
  cb?: unknown,
) => Promise<CannonResult> & { stop?: () => void };

export interface CannonOpts {
  url: string;
  connections: number;
  durationS?: number;
  amount?: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** Paths cycled per connection (autocannon `requests`). */
  paths?: string[];
  pipelining?: number;
}

export async function cannon(o: CannonOpts): Promise<CannonResult> {
  const opts: Record<string, unknown> = {
    url: o.url,
    connections: o.connections,
    pipelining: o.pipelining ?? 1,
    headers: {
      'x-api-key': BENCH_KEY,
      ...(o.body ? { 'content-type': 'application/json' } : {}),
      ...o.headers,
    },
    method: o.method ?? 'GET',
    timeout: 10,
  };
  if (o.body) opts.body = o.body;
  if (o.amount) opts.amount = o.amount;
  else opts.duration = o.durationS ?? 5;
  // autocannon's per-request `path` replaces the URL's whole path: prefix the base path.
  const prefix = new URL(o.url).pathname.replace(/\/$/, '');
  if (o.paths?.length)
    opts.requests = o.paths.map((path) => ({
      method: o.method ?? 'GET',
      path: prefix + path,
      ...(o.body ? { body: o.body } : {}),
    }));
  return autocannonFn(opts);
}

/** Latency figures of a run in milliseconds, plus rates. */
export function cannonFigures(r: CannonResult) {
  return {
    reqPerSec: round(r.requests.average, 1),
    total: r.requests.total,
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
    p99_9ms: r.latency.p99_9,
    maxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytesPerSec: Math.round(r.throughput.average),
  };
}

// ---------------------------------------------------------------------------------------------
// Precise latency sampler: autocannon's histogram has 1 ms resolution, too coarse for a 1 ms
// budget, so latency percentiles at low concurrency come from this closed-loop keep-alive client
// (bench/http-sampler.ts: raw keep-alive sockets read into a fixed buffer, performance.now() around
// each request, the body fully read and not kept unless verified).

/** The cursor secret every test process shares (CURSOR_SECRET: hex, ≥ 32 bytes). */
export const BENCH_CURSOR_SECRET = '5e'.repeat(32);

export interface Sampled {
  latenciesMs: number[];
  non2xx: number;
  errors: number;
  seconds: number;
  /** Answers `verify` refused (0 without `verify`). */
  unverified?: number;
}

export async function sampleLatency(
  o: Pick<
    LoopOptions,
    'base' | 'paths' | 'connections' | 'amount' | 'durationS' | 'until' | 'method' | 'body'
  > & {
    /**
     * Checks each answer's body (after its latency is taken, so the check is not timed); a false
     * counts in `unverified`. Without it bodies are counted, not kept.
     */
    verify?: (status: number, body: Buffer) => boolean;
  },
): Promise<Sampled> {
  const out: Sampled = { latenciesMs: [], non2xx: 0, errors: 0, seconds: 0, unverified: 0 };
  const verify = o.verify;
  const { seconds } = await closedLoop({
    ...o,
    headers: { 'x-api-key': BENCH_KEY },
    keepBody: verify ? () => true : undefined,
    onSample: (s) => {
      if (s.status === 0) {
        out.errors++;
        return;
      }
      out.latenciesMs.push(s.ms);
      if (s.status >= 300) out.non2xx++;
      if (verify && !verify(s.status, s.body!)) out.unverified!++;
    },
  });
  out.seconds = seconds;
  return out;
}

export function latencyFigures(s: Sampled) {
  const sorted = [...s.latenciesMs].sort((a, b) => a - b);
  return {
    n: sorted.length,
    reqPerSec: round(sorted.length / s.seconds, 1),
    p50ms: round(percentile(sorted, 50), 3),
    p99ms: round(percentile(sorted, 99), 3),
    p99_9ms: round(percentile(sorted, 99.9), 3),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN, 3),
    non2xx: s.non2xx,
    errors: s.errors,
  };
}

/**
 * Polls /checkpoints every `everyMs` until the indexer's anchor reaches `target`; returns the time
 * it did (performance.now()). Throws with the indexer's last log lines after `ms`.
 */
export async function waitAnchor(
  ix: IndexerChild,
  target: number,
  ms: number,
  everyMs = 20,
): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const a = await ix.anchor();
    if (a >= target) return performance.now();
    if (performance.now() - t0 > ms)
      throw new Error(`indexer anchor ${a} did not reach ${target} in ${ms} ms:\n${ix.logs().slice(-3000)}`);
    await sleep(everyMs);
  }
}

/**
 * Waits (at most 15 min) until every lane of the indexer that has a block, the traces lane too,
 * is at `head` — so reads measure an indexer that follows, not one still tracing a backfill's
 * blocks. Resolves with the seconds it waited.
 * @throws Error when they are not there after 15 minutes.
 */
export async function lanesAtHead(ix: Pick<IndexerChild, 'get'>, head: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const cp = (await ix.get('/checkpoints')).body as {
      lanes?: Array<{ lane: string; block: number | null; reason?: string }>;
    };
    const lanes = cp.lanes ?? [];
    const behind = lanes.filter((l) => l.block !== null && l.block < head);
    const untraced = lanes.filter(
      (l) => l.lane === 'traces' && l.block === null && l.reason === 'nothing_traced_yet',
    );
    if (!behind.length && !untraced.length) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > 900_000)
      throw new Error(`lanes not at head ${head} after 15 min: ${JSON.stringify(lanes)}`);
    await sleep(500);
  }
}
