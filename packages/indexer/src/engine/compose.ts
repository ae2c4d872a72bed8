/**
 * The write side of one chain, put together inside its engine thread (worker.ts): the store
 * attached to the serving thread's database, the projections and their registry, the follower
 * (ingest/), the traces lane (its replay pool only with TRACES on), the node-consistency check,
 * the reconciler and, for ROLE=writer, the change-log publisher on its own NATS connection.
 * Frames are handed to `onCommit` once their batch is committed, never published here.
 */
import type { Logger } from 'pino';
import { createDecodedViewsProjection } from '../chain/build.js';
import { defaultVerifiedAbisDir } from '../decode/abis-dir.js';
import { wsUrlOf } from '../ingest/heads.js';
import { createIngest, type Ingest, stageIntervals } from '../ingest/index.js';
import { createNodeCheck, createNodeSet, type NodeFault } from '../ingest/node-check.js';
import { createTracesLane, type TracesLane } from '../ingest/traces.js';
import { createMarketsProjection } from '../markets/build.js';
import { quoteAssetsOf } from '../markets/config.js';
import type { ChainMetrics } from '../metrics/chain.js';
import { createRegistry, type Registry } from '../projections/index.js';
import { createRpc } from '../rpc/client.js';
import type { BlockRef } from '../storage/index.js';
import { createHistoryPruner, createStore, type HistoryPruner, type Store } from '../storage/index.js';
import type { Hub } from '../streams/hub.js';
import { createStreamLog, type Frame } from '../streams/log.js';
import { createTokensProjection, startReconciler } from '../tokens/build.js';
import { createWalletsProjection } from '../wallets/build.js';
import { createReplayPool } from '../workers/replay/index.js';
import type { EngineInit } from './protocol.js';

/** One committed write as the serving thread hears of it. */
export interface EngineCommit {
  head: BlockRef | null;
  frames: Frame[];
}

/** The composed write side of a chain. */
export interface ChainEngine {
  store: Store;
  registry: Registry;
  ingest: Ingest;
  traces: TracesLane;
  publisher(): import('../replication/publisher.js').PublisherStatus | null;
  start(): void;
  /** Stops every lane, drains the committed writes, closes the replay pool and the NATS connection. */
  stop(): Promise<void>;
}

/**
 * The engine's hub: frames are not published here; each commit's go to the serving thread with
 * it (`onCommit`, once per committed block, segment or rollback, after RocksDB holds it).
 */
function relayHub(store: Store, onCommit: (c: { head: BlockRef | null; frames: Frame[] }) => void): Hub {
  return {
    add: () => () => false,
    size: () => 0,
    topics: () => new Set(),
    publish: (frames) => onCommit({ head: store.committedHead(), frames }),
  };
}

/**
 * Composes the write side of `init.chain` on the attached database.
 * @throws when the database cannot be attached.
 */
