/** Release bench, section 4: indexer A's clean backfill against anvil (rate, RSS, event-loop delay). */
import { log } from '../lib.js';
import { BUDGETS } from '../report.js';
import { releaseBackfill } from './backfill.js';
import type { Chain } from './chain.js';
import type { Release } from './context.js';
import type { RawFetch } from './raw-fetch.js';

/** Backfills indexer A, which is kept running for the reads, pages, batch and live sections. */
export async function backfillAnvilSection(r: Release, { node, info, head }: Chain, { rawAnvil }: RawFetch) {
  const { fig } = r;
  log('indexer A: backfill against anvil');
  const A = await releaseBackfill(r, info, { rpcUrl: node.rpcUrl, head, keep: true });
  fig({
    id: 'ingest.anvil.blocks',
    group: 'Ingest',
    label: 'backfill vs anvil',
    value: A.run.blocksPerSecond,
    unit: 'blocks/s',
    better: 'higher',
    baseline: {
      label: 'raw fetch, same node, same concurrency',
      value: rawAnvil.blocksPerSecond,
      unit: 'blocks/s',
    },
    budget: BUDGETS.backfillAnvil,
  });
  fig({
    id: 'ingest.anvil.events',
    group: 'Ingest',
    label: 'backfill vs anvil',
    value: A.run.eventsPerSecond,
    unit: 'events/s',
    better: 'higher',
    baseline: { label: 'raw fetch', value: rawAnvil.eventsPerSecond, unit: 'events/s' },
    status: 'info',
  });
  fig({
    id: 'ingest.rss.start',
    group: 'Ingest',
    label: 'indexer RSS at start of backfill',
    value: A.run.rss.startMiB,
    unit: 'MiB',
    status: 'info',
  });
  fig({
    id: 'ingest.rss.peak',
    group: 'Ingest',
    label: 'indexer RSS peak during backfill',
    value: A.run.rss.peakMiB,
    unit: 'MiB',
    better: 'lower',
    status: 'info',
  });
  fig({
    id: 'ingest.rss.end',
    group: 'Ingest',
    label: 'indexer RSS at end of backfill',
    value: A.run.rss.endMiB,
    unit: 'MiB',
    status: 'info',
  });
  fig({
    id: 'ingest.eventloop.p99',
    group: 'Ingest',
    label:
      'main-thread event-loop delay p99 during backfill (max over 1 s scrapes, beyond the 10 ms sampling tick)',
    value: A.run.eventLoopP99ms.max,
    unit: 'ms',
    better: 'lower',
    status: A.run.eventLoopP99ms.samples ? 'info' : 'failed',
    note: `median of scrapes ${A.run.eventLoopP99ms.median} ms, ${A.run.eventLoopP99ms.samples} scrapes`,
  });
  return A;
}
