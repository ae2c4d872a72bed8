/**
 * Point reads during a full-speed backfill of the transfer chain, against the same reads on the
 * same indexer once it is idle at the head.
 *
 * Chain: bench/transfer-chain.ts (`--blocks` × `--tx` plain ERC-20 transfers, dense blocks). Per
 * `--main` build (alternating by round), a fresh indexer backfills the chain while one client
 * (closed loop, keep-alive, c=1) cycles through point reads: `/tokens/{token}`,
 * `/tokens/{token}/balance/{sender}` and `/wallets/{sender}/first-seen`. Once the anchor reaches
 * the head, the same client runs the same reads again for `--idle-seconds` on the idle indexer.
 *
 * Correctness beside latency: every balance read during the backfill is kept with its anchor, and
 * a sample of them is reconciled with the node (`balanceOf(sender)` by eth_call at the response's
 * anchor block). A read that saw a half-applied block (rows of block N+1 under anchor N, or part
 * of a block) would disagree.
 *
 * Usage: node dist/bench/reads-during-backfill.js [--blocks 400] [--tx 50] [--senders 500]
 *          [--wallets 5000] [--main label=/path/to/dist/app/main.js]… [--rounds 1]
 *          [--idle-seconds 15] [--reconcile 300] [--cpu-prof DIR] [--node-flags label=--f1,--f2]…
 *          [--env label=K=V,K2=V2]…
 *          [--out report.md]
 *
 * `--cpu-prof DIR`: the indexer runs under `node --cpu-prof` (1 ms interval) and the report adds,
 * per run, the main thread's long turns during the backfill and what they are made of (a read
 * arriving during a turn waits for it).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { threadRunDelayMicros } from '@chain-indexer/platform/threads';
import { longTurns } from './cpuprofile.js';
import { closedLoop } from './http-sampler.js';
import {
  BENCH_KEY,
  benchArgs,
  emitReport,
  envFor,
  hex,
  lanesAtHead,
  log,
  nodeFlagsFor,
  percentile,
  rpc,
  runIfEntry,
  sleep,
  startIndexerChild,
} from './lib.js';
import { type TransferChain, transferChainFromArgs } from './transfer-chain.js';

interface Sample {
  ms: number;
  status: number;
  path: string;
  /** The answer's bytes (null: no answer). */
  body: Buffer | null;
}

/**
 * Closed-loop c=1 reader over keep-alive HTTP (bench/http-sampler.ts: no client allocation per
 * answer but the kept body's bytes); bodies kept, parsed after the run.
 */
async function readLoop(base: string, paths: string[], until: () => boolean): Promise<Sample[]> {
  const out: Sample[] = [];
  await closedLoop({
    base,
    paths,
    connections: 1,
    until,
    headers: { 'x-api-key': BENCH_KEY },
    keepBody: () => true,
    onSample: (x) => out.push({ ms: x.ms, status: x.status, path: paths[x.path], body: x.body }),
  });
  return out;
}

/**
 * Time spent runnable but waiting for a CPU during one phase of reads, µs per read (Linux
 * schedstat `run_delay`): the indexer's serving thread (its `indexer_thread_runqueue_wait_seconds_total`)
 * and this bench's reading thread (the client shares the machine's cores). Beside the mean latency
 * per read it says how much of a read's time is either side waiting for a core rather than work.
 */
export interface CpuWait {
  servingUsPerRead: number;
  clientUsPerRead: number;
  latencyUsPerRead: number;
}

/** The serving thread's run-queue wait so far, µs (NaN when the build does not report it). */
async function servingRunDelayUs(ix: { metrics(): Promise<string> }): Promise<number> {
  const line = (await ix.metrics())
    .split('\n')
    .find((l) => l.startsWith('indexer_thread_runqueue_wait_seconds_total{chain="",thread="serving"}'));
  return line ? Number(line.split(' ').pop()) * 1e6 : Number.NaN;
}

/** Runs `phase`, measuring both sides' wait for a CPU over it ({@link CpuWait}). */
async function withCpuWait(
  ix: { metrics(): Promise<string> },
  phase: () => Promise<Sample[]>,
): Promise<{ samples: Sample[]; wait: CpuWait }> {
  const s0 = await servingRunDelayUs(ix);
  const c0 = threadRunDelayMicros() ?? Number.NaN;
  const samples = await phase();
  const c1 = threadRunDelayMicros() ?? Number.NaN;
  const s1 = await servingRunDelayUs(ix);
  const n = Math.max(1, samples.length);
  return {
    samples,
    wait: {
      servingUsPerRead: (s1 - s0) / n,
      clientUsPerRead: (c1 - c0) / n,
      latencyUsPerRead: (1000 * samples.reduce((a, x) => a + x.ms, 0)) / n,
    },
  };
}

