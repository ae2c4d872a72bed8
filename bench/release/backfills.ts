/**
 * Release bench, sections 5 and 6: indexer B's point reads during a full-speed backfill against
 * anvil, then indexer C's backfill against the replay server (stopped after).
 */
import { latencyFigures, log, sampleLatency, sleep } from '../lib.js';
import { BUDGETS } from '../report.js';
import { releaseBackfill } from './backfill.js';
import type { Chain } from './chain.js';
import type { Release } from './context.js';
import type { RawFetch } from './raw-fetch.js';

export async function readsUnderBackfillSection(r: Release, { node, info, head }: Chain, liveHead: number) {
  const { fig } = r;
  // 5. Indexer B: reads during a full-speed backfill ------------------------------------------
  log('indexer B: point reads during a backfill against anvil');
  let readsDuring: ReturnType<typeof latencyFigures> | null = null;
  const earlyBlock = Math.min(200, Math.floor(head / 10));
  const early = info.sampleTxs.filter((s) => s.block <= earlyBlock && !info.denseBlocks.includes(s.block));
  const readPaths = [
    ...Array.from({ length: earlyBlock }, (_, i) => `/blocks/${i + 1}`),
    ...early.flatMap((s) => [`/transactions/${s.hash}`, `/transactions/${s.hash}/receipt`]),
  ];
  const B = await releaseBackfill(r, info, {
    rpcUrl: node.rpcUrl,
    head: liveHead,
    during: async (ix, finished) => {
      const t = performance.now();
      while (!finished() && (await ix.anchor()) < earlyBlock) await sleep(10);
      log(`reads during backfill start after ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const s = await sampleLatency({ base: ix.base, paths: readPaths, connections: 1, until: finished });
      readsDuring = latencyFigures(s);
    },
  });
  const rd = readsDuring as ReturnType<typeof latencyFigures> | null;
  if (rd && rd.n >= 100) {
    fig({
      id: 'read.duringBackfill.p50',
      group: 'Read under backfill',
      label: `point reads c=1 during backfill p50 (${rd.n} reads)`,
      value: rd.p50ms,
      unit: 'ms',
      better: 'lower',
      status: 'info',
    });
    fig({
      id: 'read.duringBackfill.p99',
      group: 'Read under backfill',
      label: `point reads c=1 during backfill p99 (${rd.n} reads, ${rd.non2xx} non-2xx)`,
      value: rd.p99ms,
      unit: 'ms',
      better: 'lower',
      budget: BUDGETS.readP99Backfill,
      note: `p99.9 ${rd.p99_9ms} ms`,
    });
  } else {
    fig({
      id: 'read.duringBackfill.p99',
      group: 'Read under backfill',
      label: `point reads during backfill (${rd?.n ?? 0} reads: the backfill ended too soon)`,
      value: null,
      unit: 'ms',
      status: 'failed',
      budget: BUDGETS.readP99Backfill,
    });
  }
  fig({
    id: 'ingest.anvil.underReads.blocks',
    group: 'Read under backfill',
    label: 'backfill rate while serving reads',
    value: B.run.blocksPerSecond,
    unit: 'blocks/s',
    better: 'higher',
    status: 'info',
  });
}

export async function replayBackfillSection(
  r: Release,
  { info, head }: Chain,
  { rawReplay, replay }: RawFetch,
) {
  const { fig } = r;
  // 6. Indexer C: backfill against the replay server -------------------------------------------
  log('indexer C: backfill against the replay server');
  const C = await releaseBackfill(r, info, { rpcUrl: replay.url, head });
  fig({
    id: 'ingest.replay.events',
    group: 'Ingest',
    label: 'backfill vs replay server: decoded events/s',
    value: C.run.eventsPerSecond,
    unit: 'events/s',
    better: 'higher',
    baseline: {
      label: 'raw fetch from the replay server',
      value: rawReplay.eventsPerSecond,
      unit: 'events/s',
    },
    budget: BUDGETS.replayEvents,
  });
  fig({
    id: 'ingest.replay.blocks',
    group: 'Ingest',
    label: 'backfill vs replay server',
    value: C.run.blocksPerSecond,
    unit: 'blocks/s',
    better: 'higher',
    status: 'info',
    note: `RSS peak ${C.run.rss.peakMiB} MiB`,
  });
  await replay.stop();
}
