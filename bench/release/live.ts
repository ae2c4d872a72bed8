/**
 * Release bench, section 4 (live): head-to-queryable while following live, on indexer A with the
 * default POLL_MS, then on the same data restarted with POLL_MS=50 and the stream keys (indexer A2,
 * kept running for the streams section).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import {
  type IndexerChild,
  log,
  onCleanup,
  rpc,
  sleep,
  startIndexerChild,
  summarize,
  waitAnchor,
} from '../lib.js';
import { BUDGETS } from '../report.js';
import { writeStreamKeys } from '../streams.js';
import type { Chain } from './chain.js';
import { CHAIN, type Release } from './context.js';

/** Mines `samples` blocks (after 5 warm-up ones) and times each from evm_mine to /checkpoints. */
async function h2q(rpcUrl: string, ix: IndexerChild, samples: number, jitterMs: number) {
  const lat: number[] = [];
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  let target = await ix.anchor();
  // Warm-up blocks, not counted: a freshly (re)started follower's first blocks include its
  // start-up transient: measured after a restart, the first block took 311–355 ms and the
  // next ones 5–60 ms (not the decode workers' set-up, which is now done before the first block).
  for (let i = 0; i < 5; i++) {
    await rpc(rpcUrl, 'evm_mine');
    await waitAnchor(ix, ++target, 10_000, 1);
  }
  for (let i = 0; i < samples; i++) {
    await sleep(rand() * jitterMs); // de-phase from the indexer's poll period
    await rpc(rpcUrl, 'evm_mine');
    const tMined = performance.now();
    target++;
    const tSeen = await waitAnchor(ix, target, 10_000, 1);
    lat.push(tSeen - tMined);
  }
  return summarize(lat);
}

/**
 * Head-to-queryable with the default POLL_MS on indexer A (stopped after), then indexer A2 on the
 * same data with POLL_MS=50: its series is measured here, reported by {@link h2q50Figures}.
 */
export async function liveSection(r: Release, { node }: Chain, ixA: IndexerChild, dataDir: string) {
  const { P, ixEnv, fig } = r;
  const defaultPoll = 500;
  log('head-to-queryable: default POLL_MS');
  const hq = await h2q(node.rpcUrl, ixA, P.h2qSamples, defaultPoll);
  fig({
    id: 'h2q.p50',
    group: 'Live',
    label: `head-to-queryable p50 (default POLL_MS=${defaultPoll}, ${hq.n} blocks)`,
    value: hq.p50,
    unit: 'ms',
    better: 'lower',
    status: 'info',
  });
  fig({
    id: 'h2q.p99',
    group: 'Live',
    label: `head-to-queryable p99 (default POLL_MS=${defaultPoll}, ${hq.n} blocks)`,
    value: hq.p99,
    unit: 'ms',
    better: 'lower',
    budget: BUDGETS.headToQueryable,
  });
  await ixA.stop();
  const streamKeysFile = join(mkdtempSync(join(os.tmpdir(), 'bench-keys-')), 'keys.json');
  const streamKeys = writeStreamKeys(streamKeysFile, Math.ceil(P.subscribers / 8) + 2);
  const ixA2 = await startIndexerChild({
    rpcUrl: node.rpcUrl,
    chain: CHAIN,
    dataDir: dataDir,
    env: { ...ixEnv, POLL_MS: '50', KEYS_FILE: streamKeysFile },
  });
  onCleanup(() => ixA2.stop());
  await waitAnchor(
    ixA2,
    await rpc<string>(node.rpcUrl, 'eth_blockNumber').then((h) => Number.parseInt(h, 16)),
    60_000,
  );
  const hq50 = await h2q(node.rpcUrl, ixA2, P.h2qSamples, 100);
  return { ixA2, hq50, streamKeys, streamKeysFile };
}

/** The POLL_MS=50 head-to-queryable figures (listed after the streams and the stand-in). */
export function h2q50Figures({ fig }: Release, hq50: ReturnType<typeof summarize>) {
  fig({
    id: 'h2q50.p50',
    group: 'Live',
    label: `head-to-queryable p50 (POLL_MS=50, ${hq50.n} blocks)`,
    value: hq50.p50,
    unit: 'ms',
    better: 'lower',
    status: 'info',
  });
  fig({
    id: 'h2q50.p99',
    group: 'Live',
    label: `head-to-queryable p99 (POLL_MS=50, ${hq50.n} blocks)`,
    value: hq50.p99,
    unit: 'ms',
    better: 'lower',
    budget: BUDGETS.headToQueryable,
    note: 'not the default configuration',
  });
}
