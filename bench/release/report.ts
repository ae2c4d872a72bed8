/**
 * Release bench, the report: what was measured (commit, machine, configuration, notes), written as
 * bench/results/<date>-<commit>[-quick].json, .md and .html (also printed); then, on full runs, the
 * live shape's own report beside it, and the comparison with an earlier result (--compare).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headCommit, INDEXER_MAIN } from '../lib.js';
import { compare, markdown, type Results } from '../report.js';
import { html, previousCommitted } from '../report-html.js';
import type { BackfillRun } from './backfill.js';
import type { Chain } from './chain.js';
import { type Release, ROOT } from './context.js';

/** The commit measured, with the notes on what it stands for and on the machine's load at the start. */
export function provenance({ notes }: Release): string {
  const git = headCommit(ROOT);
  let commit = git.commit;
  if (git.dirty && !process.env.INDEXER_MAIN)
    notes.push(
      `working tree has uncommitted changes on top of ${commit}: the figures are of that tree, not of the commit`,
    );
  if (process.env.INDEXER_MAIN) {
    notes.push(
      `indexer measured: INDEXER_MAIN=${INDEXER_MAIN}${process.env.INDEXER_COMMIT ? ` (commit ${process.env.INDEXER_COMMIT})` : ''}`,
    );
    if (process.env.INDEXER_COMMIT) commit = process.env.INDEXER_COMMIT;
  }

  notes.push(
    `load average at start ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')} (1/5/15 min): other processes on the machine skew every figure`,
  );
  return commit;
}

/** What the report needs beyond the release's figures and notes. */
export interface RunFacts {
  startedAt: Date;
  t0: number;
  commit: string;
  httpCore: 'uws' | 'node_http';
  /** Absent with `--only` (no bench chain, no raw fetch, no clean backfill). */
  concurrency?: number;
  chain?: Chain;
  anvilBackfill?: BackfillRun;
}

/** Writes the report and returns the exit code: 2 on hard failures, 3 on regressions against --compare. */
export async function writeReport(r: Release, o: RunFacts): Promise<number> {
  const { args, quick, P, blocksPerTask, decodeThreads, figures, hardFailures, notes } = r;
  const { startedAt, t0, commit, httpCore, concurrency } = o;
  if (o.chain)
    notes.push(
      'c=1 latency percentiles come from a closed-loop keep-alive client on raw sockets that read into one fixed buffer (bench/http-sampler.ts: no allocation per answer, so the client’s own garbage collector does not land in the figures) timing each request with performance.now(); autocannon figures (throughput, c=32 latency) have 1 ms latency resolution.',
      'On a 2-CPU machine autocannon at c=32 saturates a CPU itself, so the uWS c=32 "ceiling" can be client-bound and read ratios above 100 % mean exactly that.',
      `Ingest runs use BLOCKS_PER_TASK=${blocksPerTask}, DECODE_THREADS=${decodeThreads}; raw fetch uses the same calls in the same batches with ${concurrency} tasks in flight and reads bodies without parsing them.`,
      'Event-loop delay is prom-client’s indexer_process_nodejs_eventloop_lag_p99_seconds, scraped every second from the loopback metrics listener (each scrape covers the interval since the previous one).',
      'Head-to-queryable: time from evm_mine returning to /checkpoints showing the block (polled every ~1 ms); a random pause before each block de-phases it from the indexer poll period; 5 warm-up blocks before each series are not counted.',
    );
  else notes.push(`--only ${args.only?.join(',')}: no bench chain; only the named sections ran.`);

  const seconds = (performance.now() - t0) / 1000;
  const results: Results = {
    schema: 1,
    date: startedAt.toISOString().slice(0, 10),
    commit,
    mode: quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    seconds,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '?',
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
      httpCore,
      glibc:
        (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } })?.header
          ?.glibcVersionRuntime ?? null,
    },
    config: {
      indexerMain: INDEXER_MAIN,
      blocksPerTask,
      decodeThreads,
      autocannonDurationS: P.dur,
      preciseSamples: P.preciseN,
      h2qSamples: P.h2qSamples,
    },
    chain: o.chain
      ? {
          seed: args.seed,
          blocks: o.chain.head + 1,
          txs: o.chain.info.txCount,
          logs: o.chain.info.logCount,
          denseBlocks: o.chain.info.denseBlocks,
          source: o.chain.info.source,
          generationSeconds: o.chain.info.generationSeconds,
          headHash: o.chain.info.headHash,
        }
      : { seed: args.seed },
    figures,
    hardFailures,
    notes,
    series: o.anvilBackfill
      ? { rss: [{ label: 'clean backfill against anvil (indexer A)', points: o.anvilBackfill.rssSeries }] }
      : {},
  };
  mkdirSync(args.out, { recursive: true });
  const only = args.only ? `-only-${args.only.join('-')}` : '';
  const base = join(args.out, `${results.date}-${commit}${only}${quick ? '-quick' : ''}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  const md = markdown(results);
  writeFileSync(`${base}.md`, md);
  // The HTML report (charts) beside it, compared with the previous committed report.
  const previous = previousCommitted(args.out, results);
  writeFileSync(`${base}.html`, html(results, previous?.results ?? null));
  process.stdout.write(
    `\n${md}\nwritten ${base}.json, ${base}.md and ${base}.html${previous ? ` (compared with ${previous.file})` : ''}\n`,
  );

  // Reads on a moving chain (issue T part 5): the frozen-chain read figures above are cache hits
  // for the most part; the live shape (2 s blocks of ~200 and 12 s blocks of ~150 mainnet
  // transactions, followed while reading) writes its own report beside this one. Full runs only.
  if (!quick && !args.only && !process.argv.includes('--no-live-shape')) {
    const liveOut = `${base}-live-shape.md`;
    const child = spawn(
      process.execPath,
      [join(dirname(fileURLToPath(import.meta.url)), '..', 'live-shape.js'), '--out', liveOut],
      {
        stdio: 'inherit',
      },
    );
    const exit = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    process.stdout.write(exit === 0 ? `written ${liveOut}\n` : `live shape failed (exit ${exit})\n`);
  }

  let code = hardFailures.length ? 2 : 0;
  if (args.compare) {
    const c = compare(JSON.parse(readFileSync(args.compare, 'utf8')), results, args.threshold);
    process.stdout.write(`\n${c.text}`);
    if (c.regressions.length) code = code || 3;
  }
  return code;
}
