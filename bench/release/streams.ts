/**
 * Release bench, section 4 (streams): /stream/blocks fan-out delivery (baseline: one consumer, same
 * run) and a paused /stream/logs consumer (bench/streams.ts), on indexer A2 (stopped after).
 */
import { EMIT_SELECTOR } from '../chain.js';
import { type IndexerChild, log, round, rpc } from '../lib.js';
import { BUDGETS } from '../report.js';
import { fanout, pausedConsumer } from '../streams.js';
import type { Chain } from './chain.js';
import type { Release } from './context.js';

export async function streamsSection(
  r: Release,
  { node, info }: Chain,
  ixA2: IndexerChild,
  streamKeys: string[],
) {
  const { P, quick, hardFailures, fig } = r;
  log(`streams: 1 consumer, then ${P.subscribers} consumers of /stream/blocks`);
  const fan1 = await fanout({
    ix: ixA2,
    rpcUrl: node.rpcUrl,
    keys: streamKeys.slice(-1),
    subscribers: 1,
    blocks: P.streamBlocks,
    processes: 1,
  });
  const fanN = await fanout({
    ix: ixA2,
    rpcUrl: node.rpcUrl,
    keys: streamKeys,
    subscribers: P.subscribers,
    blocks: P.streamBlocks,
    processes: 4,
  });
  if (fanN.connected < P.subscribers)
    hardFailures.push(`streams: only ${fanN.connected} of ${P.subscribers} consumers connected`);
  fig({
    id: 'streams.delivery.p50',
    group: 'Streams',
    label: `block frame delivery p50, ${fanN.connected} consumers over ${Math.ceil(P.subscribers / 8)} keys, ${fanN.blocks} blocks (from the block becoming queryable)`,
    value: round(fanN.p50, 2),
    unit: 'ms',
    better: 'lower',
    baseline: { label: '1 consumer', value: round(fan1.p50, 2), unit: 'ms' },
    status: 'info',
  });
  fig({
    id: 'streams.frameDelivery.p99',
    group: 'Streams',
    label: `block frame delivery p99, ${fanN.connected} consumers (${fanN.deliveries} deliveries, ${fanN.missing} missing)`,
    value: round(fanN.p99, 2),
    unit: 'ms',
    better: 'lower',
    baseline: { label: '1 consumer p99', value: round(fan1.p99, 2), unit: 'ms' },
    budget: BUDGETS.frameDelivery,
    note: `p99.9 ${round(fanN.p999, 2)} ms`,
  });
  if (fanN.missing > 0) hardFailures.push(`streams: ${fanN.missing} block frames never arrived`);
  log('streams: paused consumer');
  const accounts = await rpc<string[]>(node.rpcUrl, 'eth_accounts');
  const paused = await pausedConsumer({
    ix: ixA2,
    rpcUrl: node.rpcUrl,
    key: streamKeys[streamKeys.length - 2],
    liveKey: streamKeys[streamKeys.length - 1],
    emitter: info.emitter,
    from: accounts[0],
    emitSelector: EMIT_SELECTOR,
    blocks: quick ? 30 : 60,
    logsPerBlock: 1000,
  });
  fig({
    id: 'streams.paused.rssGrowth',
    group: 'Streams',
    label: `server RSS growth with a paused /stream/logs consumer, ${paused.blocks} blocks × ${paused.logsPerBlock} logs (peak ${round(paused.rssPeakMiB, 1)} MiB)`,
    value: round(paused.pausedGrowthMiB, 1),
    unit: 'MiB',
    better: 'lower',
    baseline: {
      label: 'same traffic, no paused consumer',
      value: round(paused.baselineGrowthMiB, 1),
      unit: 'MiB',
    },
    status: 'info',
    note: `${paused.lagDisconnects} lag disconnect(s) by the server; a reading consumer of the same stream got ${paused.readingConsumerFrames} log frames meanwhile`,
  });
  if (paused.lagDisconnects < 1)
    hardFailures.push('streams: the paused consumer was never cut off (no lag disconnect)');
  fig({
    id: 'streams.paused.otherP99',
    group: 'Streams',
    label: `another consumer's block frame delivery p99 meanwhile (${paused.liveDeliveries} deliveries)`,
    value: round(paused.liveP99, 2),
    unit: 'ms',
    better: 'lower',
    budget: BUDGETS.frameDelivery,
  });
  await ixA2.stop();
  return { one: fan1, many: fanN };
}
