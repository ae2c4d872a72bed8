/**
 * Scale-out bench (issue O): read throughput of the writer, of one replica, and of two replicas
 * side by side, and the writer-to-replica visibility lag, on one machine, in one run.
 *
 * Layout: a real nats-server with JetStream (loopback), a devnet with traffic (anvil, blocks every
 * 400 ms), the writer (ROLE=writer) and two replicas (ROLE=replica), each its own process (the
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
 * Usage: `npm run build && node dist/bench/scale-out.js [--seconds 5] [--connections 16]
 *   [--lag-seconds 20] [--out bench/results]`. nats-server and anvil must be installed. On a
 * machine with 2 cores the replicas, the writer, anvil, nats-server and the load generator share
 * them, so two replicas cannot double the read rate there; the report says how many cores it had.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { startTestDevnet, type TestDevnet } from '../test/harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../test/harness/indexer.js';
import { NATS_MISSING, type NatsServer, natsServerBinary, startNats } from '../test/harness/nats.js';
import { benchArgs, type CannonResult, cannon, cannonFigures, log, round, sleep, summarize } from './lib.js';

const CHAIN = 'testnet';
const { arg } = benchArgs(process.argv.slice(2));
const SECONDS = Number(arg('--seconds', '5'));
const CONNECTIONS = Number(arg('--connections', '16'));
const LAG_SECONDS = Number(arg('--lag-seconds', '20'));
const OUT = arg('--out', 'bench/results');

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

async function main() {
  if (!natsServerBinary()) throw new Error(NATS_MISSING);
  const started: Array<{ stop(): Promise<void> }> = [];
  let nats: NatsServer | null = null;
  let dev: TestDevnet | null = null;
  try {
    nats = await startNats();
    dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 15 });
    await dev.traffic?.ready;
    log('devnet and nats-server up; starting the writer');
    const writer = await startIndexer({
      rpcUrl: dev.rpcUrl,
      env: { ROLE: 'writer', NATS_URL: nats.url },
    });
    started.push(writer);
    await writer.waitForHead(15, 120_000);
    const replicas: IndexerProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await startIndexer({ env: { ROLE: 'replica', NATS_URL: nats.url } });
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
    const two = await reads(replicas, paths);
    const health = await Promise.all(
      replicas.map(async (r) => (await r.get('/health')).body?.replication?.replica ?? null),
    );

    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
    const report = {
      at: new Date().toISOString(),
      commit,
      cores: cpus().length,
      seconds: SECONDS,
      connections: CONNECTIONS,
      paths,
      reads: {
        writer: onWriter,
        oneReplica: one,
        twoReplicas: two,
        scaling: round(two.reqPerSec / one.reqPerSec, 2),
      },
      lag: lags,
      replicaHealth: health.map(
        (x) => x && { state: x.state, lagBlocks: x.lagBlocks, lagSeconds: x.lagSeconds },
      ),
    };
    const row = (name: string, r: typeof one) =>
      `| ${name} | ${r.processes} | ${r.connections} | ${r.reqPerSec} | ${r.p50ms} | ${r.p99ms} | ${r.non2xx + r.errors} |`;
    const md = [
      `# Scale-out bench ${report.at.slice(0, 10)} (${commit})`,
      '',
      `${report.cores} cores; every process (nats-server, anvil, writer, replicas, load generator) on this machine. ${SECONDS} s per read phase; routes: ${paths.join(', ')}.`,
      '',
      '| reads against | processes | connections | req/s | p50 ms | p99 ms | non-2xx + errors |',
      '|---|---|---|---|---|---|---|',
      row('writer', onWriter),
      row('1 replica', one),
      row('2 replicas', two),
      '',
      `Two replicas / one: **${report.reads.scaling}×**.${report.cores <= 2 ? ' With 2 cores the two replicas, the writer, anvil, nats-server and the load generator share two cores: the figure measures contention, not what separate cores would give.' : ''}`,
      '',
      `Writer-to-replica visibility (block first seen on the replica − first seen on the writer, ${LAG_SECONDS} s at a 400 ms block time, polled every ~2 ms, no read load):`,
      '',
      '| replica | blocks | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      ...lags.map((l) => `| ${l.replica} | ${l.blocks} | ${l.p50ms} | ${l.p99ms} | ${l.maxMs} |`),
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
