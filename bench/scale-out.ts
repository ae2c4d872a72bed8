/**
 * Scale-out bench (issue O): read throughput of the writer and of one, two and three replicas
 * side by side, SSE fan-out, the writer's ingest rate with and without publishing, and the writer-to-replica visibility lag, on one machine, in one run.
 *
 * Layout: a real nats-server with JetStream (loopback), a devnet with traffic (anvil, blocks every
 * 400 ms), the writer (ROLE=writer) and three replicas (ROLE=replica), each its own process (the
 * e2e harness's processes: test/harness/{nats,devnet,indexer}.ts).
 *
 *  - reads: autocannon over a fixed mix of anchored routes (a block, its transactions, the token
 *    list, checkpoints) for `--seconds` per phase with `--connections` in total: the writer alone,
 *    replica 1 alone, then replicas 1 and 2 at once (the connections split between them, both
 *    load generators in this process). Figures: requests/s, p50/p99 latency, non-2xx.
 *  - lag: with no read load, for `--lag-seconds`, /checkpoints of the writer and both replicas is
 *    polled every ~2 ms; for each block, lag = first seen on the replica − first seen on the writer
 *    (resolution: the poll period). Also each replica's own `/health` lag at the end.
 *
 *  - SSE fan-out: `--sse-consumers` consumers of /stream/blocks on one replica, then spread over
 *    all replicas, `--sse-seconds` each; frames/s delivered and per-frame delivery lag against one
 *    reference consumer on the writer.
 *  - ingest: with the read processes stopped, a fresh ROLE=all and a fresh ROLE=writer (its own
 *    nats-server) index the same chain from block 0 to the same block, alternating,
 *    `--ingest-rounds` times: blocks/s with and without publishing.
 *
 * Usage: `npm run build && node dist/bench/scale-out.js [--seconds 5] [--connections 16]
 *   [--replicas 3] [--lag-seconds 20] [--sse-consumers 60] [--sse-seconds 10]
 *   [--ingest-rounds 2] [--out bench/results]`. nats-server and anvil must be installed. On a
 * machine with 2 cores the replicas, the writer, anvil, nats-server and the load generator share
 * them, so two replicas cannot double the read rate there; the report says how many cores it had.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDevnet, type TestDevnet } from '../test/harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../test/harness/indexer.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../test/harness/nats.js';
import { textChunks } from '../test/harness/sse.js';
import { benchArgs, type CannonResult, cannon, cannonFigures, log, round, sleep, summarize } from './lib.js';

const CHAIN = 'testnet';
const { arg } = benchArgs(process.argv.slice(2));
const SECONDS = Number(arg('--seconds', '5'));
const CONNECTIONS = Number(arg('--connections', '16'));
const LAG_SECONDS = Number(arg('--lag-seconds', '20'));
const REPLICAS = Number(arg('--replicas', '3'));
const SSE_CONSUMERS = Number(arg('--sse-consumers', '60'));
const SSE_SECONDS = Number(arg('--sse-seconds', '10'));
const INGEST_ROUNDS = Number(arg('--ingest-rounds', '2'));
const OUT = arg('--out', 'bench/results');

/** One stream key for every SSE consumer of the bench (the default ceiling is 8 streams a key). */
const SSE_KEY = 'bench-scale-out-sse-key';
const KEYS_FILE = join(mkdtempSync(join(tmpdir(), 'scale-out-keys-')), 'keys.json');
writeFileSync(
  KEYS_FILE,
  JSON.stringify([{ name: 'sse-fan-out', key: SSE_KEY, scopes: ['read', 'stream'], maxStreams: 10_000 }]),
);

const base = (p: IndexerProcess) => `http://127.0.0.1:${p.port}/index/v1/${CHAIN}`;
const anchorOf = async (p: IndexerProcess): Promise<number> => {
  const r = await fetch(`${base(p)}/checkpoints`, { headers: { 'x-api-key': TEST_KEY } });
  if (!r.ok) return -1;
  return ((await r.json()) as { anchor?: { block?: number } }).anchor?.block ?? -1;
};

/** Reads against `targets` at once, `connections` split between them; the summed figures. */
async function reads(targets: IndexerProcess[], paths: string[]) {
  const each = Math.max(1, Math.floor(CONNECTIONS / targets.length));
  const runs: CannonResult[] = await Promise.all(
    targets.map((t) =>
      cannon({
        url: base(t),
        connections: each,
        durationS: SECONDS,
        paths,
        headers: { 'x-api-key': TEST_KEY },
      }),
    ),
  );
  const figs = runs.map(cannonFigures);
  return {
    processes: targets.length,
    connections: each * targets.length,
    reqPerSec: round(
      figs.reduce((s, f) => s + f.reqPerSec, 0),
      1,
    ),
    p50ms: Math.max(...figs.map((f) => f.p50ms)),
    p99ms: Math.max(...figs.map((f) => f.p99ms)),
    non2xx: figs.reduce((s, f) => s + f.non2xx, 0),
    errors: figs.reduce((s, f) => s + f.errors, 0),
  };
}