interface Latency {
  n: number;
  non2xx: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
}
/** Non-2xx answers by route kind and status (e.g. `first-seen 503: 12`), for the report. */
function non2xxByRoute(samples: Sample[]): string {
  const by = new Map<string, number>();
  for (const x of samples) {
    if (x.status >= 200 && x.status < 300) continue;
    const kind = x.path.includes('/balance/')
      ? 'balance'
      : x.path.includes('/first-seen')
        ? 'first-seen'
        : x.path.startsWith('/tokens/')
          ? 'token'
          : x.path.split('/')[1];
    const k =
      `${kind} ${x.status}${x.status ? ` ${(JSON.parse(x.body?.toString() || '{}') as any)?.error ?? ''}` : ''}`.trim();
    by.set(k, (by.get(k) ?? 0) + 1);
  }
  return [...by].map(([k, n]) => `${k}: ${n}`).join(', ');
}

function latency(samples: Sample[]): Latency {
  const s = samples.map((x) => x.ms).sort((a, b) => a - b);
  return {
    n: s.length,
    non2xx: samples.filter((x) => x.status < 200 || x.status >= 300).length,
    p50: percentile(s, 50),
    p99: percentile(s, 99),
    p999: percentile(s, 99.9),
    max: s[s.length - 1] ?? Number.NaN,
  };
}

/** `balanceOf(wallet)` of `token` at block `n`, from the node. */
async function balanceOfAt(url: string, token: string, wallet: string, n: number): Promise<bigint> {
  const data = `0x70a08231${wallet.slice(2).padStart(64, '0')}`;
  return BigInt(await rpc<string>(url, 'eth_call', [{ to: token, data }, hex(n)]));
}

export interface ReadsRun {
  label: string;
  during: Latency;
  /** The reads during the backfill that were answered 2xx (chain records, projections once ready). */
  duringOk: Latency;
  idle: Latency;
  backfillSeconds: number;
  blocksPerSecond: number;
  /** Balance reads reconciled with the node at their anchor, and how many disagreed. */
  reconciled: number;
  mismatches: string[];
  /** Distinct anchors the reads during the backfill saw. */
  anchorsSeen: number;
  /** Non-2xx answers by route and status, during the backfill and idle. */
  non2xx: { during: string; idle: string };
  /** Seconds from the anchor at the head until every lane was there too, plus 3 quiet seconds, before the idle reads. */
  idleWaitSeconds: number;
  /** Both sides' wait for a CPU per read, during the backfill and idle ({@link CpuWait}). */
  cpuWait: { during: CpuWait; idle: CpuWait };
  /** With `--cpu-prof`: the main thread's long turns during the backfill (cpuprofile.ts longTurns). */
  turns?: string;
  /** Node/V8 flags the indexer ran with (`--node-flags`). */
  nodeFlags: string[];
  /** Environment settings of the run (`--env`). */
  env: Record<string, string>;
}

