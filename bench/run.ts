/**
 * Release benchmark of the indexer (issue I). See ops/RELEASE.md for the runbook.
 *
 *   npm run bench                       full run: ≥ 20,000 blocks, ≥ 1,000,000 logs
 *   npm run bench -- --quick            2,000 blocks, short runs (≈ 2–3 minutes)
 *   npm run bench -- --compare <old.json> [--threshold 0.10]   also compare with an earlier result
 *   npm run bench -- --compare-only <old.json> <new.json>      compare two result files, no run
 *   options: --seed <n>  --cache (try the anvil state cache; see bench/chain.ts)  --out <dir>
 *
 * Steps (every process started here is stopped at the end, also on failure):
 *  1. chain: a seeded chain on a fresh anvil (bench/chain.ts), or the anvil state cache;
 *  2. raw fetch ceiling against anvil (bench/rawfetch.ts), which also records the replay file;
 *     raw fetch ceiling against the replay server (bench/replay-server.ts, its own process);
 *  3. uWS ceiling: a bare uWS hello-world (bench/uws-hello.ts, its own process) under autocannon;
 *  4. indexer A against anvil: clean backfill (rate, RSS, event-loop delay), then point reads
 *     (c=1, c=32) while the chain moves (a block every 2 s with 20 transfers, followed live; each
 *     route beside a bare hello sampled in the same conditions: release/moving.ts), max pages (hard 4 MiB / 1000-row check), batch of 20, token/pool/wallet probes,
 *     head-to-queryable while following live (default POLL_MS, then POLL_MS=50);
 *  4b. the same point reads and streams on an indexer with HTTP_CORE=node_http (the stand-in),
 *     each beside the native figure of the same run (bench/stand-in.ts);
 *  5. indexer B against anvil: point reads during a full-speed backfill;
 *  6. indexer C against the replay server: backfill events/s;
 *  7. devnet markets: token detail/overview, pool stats, wallet overview on devnet traffic;
 *  8. as-of reads (issue AC): every route taking `atBlock`, at N = head − 10,000 against the head, at
 *     c=1 and c=32, on a devnet chain built for it (bench/release/as-of.ts); also written as
 *     bench/results/as-of-reads-<date>.md. `npm run bench -- --only as-of [--quick]` runs this
 *     section alone (its release report is then <date>-<commit>-only-as-of[-quick].*);
 *     `--as-of-routes <regex>` measures only the routes whose name matches (e.g. 'ath|atl').
 * `npm run bench -- --only points [--quick]` runs steps 1–4's point reads alone (chain, raw fetch,
 * uWS ceiling, anvil backfill, point reads on the moving chain); `--frozen` reads a frozen chain.
 * Issue K's market hot-read budgets (V2/V3/V4 pools, wallet activity, big subjects: a token with
 * 500+ pools and a wallet with 10,000+ activity rows, big/small ratios, a --profile option) have
 * their own bench beside this one: bench/market-reads.ts (`npm run bench:market-reads`).
 * Output: bench/results/<date>-<commit>.json, .md and .html (also printed).
 *
 * Each step is a module of bench/release/ (context.ts: the command line, sizes and the figures the
 * steps add to; report.ts: the files written); this file only sequences them.
 */
import { readFileSync } from 'node:fs';
import { rpc, runBench } from './lib.js';
import { asOfSection } from './release/as-of.js';
import { backfillAnvilSection } from './release/backfill-anvil.js';
import { readsUnderBackfillSection, replayBackfillSection } from './release/backfills.js';
import { batchSection } from './release/batch.js';
import { ceilingSection } from './release/ceiling.js';
import { chainSection } from './release/chain.js';
import { newRelease, parseArgs } from './release/context.js';
import { devnetMarketsSection } from './release/devnet-markets.js';
import { h2q50Figures, liveSection } from './release/live.js';
import { maxPageSection } from './release/max-page.js';
import { movingReads } from './release/moving.js';
import { marketRoutesSection, pointReader, pointReadsSection } from './release/point-reads.js';
import { rawFetchSection } from './release/raw-fetch.js';
import { provenance, writeReport } from './release/report.js';
import { standInSection } from './release/stand-in.js';
import { streamsSection } from './release/streams.js';
import { compare } from './report.js';

async function main(): Promise<number> {
  if (process.argv.includes('--peer')) {
    // `npm run bench -- --peer ponder,subsquid`: the transfer-chain ingest bench with peer indexers.
    const { main: ingestTransfers } = await import('./ingest-transfers.js');
    await ingestTransfers();
    return 0;
  }
  const args = parseArgs(process.argv.slice(2));
  if (args.compareOnly) {
    const [a, b] = args.compareOnly;
    const c = compare(
      JSON.parse(readFileSync(a, 'utf8')),
      JSON.parse(readFileSync(b, 'utf8')),
      args.threshold,
    );
    process.stdout.write(c.text);
    return c.regressions.length ? 3 : 0;
  }
  const r = newRelease(args);
  const startedAt = new Date();
  const t0 = performance.now();
  const commit = provenance(r);
  if (args.only?.includes('as-of') && !args.only.includes('points')) {
    const { uwsIsNative } = await import('@chain-indexer/platform/http');
    await asOfSection(r); // 8
    return writeReport(r, { startedAt, t0, commit, httpCore: uwsIsNative() ? 'uws' : 'node_http' });
  }
  const chain = await chainSection(r); // 1
  const raw = await rawFetchSection(r, chain); // 2
  const ceiling = await ceilingSection(r); // 3
  const A = await backfillAnvilSection(r, chain, raw); // 4
  const { point, nativePoint } = pointReader(r, ceiling, A.ix);
  // The point reads run while the chain moves (a block every 2 s with transfers, followed live).
  const moving = await movingReads(r, chain, A.ix, async () => {
    const pr = await pointReadsSection(chain, point);
    await marketRoutesSection(r, chain, A.ix, point);
    return pr;
  });
  const { normal, pointRoutes } = moving;
  const facts = {
    startedAt,
    t0,
    commit,
    httpCore: ceiling.httpCore,
    concurrency: raw.concurrency,
    chain,
    anvilBackfill: A.run,
  };
  if (args.only?.includes('points')) {
    if (args.only.includes('as-of')) await asOfSection(r); // 8
    return writeReport(r, facts);
  }
  await maxPageSection(r, chain, A.ix);
  await batchSection(r, normal, A.ix);
  const live = await liveSection(r, chain, A.ix, A.dataDir);
  const nativeFan = await streamsSection(r, chain, live.ixA2, live.streamKeys);
  await standInSection(r, chain, ceiling, {
    ...live,
    dataDir: A.dataDir,
    pointRoutes,
    nativePoint,
    nativeFan,
  }); // 4b
  h2q50Figures(r, live.hq50);
  const liveHead = Number.parseInt(await rpc<string>(chain.node.rpcUrl, 'eth_blockNumber'), 16);
  await readsUnderBackfillSection(r, chain, liveHead); // 5
  await replayBackfillSection(r, chain, raw); // 6
  await devnetMarketsSection(r, point); // 7
  await asOfSection(r); // 8
  return writeReport(r, facts);
}

await runBench(main);