/** Per-block visibility lag of each replica behind the writer, polled every ~2 ms for `seconds`. */
async function lag(writer: IndexerProcess, replicas: IndexerProcess[], seconds: number) {
  const seen = [writer, ...replicas].map(() => new Map<number, number>());
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const heads = await Promise.all([writer, ...replicas].map(anchorOf));
    const t = performance.now();
    heads.forEach((h, i) => {
      if (h >= 0 && !seen[i].has(h)) seen[i].set(h, t);
    });
    await sleep(2);
  }
  return replicas.map((_, r) => {
    const samples: number[] = [];
    for (const [block, tw] of seen[0]) {
      const tr = seen[r + 1].get(block);
      if (tr !== undefined) samples.push(Math.max(0, tr - tw));
    }
    const s = summarize(samples.sort((a, b) => a - b));
    return {
      replica: r + 1,
      blocks: samples.length,
      p50ms: round(s.p50, 1),
      p99ms: round(s.p99, 1),
      maxMs: round(s.max, 1),
    };
  });
}

/**
 * One SSE consumer of /stream/blocks on `p`: arrival time of each block frame, by block number.
 * Resolves to null, or to the error that ended it early (never rejects).
 */
function sseConsumer(p: IndexerProcess, signal: AbortSignal, seen: Map<number, number>) {
  return (async () => {
    const res = await fetch(`${base(p)}/stream/blocks`, {
      headers: { 'x-api-key': SSE_KEY, accept: 'text/event-stream' },
      signal,
    });
    if (res.status !== 200 || !res.body) throw new Error(`stream/blocks answered ${res.status}`);
    let buf = '';
    for await (const chunk of textChunks(res.body)) {
      buf += chunk;
      let i = buf.indexOf('\n\n');
      while (i >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        i = buf.indexOf('\n\n');
        if (!/^event: block$/m.test(frame)) continue;
        const d = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null');
        const n = Number(d?.number ?? d?.data?.number ?? d?.block?.number);
        if (Number.isFinite(n) && !seen.has(n)) seen.set(n, performance.now());
      }
    }
  })().then(
    () => null,
    (err) => ((err as Error).name === 'AbortError' ? null : (err as Error).message),
  );
}

/**
 * SSE fan-out: `consumers` consumers of /stream/blocks spread round-robin over `targets` for
 * `seconds`, with one reference consumer on the writer. Frames/s delivered in total, and the
 * delivery lag of each frame (arrival on a replica's consumer − arrival on the writer's).
 */
async function sseFanOut(
  writer: IndexerProcess,
  targets: IndexerProcess[],
  consumers: number,
  seconds: number,
) {
  const ac = new AbortController();
  const ref = new Map<number, number>();
  const maps = Array.from({ length: consumers }, () => new Map<number, number>());
  const runs = [
    sseConsumer(writer, ac.signal, ref),
    ...maps.map((m, i) => sseConsumer(targets[i % targets.length], ac.signal, m)),
  ];
  await sleep(seconds * 1000);
  ac.abort();
  const failures = (await Promise.all(runs)).filter((e): e is string => e !== null);
  if (failures.length) throw new Error(`${failures.length} SSE consumers failed: ${failures[0]}`);
  const lags: number[] = [];
  let frames = 0;
  for (const m of maps) {
    frames += m.size;
    for (const [n, t] of m) {
      const tw = ref.get(n);
      if (tw !== undefined) lags.push(Math.max(0, t - tw));
    }
  }
  const s = summarize(lags.sort((a, b) => a - b));
  return {
    replicas: targets.length,
    consumers,
    blocksOnWriter: ref.size,
    framesPerSec: round(frames / seconds, 1),
    expectedFramesPerSec: round((ref.size * consumers) / seconds, 1),
    lagP50ms: round(s.p50, 1),
    lagP99ms: round(s.p99, 1),
    lagMaxMs: round(s.max, 1),
  };
}

/**
 * Ingest from block 0 to `target` on a fresh data dir: ROLE=all (no publishing) or ROLE=writer
 * publishing to a fresh nats-server of its own. Seconds to reach `target` from the spawn, and
 * blocks/s from the first indexed block to `target` (process start excluded).
 */