async function runOne(
  chain: TransferChain,
  label: string,
  main: string,
  o: {
    idleSeconds: number;
    reconcile: number;
    cpuProf?: string;
    nodeFlags?: string[];
    env?: Record<string, string>;
  },
): Promise<ReadsRun> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'reads-backfill-data-'));
  const senders = chain.wallets.slice(0, chain.spec.senders);
  // Chain records (always served) of the funding blocks, beside the projection routes (answered
  // 503 projection_unavailable while the projections are still backfilling: R5, fail closed).
  const txHashes: string[] = [];
  for (let n = chain.deployBlock + 1; n <= chain.fundedBlock; n++)
    txHashes.push(
      ...(await rpc<{ transactions: string[] }>(chain.node.rpcUrl, 'eth_getBlockByNumber', [hex(n), false]))
        .transactions,
    );
  const paths: string[] = [];
  for (let i = 0; i < 300; i++) {
    const w = senders[(i * 7919) % senders.length];
    const tx = txHashes[(i * 104729) % txHashes.length];
    paths.push(
      `/tokens/${chain.token}`,
      `/tokens/${chain.token}/balance/${w}`,
      `/wallets/${w}/first-seen`,
      `/blocks/${1 + (i % chain.fundedBlock)}`,
      `/transactions/${tx}`,
      `/transactions/${tx}/receipt`,
    );
  }
  const t0 = performance.now();
  const profDir = o.cpuProf ? mkdtempSync(join(o.cpuProf, 'reads-backfill-')) : null;
  const ix = await startIndexerChild({
    rpcUrl: chain.node.rpcUrl,
    chain: 'bench',
    dataDir,
    main,
    env: o.env,
    execArgv: [
      ...(o.nodeFlags ?? []),
      ...(profDir ? ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', profDir] : []),
    ],
  });
  // Reads start once every sender is funded and seen (their rows exist), as a user would read.
  while ((await ix.anchor()) < chain.fundedBlock) await sleep(20);
  const tStart = performance.now();
  const usNow = () => Number(process.hrtime.bigint() / 1000n);
  const window = { fromUs: usNow(), toUs: 0 };
  const startBlock = await ix.anchor();
  let atHead = false;
  let tHead = 0;
  const watcher = (async () => {
    while (!atHead) {
      if ((await ix.anchor()) >= chain.head) {
        atHead = true;
        tHead = performance.now();
        window.toUs = usNow();
      } else await sleep(50);
    }
  })();
  const { samples: during, wait: duringWait } = await withCpuWait(ix, () =>
    readLoop(ix.base, paths, () => atHead),
  );
  await watcher;
  // Idle means idle: every lane (the traces lane too) at the head before the idle reads, as the
  // release bench waits (its tracing of the backfilled blocks runs on after the anchor reaches
  // the head, and its tail would be the idle figure's), then a few quiet seconds.
  const idleWaitSeconds = (await lanesAtHead(ix, chain.head)) + 3;
  await sleep(3000);
  const idleEnd = performance.now() + o.idleSeconds * 1000;
  const { samples: idle, wait: idleWait } = await withCpuWait(ix, () =>
    readLoop(ix.base, paths, () => performance.now() > idleEnd),
  );
  await ix.stop();
  rmSync(dataDir, { recursive: true, force: true });
  // The main thread's profile (thread id 0 in V8's file name) over the backfill window.
  const mainProfile = profDir
    ? readdirSync(profDir)
        .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
        .map((f) => join(profDir, f))[0]
    : undefined;
  const turns = mainProfile ? longTurns(mainProfile, 10, 20, window) : undefined;

  // Reconcile a sample of the balance reads made during the backfill with the node.
  const balances = during
    .filter((s) => s.status === 200 && s.path.includes('/balance/'))
    .map((s) => {
      const b = JSON.parse(s.body!.toString()) as {
        anchor: { block: number };
        data: { wallet: string; balance: string };
      };
      return { block: b.anchor.block, wallet: b.data.wallet, balance: b.data.balance };
    });
  const anchorsSeen = new Set(
    during.map((s) => (JSON.parse(s.body?.toString() || '{}') as any)?.anchor?.block),
  ).size;
  const step = Math.max(1, Math.floor(balances.length / o.reconcile));
  const mismatches: string[] = [];
  let reconciled = 0;
  for (let i = 0; i < balances.length; i += step) {
    const b = balances[i];
    const node = await balanceOfAt(chain.node.rpcUrl, chain.token, b.wallet, b.block);
    reconciled++;
    if (b.balance !== node.toString())
      mismatches.push(`${b.wallet} at ${b.block}: indexer ${b.balance}, node ${node}`);
  }
  const backfillSeconds = (tHead - tStart) / 1000;
  log(
    `${label}: ${during.length} reads during ${backfillSeconds.toFixed(1)} s of backfill (from ${((tStart - t0) / 1000).toFixed(1)} s)`,
  );
  return {
    label,
    nodeFlags: o.nodeFlags ?? [],
    env: o.env ?? {},
    during: latency(during),
    duringOk: latency(during.filter((x) => x.status >= 200 && x.status < 300)),
    idle: latency(idle),
    backfillSeconds,
    blocksPerSecond: (chain.head - startBlock) / backfillSeconds,
    reconciled,
    mismatches,
    anchorsSeen,
    non2xx: { during: non2xxByRoute(during), idle: non2xxByRoute(idle) },
    cpuWait: { during: duringWait, idle: idleWait },
    idleWaitSeconds,
    turns,
  };
}

const f2 = (x: number) => x.toFixed(2);

