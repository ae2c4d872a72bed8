/**
 * Wallet activity feed under a busy wallet: page latency must not grow with the wallet's history
 * (page work proportional to the page size). A devnet with traffic runs for TRAFFIC_S seconds,
 * the chain is frozen, the indexer catches up; the wallet with the most activity parents is then
 * walked with cursors (limit 100, both orders) and its first and last pages are sampled at c=1.
 *
 * Run: `npm run build && node dist/bench/wallet-activity.js` (env TRAFFIC_S, default 40;
 * BASELINE_MAIN=<other build>/dist/app/main.js also measures that build on the same chain).
 *
 * Recorded on the dev machine (2 cores shared with other jobs, load 6–14, so p99s are noisy), 40 s
 * of traffic, busiest wallet the airdrop treasury (391 parents, up to ~100 transfers per block),
 * this build vs the previous read path (BASELINE_MAIN, three whole-history scans merged and each
 * parent re-scanning its block's transfers), same chain:
 *   full cursor walk, limit 100:  asc 13.0 vs 50.7 ms/page; limit 10: 1.9 vs 5.8 ms/page
 *   first page, limit 100, c=1:   p50 7.8 vs 30.9 ms
 *   last page,  limit 100, c=1:   p50 3.9 vs 12.1 ms (desc: 1.7 vs 24.5 ms)
 *   last page,  limit 10,  c=1:   p50 0.21 vs 1.36 ms
 * An earlier, quieter run of the same comparison: 2.9 vs 37 ms/page (limit 100, asc).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cleanupAll,
  exitAfter,
  type IndexerChild,
  latencyFigures,
  log,
  rpc,
  sampleLatency,
  sleep,
  startIndexerChild,
} from './lib.js';
import { settleTraffic, startTrafficDevnet } from './traffic-devnet.js';

const TRAFFIC_S = Number(process.env.TRAFFIC_S ?? 40);
const SAMPLES = 200;

async function main() {
  const stateDir = mkdtempSync(join(tmpdir(), 'bench-activity-'));
  const dev = await startTrafficDevnet(stateDir);
  try {
    const { head, markets } = await settleTraffic(dev, stateDir, TRAFFIC_S, () =>
      log(`traffic for ${TRAFFIC_S} s`),
    );
    const builds: Array<[string, string | undefined]> = [['this build', undefined]];
    if (process.env.BASELINE_MAIN) builds.push(['baseline', process.env.BASELINE_MAIN]);
    // Candidates: every transaction sender and recipient.
    const addrs = new Set<string>();
    for (let n = 0; n <= head; n++) {
      const b = await rpc<any>(dev.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
      for (const t of b.transactions) {
        addrs.add(t.from.toLowerCase());
        if (t.to) addrs.add(t.to.toLowerCase());
      }
    }
    let busiest = '';
    for (const [name, mainPath] of builds) {
      const dataDir = mkdtempSync(join(tmpdir(), 'bench-activity-idx-'));
      const ix: IndexerChild = await startIndexerChild({
        rpcUrl: dev.rpcUrl,
        chain: 'testnet',
        dataDir,
        env: { MARKETS_FILE: markets, TRACES: 'off', POLL_MS: '50' },
        main: mainPath,
      });
      try {
        while ((await ix.anchor()) < head) await sleep(200);
        if (!busiest) {
          let most = 0;
          for (const a of addrs) {
            const r = await ix.get(`/wallets/${a}/activity?limit=1000`);
            if (r.body?.data?.length > most && !r.body.page.nextCursor) {
              most = r.body.data.length;
              busiest = a;
            }
          }
          log(`busiest wallet ${busiest}: ${most} activity parents at head ${head}`);
        }
        for (const q of ['limit=100', 'limit=100&order=desc', 'limit=10']) {
          const pages: number[] = [];
          let path = `/wallets/${busiest}/activity?${q}`;
          let last = path;
          for (;;) {
            const t0 = performance.now();
            const r = await ix.get(path);
            pages.push(performance.now() - t0);
            if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
            const next = r.body.page.nextCursor as string | null;
            if (!next) break;
            last = `/wallets/${busiest}/activity?${q}&cursor=${encodeURIComponent(next)}`;
            path = last;
          }
          const mean = pages.reduce((s, x) => s + x, 0) / pages.length;
          log(
            `${name} ${q}: ${pages.length} pages, ${mean.toFixed(2)} ms/page mean, max ${Math.max(...pages).toFixed(2)} ms`,
          );
          for (const [label, p] of [
            ['first page', `/wallets/${busiest}/activity?${q}`],
            ['last page', last],
          ] as const) {
            const f = latencyFigures(
              await sampleLatency({ base: ix.base, paths: [p], connections: 1, amount: SAMPLES }),
            );
            log(
              `${name} ${q} ${label}: p50 ${f.p50ms} ms, p99 ${f.p99ms} ms, max ${f.maxMs} ms (${f.n} requests)`,
            );
          }
        }
      } finally {
        await ix.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await dev.killNode();
    rmSync(stateDir, { recursive: true, force: true });
    await cleanupAll();
  }
}

exitAfter(main);