async function ingest(
  rpcUrl: string,
  role: 'all' | 'writer',
  target: number,
  markets: Record<string, string>,
) {
  const nats = role === 'writer' ? await startNats() : null;
  const t0 = performance.now();
  const p = await startIndexer({
    rpcUrl,
    env: { ...markets, ROLE: role, ...(nats ? { NATS_URL: nats.url } : {}) },
  });
  try {
    await p.waitForHead(1, 600_000);
    const t1 = performance.now();
    const from = await p.waitForHead(1, 1000);
    await p.waitForHead(target, 600_000);
    const s = (performance.now() - t0) / 1000;
    const syncS = (performance.now() - t1) / 1000;
    const published =
      role === 'writer'
        ? ((await p.get('/health')).body?.replication?.publisher?.publishedSequence ?? null)
        : null;
    return {
      role,
      blocks: target,
      seconds: round(s, 2),
      syncSeconds: round(syncS, 2),
      blocksPerSec: round((target - from) / syncS, 1),
      published,
    };
  } finally {
    await p.stop();
    await nats?.stop();
  }
}

async function main() {
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  const started: Array<{ stop(): Promise<void> }> = [];
  let nats: NatsServer | null = null;
  let dev: TestDevnet | null = null;
  const loadAtStart = loadavg()[0];
  try {
    nats = await startNats();
    dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 15 });
    await dev.traffic?.ready;
    log('devnet and nats-server up; starting the writer');
    const writer = await startIndexer({
      rpcUrl: dev.rpcUrl,
      env: { ROLE: 'writer', NATS_URL: nats.url, KEYS_FILE },
    });
    started.push(writer);
    await writer.waitForHead(15, 120_000);
    const replicas: IndexerProcess[] = [];
    for (let i = 0; i < REPLICAS; i++) {
      const r = await startIndexer({ env: { ROLE: 'replica', NATS_URL: nats.url, KEYS_FILE } });
      started.push(r);
      replicas.push(r);
    }
    for (const r of replicas) await r.waitForHead((await anchorOf(writer)) - 1, 120_000);
    log('replicas caught up; lag phase (no read load)');
    const lags = await lag(writer, replicas, LAG_SECONDS);

    const h = (await anchorOf(writer)) - 5;
    const paths = [`/blocks/${h}`, `/blocks/${h}/transactions?limit=20`, '/tokens?limit=20', '/checkpoints'];
    log('reads: the writer alone');
    const onWriter = await reads([writer], paths);
    log('reads: one replica');
    const one = await reads([replicas[0]], paths);
    log('reads: two replicas at once');
    const two = await reads(replicas.slice(0, 2), paths);
    log('reads: three replicas at once');
    const three = replicas.length >= 3 ? await reads(replicas.slice(0, 3), paths) : null;
    log(`SSE fan-out: ${SSE_CONSUMERS} consumers on one replica, then over all ${replicas.length}`);
    const sseOne = await sseFanOut(writer, replicas.slice(0, 1), SSE_CONSUMERS, SSE_SECONDS);
    const sseAll = await sseFanOut(writer, replicas, SSE_CONSUMERS, SSE_SECONDS);
    const health = await Promise.all(
      replicas.map(async (r) => (await r.get('/health')).body?.replication?.replica ?? null),
    );

    // Ingest with and without publishing, on the same chain, with the read processes stopped.
    const target = (await anchorOf(writer)) - 2;
    for (const p of started.splice(0).reverse()) await p.stop();
    const ingestRuns: Array<Awaited<ReturnType<typeof ingest>>> = [];
    for (let i = 0; i < INGEST_ROUNDS; i++)
      for (const role of ['all', 'writer'] as const) {
        log(`ingest to block ${target}: ROLE=${role} (round ${i + 1})`);
        ingestRuns.push(await ingest(dev.rpcUrl, role, target, {}));
      }
    const mean = (role: string) => {
      const r = ingestRuns.filter((x) => x.role === role);
      return round(r.reduce((a, x) => a + x.blocksPerSec, 0) / r.length, 1);
    };
    const ingestCost = round(1 - mean('writer') / mean('all'), 3);

    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
    const report = {
      at: new Date().toISOString(),
      commit,
      cores: cpus().length,
      loadavg1m: { start: round(loadAtStart, 2), end: round(loadavg()[0], 2) },
      seconds: SECONDS,
      connections: CONNECTIONS,
      paths,
      reads: {
        writer: onWriter,
        oneReplica: one,
        twoReplicas: two,
        threeReplicas: three,
        scaling: round(two.reqPerSec / one.reqPerSec, 2),
        scaling3: three ? round(three.reqPerSec / one.reqPerSec, 2) : null,
      },
      sse: [sseOne, sseAll],
      lag: lags,
      ingest: {
        target,
        runs: ingestRuns,
        allBlocksPerSec: mean('all'),
        writerBlocksPerSec: mean('writer'),
        publishingCost: ingestCost,
      },
      replicaHealth: health.map(
        (x) => x && { state: x.state, lagBlocks: x.lagBlocks, lagSeconds: x.lagSeconds },
      ),
    };
    const row = (name: string, r: typeof one) =>
      `| ${name} | ${r.processes} | ${r.connections} | ${r.reqPerSec} | ${r.p50ms} | ${r.p99ms} | ${r.non2xx + r.errors} |`;
    const md = [
      `# Scale-out bench ${report.at.slice(0, 10)} (${commit})`,
      '',
      `${report.cores} cores; every process (nats-server, anvil, writer, replicas, load generator) on this machine, shared with other work (1-minute load average ${report.loadavg1m.start} at the start, ${report.loadavg1m.end} at the end): compare figures within this run, not across runs. ${SECONDS} s per read phase; routes: ${paths.join(', ')}.`,
      '',
      '| reads against | processes | connections | req/s | p50 ms | p99 ms | non-2xx + errors |',
      '|---|---|---|---|---|---|---|',
      row('writer', onWriter),
      row('1 replica', one),
      row('2 replicas', two),
      ...(three ? [row('3 replicas', three)] : []),
      '',
      `Two replicas / one: **${report.reads.scaling}×**; three / one: **${report.reads.scaling3}×**.${report.cores <= 2 ? ' With 2 cores the replicas, the writer, anvil, nats-server and the load generator share two cores: the figures measure contention and the other work on the machine, not what separate cores would give.' : ''}`,
      '',
      `Writer-to-replica visibility (block first seen on the replica − first seen on the writer, ${LAG_SECONDS} s at a 400 ms block time, polled every ~2 ms, no read load):`,
      '',
      '| replica | blocks | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      ...lags.map((l) => `| ${l.replica} | ${l.blocks} | ${l.p50ms} | ${l.p99ms} | ${l.maxMs} |`),
      '',
      `SSE fan-out: ${SSE_CONSUMERS} consumers of /stream/blocks (live, no resume) for ${SSE_SECONDS} s, spread round-robin over the replicas; lag = frame arrival on a replica's consumer − arrival on one reference consumer on the writer:`,
      '',
      '| replicas | consumers | blocks (writer) | frames/s delivered | frames/s expected | lag p50 ms | lag p99 ms | max ms |',
      '|---|---|---|---|---|---|---|---|',
      ...[sseOne, sseAll].map(
        (x) =>
          `| ${x.replicas} | ${x.consumers} | ${x.blocksOnWriter} | ${x.framesPerSec} | ${x.expectedFramesPerSec} | ${x.lagP50ms} | ${x.lagP99ms} | ${x.lagMaxMs} |`,
      ),
      '',
      `Ingest from block 0 to ${target} on a fresh data dir, the replicas and the first writer stopped (anvil and its traffic still running), alternating ROLE=all (no publishing) and ROLE=writer (publishing to its own fresh nats-server); blocks/s counted from the first indexed block (process start excluded):`,
      '',
      '| role | round | seconds from spawn | seconds from first block | blocks/s (from first block) | entries published |',
      '|---|---|---|---|---|---|',
      ...ingestRuns.map(
        (x, i) =>
          `| ${x.role} | ${Math.floor(i / 2) + 1} | ${x.seconds} | ${x.syncSeconds} | ${x.blocksPerSec} | ${x.published ?? '–'} |`,
      ),
      '',
      `Mean blocks/s: ROLE=all ${mean('all')}, ROLE=writer ${mean('writer')}: publishing costs **${round(ingestCost * 100, 1)} %** of the ingest rate in this run (budget ≤ 10 %; on a shared 2-core machine the run-to-run spread is of the same order, see the rounds).`,
      '',
    ].join('\n');
    mkdirSync(OUT, { recursive: true });
    const stem = join(OUT, `${report.at.slice(0, 10)}-${commit}-scale-out`);
    writeFileSync(`${stem}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${stem}.md`, md);
    process.stdout.write(`${md}\nwritten: ${stem}.md, ${stem}.json\n`);
  } finally {
    for (const p of started.reverse()) await p.stop().catch(() => {});
    await dev?.stop().catch(() => {});
    await nats?.stop().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`scale-out bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
