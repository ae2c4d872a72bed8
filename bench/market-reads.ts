/**
 * Market hot-read bench (issue K "Budgets"): token detail and overview, pool detail and stats for
 * a V2, a V3 and a V4 pool, wallet overview and the wallet activity page, each measured at c=1
 * (precise closed-loop client, p50/p99) and c=32 (autocannon throughput) against the bare uWS
 * hello-world ceiling measured in the same run, on small subjects (the devnet's own traffic) and
 * on big subjects the bench builds on the devnet:
 *  - a token with 500+ pools: `--pools` (default 520) Uniswap V4 pools LINK/USDC initialized on the
 *    devnet's PoolManager with distinct (fee, tickSpacing), the first 12 given liquidity and 4 swaps
 *    each (by the big wallet);
 *  - a wallet with 10,000+ activity rows: anvil dev account 9 sends `--transfers` (default 10,200)
 *    USDC transfers to 200 recipients, one transaction each, mined in full blocks (interval mining
 *    off, evm_mine).
 * Small and big subjects of one route are measured back to back and compared (budget: within 2×).
 *
 * Run: `npm run build && node dist/bench/market-reads.js [--quick] [--profile | --profile-only]
 *   [--pools 520] [--transfers 10200] [--seed 1] [--out bench/results]`
 *   (`npm run bench:market-reads -- --quick`); `--render <result.json>` re-renders a result's
 *   markdown (and re-judges its ratios) without a run. INDEXER_MAIN=<other build>/dist/app/main.js measures
 *   another build (INDEXER_COMMIT names it in the report).
 * Writes bench/results/market-reads-<date>-<commit>[-quick].{md,json}. Not timed tests: the
 * machine is shared (os.loadavg() is recorded with every route), so figures carry that noise.
 *
 * `--profile` (after the measurements) / `--profile-only` (instead of them): restarts the indexer
 * on the same data directory under `node --cpu-prof`, hammers the big token's overview at c=32 and
 * prints the top self-time and total-time functions of the main thread (bench/cpuprofile.ts).
 *
 * The sections live in bench/market-reads/: context.ts (command line, sizes, provenance), big.ts
 * and subjects.ts (sections 1–2), measure.ts (3), profile.ts (4), report.ts (the files written).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { INDEXER_MAIN, round, runBench } from './lib.js';
import { params, parseArgs, provenance } from './market-reads/context.js';
import { type Measured, measureRoutes, rejudge, routePlan } from './market-reads/measure.js';
import { profileOverview } from './market-reads/profile.js';
import { compareBig, markdown, type Results, writeResults } from './market-reads/report.js';
import { prepare } from './market-reads/subjects.js';

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (args.render) {
    const r = JSON.parse(readFileSync(args.render, 'utf8')) as Results;
    if (r.ceiling) rejudge(r.routes, r.ceiling, r.ceilingEnd);
    r.comparisons = compareBig(r.routes);
    writeFileSync(args.render, `${JSON.stringify(r, null, 2)}\n`);
    writeFileSync(args.render.replace(/\.json$/, '.md'), markdown(r));
    process.stdout.write(markdown(r));
    return 0;
  }
  const P = params(args.quick);
  const startedAt = new Date();
  const t0 = performance.now();
  const loadavgStart = os.loadavg().map((x) => round(x, 2));
  const notes: string[] = [];
  const commit = provenance(notes);
  // 1–2. Devnet, big subjects, the indexer at head, small subjects.
  const { dv, trafficHead, big, head, dataDir, env, ix, small, bigOut } = await prepare(args, P, notes);

  // 3. Ceiling and routes, small and big of a route back to back.
  const plan = routePlan(small, big, dv.deployment.contracts.poolManager);
  const { routes, ceiling, ceilingEnd } = args.profileOnly
    ? { routes: [] as Measured[], ceiling: null, ceilingEnd: null }
    : await measureRoutes(ix, plan, P, notes);
  await ix.stop();

  // 4. Profile.
  let profile: Results['profile'] = null;
  if (args.profile) {
    const path = `/tokens/${big.token}/overview`;
    const p = await profileOverview({ rpcUrl: dv.rpcUrl, dataDir, env, head, path, seconds: P.profileS });
    profile = { path, reqPerSec: p.reqPerSec, scope: p.scope, self: p.self, total: p.total, file: p.file };
    process.stdout.write(`\n== top self time (${p.file})\n${p.self}\n\n== top total time\n${p.total}\n`);
  }
  await dv.stop();

  notes.push(
    'c=1 latency comes from a closed-loop keep-alive raw-socket client (bench/http-sampler.ts) timing each request with performance.now() (body fully read, not kept); c=32 throughput and p99 from autocannon (1 ms latency resolution).',
    'On a 2-CPU machine autocannon at c=32 saturates a CPU itself, so the uWS c=32 ceiling can be client-bound; the service shares the other CPU with everything else running.',
    'Big/small: the big subject of a route is measured right after the small one; "within 2×" requires c=1 p50 and p99 big/small ≤ 2 and c=32 throughput small/big ≤ 2. The big V4 pool is one of the big token\'s pools (it has 500+ siblings; its own history is small).',
  );
  const results: Results = {
    schema: 1,
    date: startedAt.toISOString().slice(0, 10),
    commit,
    mode: args.quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    seconds: (performance.now() - t0) / 1000,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? '?',
      node: process.versions.node,
      loadavgStart,
      loadavgEnd: os.loadavg().map((x) => round(x, 2)),
    },
    config: {
      indexerMain: INDEXER_MAIN,
      preciseSamples: P.preciseN,
      autocannonDurationS: P.dur,
      trafficMs: P.trafficMs,
    },
    chain: { head, trafficBlocks: trafficHead },
    small,
    big: bigOut,
    ceiling,
    ceilingEnd,
    routes,
    comparisons: compareBig(routes),
    profile,
    notes,
  };
  writeResults(results, args.out, args);
  return 0;
}

await runBench(main);