/** Markdown report: one row per build and round. */
export function readsReport(chain: TransferChain, runs: ReadsRun[]): string {
  const lines = [
    `Chain: anvil, ${chain.head + 1} blocks, ${chain.spec.blocks} × ${chain.spec.txPerBlock} ERC-20 transfers among ${chain.spec.wallets} wallets; reads start at block ${chain.fundedBlock} (every sender funded).`,
    '',
    `Node ${process.version} (the bench and every indexer); indexer flags: ${runs.map((r) => `${r.label} ${[...r.nodeFlags, ...Object.entries(r.env).map(([k, v]) => `${k}=${v}`)].join(' ') || 'none'}`).join('; ')}.`,
    '',
    `Idle: the same reads once every lane (the traces lane too) is at the head and 3 s more have passed (waited ${runs.map((r) => `${r.label} ${r.idleWaitSeconds.toFixed(1)} s`).join(', ')} after the anchor reached the head).`,
    '',
    'Reads: one client, closed loop, keep-alive, cycling `/tokens/{token}`, `/tokens/{token}/balance/{sender}`, `/wallets/{sender}/first-seen`, `/blocks/{n}`, `/transactions/{hash}`, `/transactions/{hash}/receipt` (blocks and transactions of the funding blocks); latency in ms, client side. The projection routes answer 503 `projection_unavailable` while the projections backfill (R5); the 2xx columns count only the reads answered with data.',
    '',
    '| build | reads during backfill | p50 | p99 | p99.9 | max | of which 2xx | 2xx p50 | 2xx p99 | idle reads | idle p50 | idle p99 | idle p99.9 | p99 during ÷ idle (budget ≤ 2) | p99.9 during ÷ idle (budget ≤ 3) | backfill blocks/s (while reading) | anchors seen | balances reconciled with the node | mismatches | non-2xx |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (r) =>
        `| ${r.label} | ${r.during.n} | ${f2(r.during.p50)} | ${f2(r.during.p99)} | ${f2(r.during.p999)} | ${f2(r.during.max)} | ${r.duringOk.n} | ${f2(r.duringOk.p50)} | ${f2(r.duringOk.p99)} | ${r.idle.n} | ${f2(r.idle.p50)} | ${f2(r.idle.p99)} | ${f2(r.idle.p999)} | ${(r.during.p99 / r.idle.p99).toFixed(1)} | ${(r.during.p999 / r.idle.p999).toFixed(1)} | ${r.blocksPerSecond.toFixed(1)} | ${r.anchorsSeen} | ${r.reconciled} | ${r.mismatches.length} | ${r.during.non2xx + r.idle.non2xx} |`,
    ),
  ];
  for (const r of runs)
    if (r.non2xx.during || r.non2xx.idle)
      lines.push(
        '',
        `${r.label} non-2xx: during the backfill ${r.non2xx.during || 'none'}; idle ${r.non2xx.idle || 'none'}.`,
      );
  for (const r of runs)
    if (r.turns)
      lines.push(
        '',
        `${r.label}: the main thread's turns during the backfill (\`--cpu-prof\`, 1 ms samples)`,
        '',
        '```',
        r.turns,
        '```',
      );
  lines.push(
    '',
    "Where a read's time goes: the mean latency per read (client side) beside the time the indexer's serving thread and the bench's reading thread each spent runnable but waiting for a CPU, µs per read (Linux schedstat `run_delay`; the serving thread's from `indexer_thread_runqueue_wait_seconds_total`). The client shares the machine's two cores with the indexer and the node; a read's tail that is mostly waiting for a core is scheduling, not work.",
    '',
    '| build | during: latency µs/read | serving thread waits µs/read | client waits µs/read | idle: latency µs/read | serving thread waits µs/read | client waits µs/read |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map((r) => {
      const d = r.cpuWait.during;
      const i = r.cpuWait.idle;
      const f1 = (x: number) => x.toFixed(1);
      return `| ${r.label} | ${f1(d.latencyUsPerRead)} | ${f1(d.servingUsPerRead)} | ${f1(d.clientUsPerRead)} | ${f1(i.latencyUsPerRead)} | ${f1(i.servingUsPerRead)} | ${f1(i.clientUsPerRead)} |`;
    }),
  );
  for (const r of runs)
    if (r.mismatches.length)
      lines.push('', `${r.label} mismatches:`, ...r.mismatches.slice(0, 10).map((m) => `- ${m}`));
  return lines.join('\n');
}

/** CLI entry (see the module doc). */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg, mains } = benchArgs(argv);
  const chain = await transferChainFromArgs(arg, 400);
  const o = {
    idleSeconds: Number(arg('--idle-seconds', '15')),
    reconcile: Number(arg('--reconcile', '300')),
    cpuProf: arg('--cpu-prof', '') || undefined,
  };
  const runs: ReadsRun[] = [];
  const rounds = Number(arg('--rounds', '1'));
  for (let round = 1; round <= rounds; round++)
    for (const [name, main] of mains) {
      const label = rounds > 1 ? `${name} (round ${round})` : name;
      const r = await runOne(chain, label, main, {
        ...o,
        nodeFlags: nodeFlagsFor(argv, name),
        env: envFor(argv, name),
      });
      log(
        `${label}: during p50 ${f2(r.during.p50)} p99 ${f2(r.during.p99)} ms; idle p50 ${f2(r.idle.p50)} p99 ${f2(r.idle.p99)} ms; ${r.mismatches.length} mismatches of ${r.reconciled}`,
      );
      runs.push(r);
    }
  const md = readsReport(chain, runs);
  emitReport(md, arg);
  if (runs.some((r) => r.mismatches.length)) process.exitCode = 1;
}

runIfEntry('reads-during-backfill.js', main);