export async function composeEngine(
  init: EngineInit,
  o: {
    log: Logger;
    metrics: ChainMetrics;
    onCommit: (c: EngineCommit) => void;
    onDecodeHeap?: (h: import('../schema/delta.js').WorkerHeap) => void;
    /** Receives the replay thread's heap with each traced block (TRACES on). */
    onReplayHeap?: (h: import('../schema/delta.js').WorkerHeap) => void;
  },
): Promise<ChainEngine> {
  const cfg = init.chain;
  const log = o.log;
  const m = o.metrics;
  const name = cfg.name;
  // Aborted by stop(): every node call of the engine is abandoned at once (shutdown deadline).
  const abandon = new AbortController();
  const nodes = nodesOf(init, m, abandon.signal);
  const store = await createStore({
    dataDir: { handle: init.handle },
    unfinalisedWindow: cfg.unfinalisedWindow,
    changeLog: init.changeLog,
    writer: init.ingest.writer,
    cacheBytes: init.ingest.stateCacheBytes,
  });
  const registry = createProjectionRegistry(init, store, log, m);
  const nodeCheck = createNodeCheck({
    chain: name,
    store,
    nodes,
    log,
    intervalMs: cfg.nodeCheckIntervalMs,
    onFault: (f) => m.nodeFaults.inc({ chain: name, kind: f.kind }),
  });
  // The replay pool (a worker thread and its heap) exists only when the lane replays.
  const replayPool = cfg.traces
    ? createReplayPool({ threads: 1, heapMb: init.decodeHeapMb, onHeap: o.onReplayHeap })
    : null;
  const traces = createTracesLane({
    store,
    pool: replayPool,
    rpcUrl: () => nodes.url(),
    log,
    enabled: cfg.traces,
    verifiedAbisDir: defaultVerifiedAbisDir(),
    // The lane starts after ingest is created (start() below), so `ingest` is initialised here.
    mainLanesBackfilling: () => ingest.status().state === 'backfilling',
  });
  const streamLog = createStreamLog(store);
  const relay = relayHub(store, o.onCommit);
  const ingest = createIngest({
    registry,
    streams: { log: streamLog, hub: relay },
    rollbackHooks: [(dropped) => traces.onRollback(dropped)],
    chain: name,
    rpcUrl: init.rpcUrl,
    rpc: nodes,
    store,
    log,
    startBlock: cfg.startBlock,
    pollMs: cfg.pollMs,
    wsUrl: cfg.wsUrl === 'off' ? null : (cfg.wsUrl ?? wsUrlOf(init.rpcUrl)),
    blocksPerTask: init.blocksPerTask,
    decodeThreads: init.decodeThreads,
    decodeHeapMb: init.decodeHeapMb,
    unfinalisedWindow: cfg.unfinalisedWindow,
    segmentBytes: init.ingest.segmentBytes,
    segmentBlocks: init.ingest.segmentBlocks,
    historyFrameBlocks: init.ingest.historyFrameBlocks,
    finality: init.ingest.finality,
    verifyRoots: init.ingest.verifyRoots,
    nodeCheck,
    onDecodeHeap: o.onDecodeHeap,
    onReorg: (depth) => m.reorgs.observe({ chain: name }, depth),
    onCommit: (e) => recordCommit(m, name, e),
    onStageTimes: (driver, times) => {
      for (const [stage, ms] of Object.entries(times))
        m.stageSeconds.observe({ chain: name, driver, stage }, ms / 1000);
    },
  });

  const pruner = historyPrunerOf(cfg.historyRetention, { store, log, ingest, registry });
  let stopReconciler: (() => void) | null = null;
  let replication: import('../replication/index.js').WriterReplication | null = null;
  let nats: import('../replication/index.js').Nats | null = null;
  return {
    store,
    registry,
    ingest,
    traces,
    publisher: () => replication?.publisher.status() ?? null,
    start() {
      if (init.writer) {
        const w = init.writer;
        void import('../replication/index.js')
          .then(async (r) => {
            nats = await r.connectNats(w.natsUrl, log);
            replication = await r.startWriterReplication({
              store,
              chain: name,
              nats,
              log,
              snapshotSeconds: w.snapshotSeconds,
            });
          })
          .catch((err) => log.error({ err: (err as Error).message }, 'replication: writer could not start'));
      }
      ingest.start();
      pruner?.start();
      nodeCheck.start();
      traces.start();
      stopReconciler = startReconciler({
        store,
        // The node ingest reads: balances are compared with the chain the index follows.
        rpc: nodes,
        log,
        intervalMs: init.reconcileIntervalMs,
        ready: () => registry.lagging(store.head()?.number ?? null).length === 0,
        // A token turning to diverging may be the node contradicting itself: check it now.
        nodeFault: async (turned) => {
          if (turned) await nodeCheck.checkNow().catch(() => undefined);
          const f: NodeFault | null = nodeCheck.fault();
          return f ? `${f.kind} at block ${f.block}: ${f.detail}` : null;
        },
      });
    },
    async stop() {
      // Node calls in flight are abandoned, not awaited: a node that hangs or is gone cannot hold
      // the shutdown. The replay pool goes first (a trace waiting on the node is rejected), then
      // the lanes end; ingest drains the writes already committed to the writer thread.
      abandon.abort(new Error('shutting down'));
      stopReconciler?.();
      const replayDown = replayPool?.destroy();
      await replication?.stop();
      await nats?.close().catch(() => undefined);
      nodeCheck.stop();
      await pruner?.stop();
      await traces.stop();
      await ingest.stop();
      await replayDown;
      await store.close();
    },
  };
}

/**
 * The history pruner of the chain's store (storage/history-prune.ts) when HISTORY_RETENTION is a
 * number of blocks; null for `all` (nothing is pruned). It runs on this thread, the one that writes.
 */
