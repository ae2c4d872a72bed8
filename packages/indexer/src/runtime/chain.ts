/**
 * One served chain, end to end: its node (or embedded devnet), RPC client, RocksDB directory,
 * identity check, projections, traces lane, stream log, follower and reconciler, and the
 * {@link ChainContext} its routes read. Chains share nothing but the process: a halt, reset or
 * rebuild of one never touches another (ARCHITECTURE "Several chains in one process").
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createAddressesReader } from '../addresses/index.js';
import { createChainReader, createDecodedViewsProjection } from '../chain/index.js';
import { createCohortsReader } from '../cohorts/index.js';
import type { ChainConfig } from '../config/index.js';
import { createCursorCodec } from '../cursor/index.js';
import { defaultVerifiedAbisDir } from '../decode/abis-dir.js';
import { wsUrlOf } from '../ingest/heads.js';
import { createIngest, type Ingest, stageIntervals } from '../ingest/index.js';
import { createNodeCheck, createNodeSet, type NodeFault } from '../ingest/node-check.js';
import { createTracesLane, type TracesLane } from '../ingest/traces.js';
import { type MarketsConfig, marketsConfigFor, quoteAssetsOf } from '../markets/config.js';
import { createMarketsReader } from '../markets/index.js';
import { createMarketsProjection } from '../markets/projection.js';
import type { ChainMetrics } from '../metrics/index.js';
import { createRegistry } from '../projections/index.js';
import { createRpc, type Rpc } from '../rpc/client.js';
import { createScreenerReader } from '../screener/index.js';
import type { ChainContext } from '../server/route.js';
import { checkChainIdentity } from '../storage/identity.js';
import { checkInvariants, createStore, type RocksTuning, type Store } from '../storage/index.js';
import { createHub } from '../streams/hub.js';
import { createStreamLog } from '../streams/log.js';
import { createStreams, type StreamSlots } from '../streams/service.js';
import { createTokensProjection, createTokensReader, startReconciler } from '../tokens/index.js';
import { type LaunchpadDeployments, loadLaunchpadsFile } from '../tokens/launchpads.js';
import { createWalletsProjection, createWalletsReader } from '../wallets/index.js';
import { createReplayPool, type ReplayPool } from '../workers/replay/index.js';
import { resolveCursorSecret } from './cursor-secret.js';

/** What every chain of the process shares. */
export interface SharedDeps {
  /** ROLE=writer: the NATS connection the change log and snapshots go to (null otherwise). */
  writerNats?: import('../replication/index.js').Nats | null;
  /** Seconds between the writer's snapshots. */
  snapshotSeconds?: number;
  log: Logger;
  metrics: ChainMetrics;
  /** Process-wide cursor secret (hex); null = one generated per chain and kept in its store. */
  cursorSecret: string | null;
  blocksPerTask: number;
  decodeThreads: number;
  reconcileIntervalMs: number;
  /** RocksDB tuning of the chain's store (config ROCKSDB_*). */
  storageTuning?: RocksTuning;
  /** History segments, state cache, writer thread (config SEGMENT_*, STATE_CACHE_MB, STORAGE_WRITER). */
  ingestTuning?: import('../config/index.js').IngestTuning;
  overrides: ReadonlySet<string>;
  overridesVersion: string;
  labels: ReadonlyMap<string, string[]>;
  /** The process's open-stream slots: a key's ceiling counts its streams on every chain. */
  streamSlots?: StreamSlots;
}

/** A running chain. */
export interface ChainRuntime {
  readonly name: string;
  readonly ctx: ChainContext;
  readonly store: Store;
  readonly ingest: Ingest;
  readonly traces: TracesLane;
  readonly rpc: Rpc;
  /** The embedded devnet's handle, when this chain is one. */
  readonly devnet: import('@chain-indexer/devnet').DevnetHandle | null;
  /** Starts following (ingest, traces lane, reconciler). */
  start(): void;
  /** Stops following and releases the chain's resources; the embedded devnet's node too unless `keepNode`. */
  stop(opts: { keepNode: boolean }): Promise<void>;
  /** Closes the chain's store. @returns the error when RocksDB refused to close cleanly. */
  close(): Promise<Error | null>;
}

