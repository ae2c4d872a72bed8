/**
 * Fault campaign runner:
 * `node dist/test/faults/run.js [--long] [--seeds 3,5,8 | --seeds-count N] [--only a,b] [--report PATH]`.
 *
 * Runs every fault suite file (test/faults/*.test.ts: proxy faults, kill -9 mid-rollback and
 * hostile HTTP; storage write failure; auth on every route; SSE churn) once per seed through
 * vitest, with FAULTS_SEED, FAULTS_LONG (bigger chains, more rounds, more kills, more fault points,
 * 50,000 SSE cycles) and FAULTS_STATS (a JSON-lines file each scenario appends its figures to); in
 * --long mode also the seeded reorg-convergence suite per seed. Then regenerates the report
 * (test/faults/REPORT.md, or PATH): scenarios run, faults injected by kind, requests tried,
 * restarts survived, rows lost, failures — every figure from this run. Exit code 1 if any run failed.
 *
 * `--only` keeps the files whose path contains one of the given substrings (a brief run, e.g.
 * `--only storage-fault,sse-churn`). Other knobs pass through the environment (SSE_CHURN_CYCLES).
 * Without --long: one run with the CI seed (what `npx vitest run test/faults` does), report included.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countsByKind } from '../harness/markdown.js';
import type { ScenarioStats } from './lib.js';

/** One scenario's figures as the suites append them (test/faults/lib.ts recordScenario). */
type Stats = ScenarioStats;

interface Run {
  file: string;
  seed: number;
  ok: boolean;
  seconds: number;
  tail: string;
  stats: Stats[];
}

/** The repository root: the nearest ancestor holding package.json (works from src or dist). */
function repoRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json')) || !existsSync(join(d, 'test', 'faults'))) {
    const up = dirname(d);
    if (up === d) throw new Error('repository root not found');
    d = up;
  }
  return d;
}

const args = process.argv.slice(2);
const long = args.includes('--long');
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const CI_SEED = 7;
const seeds: number[] = arg('--seeds')
  ? arg('--seeds')!.split(',').map(Number)
  : long
    ? Array.from({ length: Number(arg('--seeds-count') ?? 5) }, (_, i) => 1000 + i * 7919)
    : [CI_SEED];

const only = arg('--only')?.split(',').filter(Boolean) ?? null;
/** The suite files of one seed (long mode adds the seeded reorg-convergence suite). */
const FILES = [
  'test/faults/faults.test.ts',
  'test/faults/kill9-devnet.test.ts',
  'test/faults/storage-fault.test.ts',
  'test/faults/auth-every-route.test.ts',
  'test/faults/sse-churn.test.ts',
  ...(long ? ['test/e2e/reorg-convergence.test.ts'] : []),
].filter((f) => !only || only.some((o) => f.includes(o)));
if (!FILES.length) throw new Error(`--only ${only?.join(',')} matches no suite file`);

const root = repoRoot();
const reportPath = arg('--report') ?? join(root, 'test', 'faults', 'REPORT.md');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const work = mkdtempSync(join(tmpdir(), 'faults-run-'));
let current: ReturnType<typeof spawn> | null = null;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    // The vitest child leads its own process group: end it (and its workers, anvils, indexers).
    if (current?.pid) {
      try {
        process.kill(-current.pid, 'SIGTERM');
      } catch {}
    }
    process.exit(130);
  });
}

function runVitest(
  file: string,
  env: Record<string, string>,
): Promise<{ ok: boolean; out: string; seconds: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [vitest, 'run', file], {
      cwd: root,
      env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    current = c;
    let out = '';
    const keep = (d: Buffer) => {
      out += d.toString();
      if (out.length > 4_000_000) out = out.slice(-2_000_000);
    };
    c.stdout.on('data', keep);
    c.stderr.on('data', keep);
    c.on('exit', (code) => {
      current = null;
      resolve({ ok: code === 0, out, seconds: Math.round((Date.now() - t0) / 1000) });
    });
  });
}