function historyPrunerOf(
  retention: number | null,
  o: { store: Store; log: Logger; ingest: Ingest; registry: Registry },
): HistoryPruner | null {
  if (retention === null) return null;
  const { store, log, ingest, registry } = o;
  return createHistoryPruner({
    store,
    retention,
    // Pruning waits for the follower (a backfill has the thread) and for every projection to be
    // at the head (a rebuild re-reads what it wrote).
    ready: () =>
      ingest.status().state === 'following' && registry.lagging(store.head()?.number ?? null).length === 0,
    onPass: (p) => log.info({ component: 'history', ...p }, 'history pruned to the cutoff'),
    onError: (err) => log.error({ component: 'history', err: err.message }, 'history pruner stopped'),
  });
}

/**
 * The chain's nodes (chains file `rpcUrls`, the first being rpcUrl), each call timed and its
 * retries counted: ingest reads the current one and moves to the next when its node contradicts
 * itself (ingest/node-check.ts). Calls to the primary are abandoned when `signal` aborts.
 */
function nodesOf(init: EngineInit, m: ChainMetrics, signal: AbortSignal) {
  const name = init.chain.name;
  const rpcOf = (url: string, sig?: AbortSignal) =>
    createRpc({
      url,
      signal: sig,
      onRetry: (method) => m.rpcRetries.inc({ chain: name, method }),
      onTiming: (method, s, ok) =>
        m.rpcDuration.observe({ chain: name, method, outcome: ok ? 'ok' : 'error' }, s),
    });
  const rpc = rpcOf(init.rpcUrl, signal);
  const urls = init.chain.rpcUrls.length ? init.chain.rpcUrls : [init.rpcUrl];
  return createNodeSet(urls, (url) => (url === init.rpcUrl ? rpc : rpcOf(url)));
}

/** The chain's projections (decoded views, tokens, markets, wallets) in their registry. */
function createProjectionRegistry(init: EngineInit, store: Store, log: Logger, m: ChainMetrics): Registry {
  const name = init.chain.name;
  return createRegistry(
    store,
    [
      createDecodedViewsProjection(),
      createTokensProjection({ launchpads: init.launchpads }),
      createMarketsProjection({
        config: init.markets,
        launchpads: init.launchpads,
        log: (msg, fields) => log.warn({ component: 'markets', ...fields }, msg),
        onFirstSight: (protocol, outcome) => m.marketsFirstSight.inc({ chain: name, protocol, outcome }),
      }),
      createWalletsProjection({ quoteAssets: quoteAssetsOf(init.markets) }),
    ],
    (msg) => log.warn(msg),
  );
}

/** The chain metrics of one commit (blocks, events, segments, stage times, the live timeline). */
function recordCommit(m: ChainMetrics, chain: string, e: import('../ingest/index.js').CommitEvent): void {
  if (e.kind === 'segment') {
    const blocks = e.to - e.from + 1;
    m.blocksCommitted.inc({ chain }, blocks);
    m.eventsCommitted.inc({ chain }, e.logs);
    m.segmentsCommitted.inc({ chain });
    m.modeBlocks.inc({ chain, mode: 'history' }, blocks);
    m.modeTransactions.inc({ chain, mode: 'history' }, e.txs);
    for (const [stage, ms] of Object.entries(e.stages)) m.commitStageSeconds.inc({ chain, stage }, ms / 1000);
  }
  if (e.kind === 'block') {
    m.modeBlocks.inc({ chain, mode: 'live' });
    m.modeTransactions.inc({ chain, mode: 'live' }, e.block.txs.length);
    m.blocksCommitted.inc({ chain });
    m.eventsCommitted.inc({ chain }, e.block.logs.length);
    let busyMs = 0;
    for (const [stage, ms] of Object.entries(e.stages)) {
      m.commitStageSeconds.inc({ chain, stage }, ms / 1000);
      busyMs += ms;
    }
    const txs = e.block.txs.length;
    const size = txs < 50 ? '0-49' : txs < 150 ? '50-149' : '150+';
    m.blockCommitSeconds.observe({ chain, size }, busyMs / 1000);
    if (e.timeline)
      for (const [stage, ms] of Object.entries(stageIntervals(e.timeline)))
        m.liveStageSeconds.observe({ chain, stage }, ms / 1000);
  }
}