/** The domain readers of a chain (one per domain, created once; they read through a request's view). */
function readersFor(o: {
  launchpads: LaunchpadDeployments;
  markets: MarketsConfig;
  traces: () => import('../schema/rows/traces.js').TracesLaneStatus;
  /** Live reads' node client; null on a replica without a node (live reads answer 503). */
  node: Rpc | null;
  overrides: ReadonlySet<string>;
  overridesVersion: string;
  labels: ReadonlyMap<string, string[]>;
}): ChainContext['readers'] {
  const chain = createChainReader({ traces: o.traces, node: o.node });
  const cohorts = createCohortsReader({ overrides: o.overrides, overridesVersion: o.overridesVersion });
  const tokens = createTokensReader({ launchpads: o.launchpads });
  return {
    chain,
    tokens,
    markets: createMarketsReader({ usdStablecoins: o.markets.usdStablecoins, tokens }),
    screener: createScreenerReader({ tokens }),
    wallets: createWalletsReader({
      quoteAssets: quoteAssetsOf(o.markets),
      usdStablecoins: o.markets.usdStablecoins,
      traces: o.traces,
      cohorts,
    }),
    cohorts,
    addresses: createAddressesReader({
      labels: o.labels,
      launchpads: o.launchpads,
      markets: o.markets,
      live: chain.live,
    }),
  };
}

/**
 * The projections of a chain, in dependency order. A writer passes the markets projection its
 * first-sight hooks; a replica (which applies the writer's entries and never prepares) passes none.
 */
function projectionsFor(
  markets: MarketsConfig,
  launchpads: LaunchpadDeployments,
  firstSight: Pick<Parameters<typeof createMarketsProjection>[0], 'log' | 'onFirstSight'> = {},
) {
  return [
    createDecodedViewsProjection(),
    createTokensProjection({ launchpads }),
    createMarketsProjection({ config: markets, launchpads, ...firstSight }),
    createWalletsProjection({ quoteAssets: quoteAssetsOf(markets) }),
  ];
}

/**
 * The context routes see of a chain: what both a writer and a replica serve (store, ingest,
 * cursors, registry, readers over the given live-read node) plus the role's own fields (`extra`).
 */
function chainContextOf(
  o: Pick<
    ChainContext,
    | 'name'
    | 'chainId'
    | 'store'
    | 'ingest'
    | 'rpc'
    | 'registry'
    | 'launchpads'
    | 'traces'
    | 'streams'
    | 'markets'
  > & { secretHex: string; node: Rpc | null; deps: SharedDeps },
  extra: Pick<ChainContext, 'devnet' | 'replica'>,
): ChainContext {
  const { secretHex, node, deps, ...base } = o;
  const shared = { overrides: deps.overrides, overridesVersion: deps.overridesVersion, labels: deps.labels };
  return {
    ...base,
    cursors: createCursorCodec(Buffer.from(secretHex, 'hex')),
    readers: readersFor({
      launchpads: o.launchpads,
      markets: o.markets,
      ...shared,
      traces: () => o.traces.status(),
      node,
    }),
    ...shared,
    ...extra,
  };
}