/** What each scenario checks (the last section of REPORT.md). */
const SCENARIO_NOTES = [
  '- **proxy-faults**: the indexer backfills and follows a real anvil through `test/harness/rpc-proxy.ts` with a seeded ' +
    'schedule of delays, dropped connections, 429, 5xx, malformed and truncated JSON, -32005 range errors, null blocks, ' +
    "stale heads, refused connections (node restarts) and per-transaction trace failures (geth's `execution timeout` " +
    'item, sticky for 3 s, so trace gaps are recorded); the process stays up, no unhandled rejection is logged, every ' +
    'gap recorded is healed, the reorg counter stays 0, block/tx/log ' +
    "row counts equal the node's, and every chain-state row equals a fresh fault-free index of the same chain (trace " +
    'status `source` included). Stream logs (0x70/0x71) are process history and are left out of every comparison.',
  '- **kill9-backfill-follow**: kill -9 at seeded instants on the full devnet (Uniswap V2/V3/V4, launchpad, ' +
    'transfers, funding) while traffic runs: half the kills 80–700 ms into a backfill with up to 2.5 s down (the ' +
    'backlog grows), half within 600 ms of catching up in live follow; restart on the same data dir each time. No ' +
    "block, transaction or log missing (row counts equal the node's), no false reorg, and every chain-state row of " +
    'every projection equals a fresh uninterrupted index. Notes give the lag at each kill.',
  '- **kill9-mid-rollback**: kill -9 within 0–4 ms of the indexer logging a 30-deep rollback, restart on the same data ' +
    'dir; every chain-state row equals a fresh index of the final chain. Notes say where each kill landed (depth the ' +
    'restarted process still had to roll back).',
  '- **hostile-http**: oversized headers and bodies, invalid UTF-8, traversal, bad numbers, forged/cross-chain/cross-route ' +
    'cursors, JSON bombs, slow connections: typed 4xx envelope or no answer, never a 5xx, process alive.',
  '- **reorg-convergence** (long mode): ≥ 8 seeded anvil_reorg (depth 1–64) with traffic, one while backfilling; ' +
    'chain-state rows equal a fresh index; dropped-fork cursors answer 409 stale_cursor.',
  '- **deep-reorg-halt** (long mode): a 20-deep anvil_reorg under UNFINALISED_WINDOW=8 halts ingest ' +
    '(`reorg_beyond_window`) with one open gap on the blocks lane, rolls nothing back, anchored routes answer the ' +
    'typed 503 `ingest_halted` while monitoring keeps serving; after kill -9 and restart it halts again at the same ' +
    'anchor. The window edge is checked too: depth 8 rolls back, depth 9 halts.',
  "- **storage-write-failure**: `prlimit --fsize` lowers the running indexer's file-size limit to just above the " +
    'RocksDB WAL, so the next block batch gets a real EFBIG ("File too large", the ENOSPC path) from write(2); the ' +
    'process stays up, ingest halts with `storage_write_failed`, /health says `storage.writable: false` with the ' +
    'RocksDB error and /health/ready answers 503; every block 0..H and its transactions are served equal to the ' +
    'node, projection-backed routes answer the typed 503 `projection_unavailable`; after stop the store ends at H ' +
    'and equals a fresh index up to H (no half-written block); after restart ingest resumes and the store equals a ' +
    'fresh index of the final chain. Long mode: three rounds, each tearing the WAL at another point.',
  '- **auth-every-route**: every operation of GET /index/v1/openapi.json (115) with a valid sample from a real ' +
    'devnet (Uniswap V2/V3/V4, launchpad, scripted cohort): 200 with the all-scope key; 401 envelope with no key, ' +
    'an unknown or near-miss key, `Authorization: Bearer`, a scanner `sk_live_` key (also one configured with every ' +
    "scope); 403 `insufficient_scope` with a key lacking the route's scope, never charged (rate limit burst intact); " +
    'public health routes without a key; `/metrics` a 404 envelope on the public port and served on loopback.',
  '- **sse-churn**: 10,000 (long: 50,000) raw-socket connect/disconnect cycles over four stream routes and keys ' +
    '(leaving before the answer, after the headers, with a half-close, mid catch-up) while stalled, ' +
    'queue-overflowing, slow and live consumers stay connected: V8 heap after a forced full GC and RSS bounded, ' +
    "open-stream and hub-subscriber gauges and file descriptors back to baseline, each key's 8-stream ceiling " +
    'whole, the live consumer gets every block frame without a gap.',
];

/** The work tree's commit (short hash), with " + uncommitted changes" when the tree is dirty. */
function commitOf(dir: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir }).toString().trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--', 'app', 'packages', 'test', 'package.json', ':!test/faults/REPORT.md'],
      { cwd: dir },
    )
      .toString()
      .trim();
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown (not a git work tree)';
  }
}

const runs: Run[] = [];
const t0 = Date.now();
for (const seed of seeds) {
  for (const file of FILES) {
    const statsFile = join(work, `stats-${seed}-${runs.length}.jsonl`);
    process.stdout.write(`seed ${seed}: ${file} … `);
    const r = await runVitest(file, {
      FAULTS_SEED: String(seed),
      REORG_SEED: String(seed),
      FAULTS_LONG: long ? '1' : '0',
      FAULTS_STATS: statsFile,
    });
    const stats: Stats[] = existsSync(statsFile)
      ? readFileSync(statsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Stats)
      : [];
    const logFile = join(work, `seed-${seed}-${file.replace(/[/.]/g, '_')}.log`);
    writeFileSync(logFile, r.out);
    const lines = r.out.split('\n').filter((l) => !l.startsWith('{"level"'));
    const firstFail = lines.findIndex((l) => /FAIL|AssertionError|Error:/.test(l));
    const tail = (firstFail >= 0 ? lines.slice(firstFail, firstFail + 50) : lines.slice(-50)).join('\n');
    runs.push({ file, seed, ok: r.ok, seconds: r.seconds, tail, stats });
    process.stdout.write(`${r.ok ? 'ok' : `FAILED, log: ${logFile}`} (${r.seconds} s)\n`);
  }
}
if (runs.every((r) => r.ok)) rmSync(work, { recursive: true, force: true });
else process.stdout.write(`logs of failed runs kept in ${work}\n`);

