/**
 * Release bench, section 2: the raw fetch ceiling against anvil (bench/rawfetch.ts), which also
 * records the replay file, then against the replay server (bench/replay-server.ts, its own process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { log, onCleanup } from '../lib.js';
import { blockHashes, rawFetch } from '../rawfetch.js';
import { startReplayServer } from '../replay-server.js';
import type { Chain } from './chain.js';
import type { Release } from './context.js';

export async function rawFetchSection(r: Release, { node, info, chainId, head }: Chain) {
  const { blocksPerTask, decodeThreads, fig } = r;
  const work = mkdtempSync(join(os.tmpdir(), 'indexer-bench-'));
  onCleanup(() => rmSync(work, { recursive: true, force: true }));
  const recording = join(work, 'replay.tsv');
  log('raw fetch: block hashes (untimed)');
  const hashes = await blockHashes(node.rpcUrl, 0, head);
  const concurrency = decodeThreads * 2;
  /** Fetches blocks 0..head from `url` (recording them to `recordTo`, when given). */
  const fetchAll = (url: string, recordTo?: string) =>
    rawFetch({
      url,
      from: 0,
      to: head,
      blocksPerTask,
      concurrency,
      hashes,
      logsTotal: info.logCount,
      txsTotal: info.txCount,
      recordTo,
    });
  const rawAnvil = await fetchAll(node.rpcUrl, recording);
  log(
    `raw fetch anvil: ${rawAnvil.blocksPerSecond.toFixed(0)} blocks/s, ${rawAnvil.eventsPerSecond.toFixed(0)} events/s, ${(rawAnvil.bytes / 1e6).toFixed(0)} MB in ${rawAnvil.seconds.toFixed(1)} s`,
  );
  const replay = await startReplayServer(recording, chainId, node.rpcUrl);
  onCleanup(() => replay.stop());
  const rawReplay = await fetchAll(replay.url);
  log(
    `raw fetch replay: ${rawReplay.blocksPerSecond.toFixed(0)} blocks/s, ${rawReplay.eventsPerSecond.toFixed(0)} events/s in ${rawReplay.seconds.toFixed(1)} s`,
  );
  fig({
    id: 'raw.anvil.blocks',
    group: 'Ingest',
    label: `raw fetch ceiling, anvil (concurrency ${concurrency} × ${blocksPerTask} blocks)`,
    value: rawAnvil.blocksPerSecond,
    unit: 'blocks/s',
    better: 'higher',
    status: 'info',
  });
  fig({
    id: 'raw.replay.events',
    group: 'Ingest',
    label: 'raw fetch ceiling, replay server',
    value: rawReplay.eventsPerSecond,
    unit: 'events/s',
    better: 'higher',
    status: 'info',
  });
  return { rawAnvil, rawReplay, replay, concurrency };
}
export type RawFetch = Awaited<ReturnType<typeof rawFetchSection>>;