/** Devnet markets and launchpad: the deployment's own factories, stablecoins and pad. */
function devnetMarkets(dep: import('@chain-indexer/devnet').DevnetDeployment): {
  markets: MarketsConfig;
  launchpads: LaunchpadDeployments;
} {
  const c = dep.contracts;
  const stables = dep.tokens.filter((t) => t.kind === 'stable').map((t) => t.address.toLowerCase());
  const weth = dep.tokens.filter((t) => t.kind === 'weth').map((t) => t.address.toLowerCase());
  const pad = dep.launchpad;
  return {
    markets: {
      v2Factories: [c.uniswapV2Factory.toLowerCase()],
      v3Factories: [c.uniswapV3Factory.toLowerCase()],
      v4Managers: [c.poolManager.toLowerCase()],
      usdStablecoins: stables,
      quoteAssets: [...stables, ...weth, '0x0000000000000000000000000000000000000000'],
    },
    launchpads: new Map([
      [
        'devnet-pad',
        {
          factories: [pad.address.toLowerCase()],
          curve: pad.address.toLowerCase(),
          graduationTargetWei: pad.graduationTargetWei,
        },
      ],
    ]),
  };
}

/** Timeout of one live node read (live RPC routes, code observations), milliseconds. */
const LIVE_RPC_TIMEOUT_MS = 5_000;

/**
 * Opens chain `cfg`: starts its embedded devnet when it has one, opens and checks its store,
 * builds its projections and follower. Nothing follows the node until {@link ChainRuntime.start}.
 * @throws Error when the data directory belongs to another chain (real chains) or the node has no
 *   block START_BLOCK.
 */