// ---- REPORT.md ----
const all = runs.flatMap((r) => r.stats);
const kinds = [...new Set(all.flatMap((s) => Object.keys(s.faults ?? {})))];
const sum = (f: (s: Stats) => number) => all.reduce((a, s) => a + f(s), 0);
const byKind = Object.fromEntries(kinds.map((k) => [k, sum((s) => s.faults?.[k] ?? 0)]));
const lost = {
  blocks: sum((s) => s.rowsLost.blocks),
  txs: sum((s) => s.rowsLost.txs),
  logs: sum((s) => s.rowsLost.logs),
};
const failed = runs.filter((r) => !r.ok);
const lines: string[] = [];
lines.push('# Fault campaign report');
lines.push('');
lines.push(`Commit: \`${commitOf(root)}\`.`);
lines.push('');
lines.push(
  `Generated by \`${['node dist/test/faults/run.js', ...args].join(' ')}\` on ${new Date().toISOString()} ` +
    `(${Math.round((Date.now() - t0) / 1000)} s, Node ${process.version}). Mode: **${long ? 'long' : 'CI'}**, seeds: ${seeds.join(', ')}.`,
);
lines.push('');
lines.push('## Totals');
lines.push('');
lines.push(`| | |`);
lines.push(`|---|---|`);
lines.push(
  `| suite runs | ${runs.length} (${runs.length - failed.length} passed, ${failed.length} failed) |`,
);
lines.push(`| scenarios run | ${all.length} (${[...new Set(all.map((s) => s.scenario))].join(', ')}) |`);
lines.push(`| faults injected | ${sum((s) => s.totalFaults ?? 0)} |`);
lines.push(
  `| JSON-RPC HTTP requests tried through the proxy | ${sum((s) => s.requests ?? 0)} (${sum((s) => s.items ?? 0)} JSON-RPC items) |`,
);
lines.push(
  `| HTTP requests tried against the indexer API (hostile input, reads under a storage fault, auth sweep, SSE cycles) | ${sum((s) => s.apiRequests ?? 0)} |`,
);
lines.push(
  `| restarts survived (node restarts simulated by the proxy, indexer kill -9, restarts after a storage fault) | ${sum((s) => s.restarts)} |`,
);
lines.push(`| rows lost (blocks / transactions / logs) | ${lost.blocks} / ${lost.txs} / ${lost.logs} |`);
lines.push('');
lines.push(...countsByKind('Faults injected by kind', kinds, (k) => byKind[k]));
lines.push('## Scenarios');
lines.push('');
lines.push(
  '| seed | scenario | ok | faults | RPC requests | API requests | restarts | rows lost (b/tx/log) | s | notes |',
);
lines.push('|---:|---|---|---:|---:|---:|---:|---|---:|---|');
for (const s of all) {
  lines.push(
    `| ${s.seed} | ${s.scenario} | ${s.ok ? 'yes' : '**no**'} | ${s.totalFaults ?? '–'} | ${s.requests ?? '–'} | ${s.apiRequests ?? '–'} | ${s.restarts} | ` +
      `${s.rowsLost.blocks}/${s.rowsLost.txs}/${s.rowsLost.logs} | ${s.seconds || '–'} | ${(s.notes ?? '').replace(/\|/g, '\\|').replace(/\n/g, '<br>')} |`,
  );
}
lines.push('');
lines.push('## Suite runs');
lines.push('');
lines.push('| seed | file | result | s |');
lines.push('|---:|---|---|---:|');
for (const r of runs)
  lines.push(`| ${r.seed} | ${r.file} | ${r.ok ? 'passed' : '**failed**'} | ${r.seconds} |`);
lines.push('');
if (failed.length) {
  lines.push('## Failures');
  lines.push('');
  for (const r of failed) {
    lines.push(`### seed ${r.seed}: ${r.file}`);
    lines.push('');
    lines.push('```');
    lines.push(r.tail);
    lines.push('```');
    lines.push('');
  }
}
lines.push('## What each scenario checks');
lines.push('');
lines.push(...SCENARIO_NOTES);
lines.push('');
writeFileSync(reportPath, lines.join('\n'));
process.stdout.write(`wrote ${reportPath}\n`);
process.exit(failed.length ? 1 : 0);
