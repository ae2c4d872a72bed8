/** A clean backfill measured from an empty data dir: rate, RSS over time, event-loop delay. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  type IndexerChild,
  onCleanup,
  promValue,
  round,
  rssMiB,
  sleep,
  startIndexerChild,
  waitAnchor,
} from '../lib.js';
import type { Chain } from './chain.js';
import { CHAIN, type Release } from './context.js';

export interface BackfillRun {
  seconds: number;
  blocksPerSecond: number;
  eventsPerSecond: number;
  rss: { startMiB: number; peakMiB: number; endMiB: number };
  /** RSS samples over the backfill: [seconds since start, MiB], at most 400 points. */
  rssSeries: Array<[number, number]>;
  eventLoopP99ms: { max: number | null; median: number | null; samples: number };
}

/** Starts an indexer on an empty data dir and measures its backfill to `head`. */
export async function backfill(o: {
  rpcUrl: string;
  head: number;
  logs: number;
  env: Record<string, string>;
  timeoutMs: number;
  during?: (ix: IndexerChild, finished: () => boolean) => Promise<void>;
  keep?: boolean;
}): Promise<{ run: BackfillRun; ix: IndexerChild; dataDir: string }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'indexer-bench-data-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const ix = await startIndexerChild({ rpcUrl: o.rpcUrl, chain: CHAIN, dataDir, env: o.env });
  onCleanup(() => ix.stop());
  const tStart = performance.now();
  const rss: number[] = [rssMiB(ix.pid)];
  const rssAt: number[] = [0];
  const lag: number[] = [];
  let finished = false;
  const sampler = (async () => {
    let lastMetrics = 0;
    while (!finished) {
      rss.push(rssMiB(ix.pid));
      rssAt.push((performance.now() - tStart) / 1000);
      if (performance.now() - lastMetrics > 1000) {
        lastMetrics = performance.now();
        const text = await ix.metrics().catch(() => '');
        const v = promValue(text, 'indexer_process_nodejs_eventloop_lag_p99_seconds');
        // prom-client's histogram (monitorEventLoopDelay, 10 ms resolution) records the time between
        // 10 ms ticks, so an idle loop reads ≈ 10 ms: the delay is what exceeds the 10 ms interval.
        if (v !== null && Number.isFinite(v)) lag.push(Math.max(0, v * 1000 - 10));
      }
      await sleep(100);
    }
  })();
  await ix.metrics().catch(() => ''); // resets the event-loop histogram at the start of the backfill
  const during = o.during?.(ix, () => finished);
  const tDone = await waitAnchor(ix, o.head, o.timeoutMs, 20).finally(() => {
    finished = true;
  });
  await sampler;
  await during;
  const seconds = (tDone - tStart) / 1000;
  rss.push(rssMiB(ix.pid));
  rssAt.push((performance.now() - tStart) / 1000);
  const endRss = rssMiB(ix.pid);
  const every = Math.max(1, Math.ceil(rss.length / 400));
  const rssSeries = rss
    .map((v, i): [number, number] => [round(rssAt[i], 2), round(v, 1)])
    .filter((p, i) => Number.isFinite(p[1]) && (i % every === 0 || i === rss.length - 1));
  const lagS = [...lag].sort((a, b) => a - b);
  const run: BackfillRun = {
    seconds,
    blocksPerSecond: (o.head + 1) / seconds,
    eventsPerSecond: o.logs / seconds,
    rss: {
      startMiB: round(rss[0], 1),
      peakMiB: round(Math.max(...rss.filter(Number.isFinite)), 1),
      endMiB: round(endRss, 1),
    },
    rssSeries,
    eventLoopP99ms: {
      max: lagS.length ? round(lagS[lagS.length - 1], 2) : null,
      median: lagS.length ? round(lagS[Math.floor(lagS.length / 2)], 2) : null,
      samples: lagS.length,
    },
  };
  if (!o.keep) await ix.stop();
  return { run, ix, dataDir };
}

/** {@link backfill} of the bench chain (`info`'s logs) with the release's indexer environment and timeout. */
export const releaseBackfill = (
  r: Release,
  info: Chain['info'],
  o: Pick<Parameters<typeof backfill>[0], 'rpcUrl' | 'head' | 'during' | 'keep'>,
) => backfill({ ...o, logs: info.logCount, env: r.ixEnv, timeoutMs: r.P.backfillTimeoutMs });