export async function openChain(cfg: ChainConfig, deps: SharedDeps): Promise<ChainRuntime> {
  const log = deps.log.child({ chain: cfg.name });
  let rpcUrl = cfg.rpcUrl;
  let devnet: ChainRuntime['devnet'] = null;
  let markets: MarketsConfig | null = null;
  let launchpads: LaunchpadDeployments = cfg.launchpadsFile
    ? loadLaunchpadsFile(cfg.launchpadsFile, cfg.name)
    : new Map();
  if (cfg.devnet) {
    const { startDevnet } = await import('@chain-indexer/devnet');
    devnet = await startDevnet({
      port: cfg.devnet.port,
      blockTimeMs: cfg.devnet.blockTimeMs,
      seed: cfg.devnet.seed,
      txPerSecond: cfg.devnet.txPerSecond,
      stateDir: join(cfg.dataDir, 'devnet'),
      log: (msg) => log.info({ component: 'devnet' }, msg),
    });
    rpcUrl = devnet.rpcUrl;
    ({ markets, launchpads } = devnetMarkets(devnet.deployment));
    log.info({ rpcUrl, reused: devnet.reused }, 'embedded devnet ready');
  }
  if (!rpcUrl) throw new Error(`chain ${cfg.name}: no RPC URL and no devnet`);

  const m = deps.metrics;
  // Aborted by stop(): every node call of the main thread is abandoned at once (shutdown deadline).
  const abandon = new AbortController();
  const rpc = createRpc({
    url: rpcUrl,
    signal: abandon.signal,
    onRetry: (method) => m.rpcRetries.inc({ chain: cfg.name, method }),
    onTiming: (method, s, ok) =>
      m.rpcDuration.observe({ chain: cfg.name, method, outcome: ok ? 'ok' : 'error' }, s),
  });
  // The chain's nodes (chains file `rpcUrls`, the first being rpcUrl): ingest reads the current one
  // and moves to the next when its node contradicts itself (ingest/node-check.ts).
  const nodes = createNodeSet(cfg.rpcUrls.length ? cfg.rpcUrls : [rpcUrl], (url) =>
    url === rpcUrl
      ? rpc
      : createRpc({
          url,
          onRetry: (method) => m.rpcRetries.inc({ chain: cfg.name, method }),
          onTiming: (method, s, ok) =>
            m.rpcDuration.observe({ chain: cfg.name, method, outcome: ok ? 'ok' : 'error' }, s),
        }),
  );
  const store = await createStore({
    dataDir: join(cfg.dataDir, 'rocks'),
    unfinalisedWindow: cfg.unfinalisedWindow,
    // ROLE=writer: every committed write also goes to the change log the publisher ships.
    changeLog: !!deps.writerNats,
    rocks: deps.storageTuning,
    writer: deps.ingestTuning?.writer ?? 'thread',
    cacheBytes: deps.ingestTuning?.stateCacheBytes,
  });
  const identity = await checkChainIdentity({
    store,
    rpc,
    chain: cfg.name,
    startBlock: cfg.startBlock,
    resettable: cfg.devnet !== null,
    log,
  });
  log.info({ head: store.head(), invariants: checkInvariants(store) }, 'storage invariants hold');

  // Never in the store (and so never in the change log or a snapshot): runtime/cursor-secret.ts.
  const secretHex = resolveCursorSecret({
    configured: deps.cursorSecret,
    dataDir: cfg.dataDir,
    store,
    generate: true,
  });
  markets ??= marketsConfigFor(identity.chainId, cfg.marketsFile);
  const registry = createRegistry(
    store,
    projectionsFor(markets, launchpads, {
      log: (msg, fields) => log.warn({ component: 'markets', ...fields }, msg),
      onFirstSight: (protocol, outcome) => m.marketsFirstSight.inc({ chain: cfg.name, protocol, outcome }),
    }),
    (msg) => log.warn(msg),
  );
  const nodeCheck = createNodeCheck({
    chain: cfg.name,
    store,
    nodes,
    log,
    intervalMs: cfg.nodeCheckIntervalMs,
    onFault: (f) => m.nodeFaults.inc({ chain: cfg.name, kind: f.kind }),
  });
  const replayPool: ReplayPool = createReplayPool({ threads: 1 });
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
  const streams = createStreams(
    createStreamLog(store),
    createHub((err) =>
      log.error({ err: (err as Error).message }, 'streams: a subscriber threw and was removed'),
    ),
    deps.streamSlots,
  );
  const ingest = createIngest({
    registry,
    streams,
    rollbackHooks: [(dropped) => traces.onRollback(dropped)],
    chain: cfg.name,
    rpcUrl,
    rpc: nodes,
    store,
    log,
    startBlock: cfg.startBlock,
    pollMs: cfg.pollMs,
    wsUrl: cfg.wsUrl === 'off' ? null : (cfg.wsUrl ?? wsUrlOf(rpcUrl)),
    blocksPerTask: deps.blocksPerTask,
    decodeThreads: deps.decodeThreads,
    unfinalisedWindow: cfg.unfinalisedWindow,
    segmentBytes: deps.ingestTuning?.segmentBytes ?? 64 * 1024 * 1024,
    segmentBlocks: deps.ingestTuning?.segmentBlocks ?? 1_000,
    historyFrameBlocks: deps.ingestTuning?.historyFrameBlocks ?? 256,
    finality: deps.ingestTuning?.finality ?? 'tag',
    verifyRoots: deps.ingestTuning?.verifyRoots ?? true,
    nodeCheck,
    onReorg: (depth) => m.reorgs.observe({ chain: cfg.name }, depth),
    onCommit(e) {
      if (e.kind === 'segment') {
        const blocks = e.to - e.from + 1;
        m.blocksCommitted.inc({ chain: cfg.name }, blocks);
        m.eventsCommitted.inc({ chain: cfg.name }, e.logs);
        m.segmentsCommitted.inc({ chain: cfg.name });
        m.modeBlocks.inc({ chain: cfg.name, mode: 'history' }, blocks);
        m.modeTransactions.inc({ chain: cfg.name, mode: 'history' }, e.txs);
        for (const [stage, ms] of Object.entries(e.stages))
          m.commitStageSeconds.inc({ chain: cfg.name, stage }, ms / 1000);
      }
      if (e.kind === 'block') {
        m.modeBlocks.inc({ chain: cfg.name, mode: 'live' });
        m.modeTransactions.inc({ chain: cfg.name, mode: 'live' }, e.block.txs.length);
        m.blocksCommitted.inc({ chain: cfg.name });
        m.eventsCommitted.inc({ chain: cfg.name }, e.block.logs.length);
        let busyMs = 0;
        for (const [stage, ms] of Object.entries(e.stages)) {
          m.commitStageSeconds.inc({ chain: cfg.name, stage }, ms / 1000);
          busyMs += ms;
        }
        const txs = e.block.txs.length;
        const size = txs < 50 ? '0-49' : txs < 150 ? '50-149' : '150+';
        m.blockCommitSeconds.observe({ chain: cfg.name, size }, busyMs / 1000);
        if (e.timeline)
          for (const [stage, ms] of Object.entries(stageIntervals(e.timeline)))
            m.liveStageSeconds.observe({ chain: cfg.name, stage }, ms / 1000);
      }
    },
  });
  const parts = { store, ingest, rpc, registry, launchpads, traces, streams, markets, secretHex, deps };
  const ctx = chainContextOf(
    {
      name: cfg.name,
      chainId: identity.chainId,
      ...parts,
      // Live RPC routes answer while a client waits: one attempt with a short timeout (a typed
      // 503 after it), not the follower's patient retries.
      node: createRpc({
        url: rpcUrl,
        timeoutMs: LIVE_RPC_TIMEOUT_MS,
        maxAttempts: 1,
        signal: abandon.signal,
        onTiming: (method, s, ok) =>
          m.rpcDuration.observe({ chain: cfg.name, method, outcome: ok ? 'ok' : 'error' }, s),
      }),
    },
    devnet ? { devnet: { status: devnet.status } } : {},
  );

  let stopReconciler: (() => void) | null = null;
  let replication: import('../replication/index.js').WriterReplication | null = null;
  if (deps.writerNats) ctx.writer = { status: () => replication?.publisher.status() ?? null };
  return {
    name: cfg.name,
    ctx,
    store,
    ingest,
    traces,
    rpc,
    devnet,
    start() {
      if (deps.writerNats)
        void import('../replication/index.js')
          .then((r) =>
            r.startWriterReplication({
              store,
              chain: cfg.name,
              nats: deps.writerNats!,
              log,
              snapshotSeconds: deps.snapshotSeconds ?? 600,
            }),
          )
          .then((w) => {
            replication = w;
          })
          .catch((err) => log.error({ err: (err as Error).message }, 'replication: writer could not start'));
      ingest.start();
      nodeCheck.start();
      traces.start();
      stopReconciler = startReconciler({
        store,
        // The node ingest reads: balances are compared with the chain the index follows.
        rpc: nodes,
        log,
        intervalMs: deps.reconcileIntervalMs,
        ready: () => registry.lagging(store.head()?.number ?? null).length === 0,
        // A token turning to diverging may be the node contradicting itself: check it now.
        nodeFault: async (turned) => {
          if (turned) await nodeCheck.checkNow().catch(() => undefined);
          const f: NodeFault | null = nodeCheck.fault();
          return f ? `${f.kind} at block ${f.block}: ${f.detail}` : null;
        },
      });
    },
    async stop({ keepNode }) {
      // Node calls in flight are abandoned, not awaited: a node that hangs or is gone cannot hold
      // the shutdown. The replay pool goes first (a trace waiting on the node is rejected), then
      // the lanes end; ingest drains the writes already committed to the writer thread.
      abandon.abort(new Error('shutting down'));
      stopReconciler?.();
      const replayDown = replayPool.destroy();
      const devnetDown = devnet?.stop();
      await replication?.stop();
      nodeCheck.stop();
      await traces.stop();
      await ingest.stop();
      await replayDown;
      await devnetDown;
      if (devnet && !keepNode) await devnet.killNode();
    },
    close: () =>
      store.close().then(
        () => null,
        (err: Error) => err,
      ),
  };
}

/**
 * Opens chain `cfg` as a read replica (ROLE=replica): its own RocksDB directory, fed by the
 * writer's change log on NATS (joining from the newest snapshot when empty or too far behind); no
 * node is needed for ingest. Live RPC routes use `cfg.rpcUrl` when given, else answer 503.
 * Resolves once the replica has caught up with the writer.
 */
export async function openReplicaChain(
  cfg: ChainConfig,
  deps: SharedDeps & { nats: import('../replication/index.js').Nats; maxLagSeconds: number },
): Promise<ChainRuntime> {
  const log = deps.log.child({ chain: cfg.name, role: 'replica' });
  const { createReplica, replicaIngest } = await import('../replication/index.js');
  const store = await createStore({
    dataDir: join(cfg.dataDir, 'rocks'),
    unfinalisedWindow: cfg.unfinalisedWindow,
    rocks: deps.storageTuning,
  });
  // Created once the replica caught up (the log's last sequences are then read from the store);
  // until then no consumer is connected, so no frame needs publishing.
  let streams: ReturnType<typeof createStreams> | null = null;
  let registry: ReturnType<typeof createRegistry> | null = null;
  const replica = createReplica({
    store,
    chain: cfg.name,
    js: deps.nats.js,
    jsm: deps.nats.jsm,
    snapshots: await deps.nats.snapshots(cfg.name),
    log,
    onApplied(e) {
      registry?.reload();
      // Frames the writer appended in this entry: the same sequences, published live here.
      if (streams) streams.hub.publish(streams.log.observe(e.ops));
      if (e.kind === 'block') {
        deps.metrics.blocksCommitted.inc({ chain: cfg.name });
      }
    },
  });
  await replica.start();
  streams = createStreams(
    createStreamLog(store),
    createHub((err) =>
      log.error({ err: (err as Error).message }, 'streams: a subscriber threw and was removed'),
    ),
    deps.streamSlots,
  );
  const identity = store.getMeta<{ chainId: number }>('identity');
  if (!identity) throw new Error(`replica of ${cfg.name}: the writer's store has no chain identity yet`);
  // The writer's secret comes from this process's config (CURSOR_SECRET), never from the log.
  const secretHex = resolveCursorSecret({
    configured: deps.cursorSecret,
    dataDir: cfg.dataDir,
    store,
    generate: false,
  });
  const launchpads = cfg.launchpadsFile ? loadLaunchpadsFile(cfg.launchpadsFile, cfg.name) : new Map();
  const markets = marketsConfigFor(identity.chainId, cfg.marketsFile);
  registry = createRegistry(store, projectionsFor(markets, launchpads), (msg) => log.warn(msg), {
    readOnly: true,
  });
  const rpc = createRpc({ url: cfg.rpcUrl ?? 'http://127.0.0.1:9/no-node-configured-for-this-replica' });
  const ingest = replicaIngest(replica);
  const traces: TracesLane = {
    status: () => ({
      enabled: true,
      state: 'following',
      reason: 'replicated_from_writer',
      checkpoint: store.getMeta<number>('checkpoint:traces') ?? null,
    }),
    onRollback: () => ({}),
    start() {},
    stop: async () => {},
  };
  const parts = { store, ingest, rpc, registry, launchpads, traces, streams, markets, secretHex, deps };
  const ctx = chainContextOf(
    {
      name: cfg.name,
      chainId: identity.chainId,
      ...parts,
      node: cfg.rpcUrl
        ? createRpc({ url: cfg.rpcUrl, timeoutMs: LIVE_RPC_TIMEOUT_MS, maxAttempts: 1 })
        : null,
    },
    { replica: { status: () => replica.status(), maxLagSeconds: deps.maxLagSeconds } },
  );

  return {
    name: cfg.name,
    devnet: null,
    ctx,
    store,
    ingest,
    traces,
    rpc,
    start() {},
    async stop() {
      await replica.stop();
    },
    close: () =>
      store.close().then(
        () => null,
        (err: Error) => err,
      ),
  };
}
