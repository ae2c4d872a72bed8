/**
 * One served chain, end to end: its node (or embedded devnet), RPC client, RocksDB directory,
 * identity check, projections, traces lane, stream log, follower and reconciler, and the
 * {@link ChainContext} its routes read. Chains share nothing but the process: a halt, reset or
 * rebuild of one never touches another (ARCHITECTURE "Several chains in one process").
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createAddressesReader } from '../addresses/index.js';
import { createChainReader } from '../chain/index.js';
import { createCohortsReader } from '../cohorts/index.js';
import type { ChainConfig, IngestTuning } from '../config/index.js';
import { createCursorCodec } from '../cursor/index.js';
import { type EngineHost, startEngine } from '../engine/index.js';
import type { Ingest } from '../ingest/index.js';
import type { TracesLane } from '../ingest/traces.js';
import { type MarketsConfig, marketsConfigFor, quoteAssetsOf } from '../markets/config.js';
import { createMarketsReader } from '../markets/index.js';
import type { ChainMetrics } from '../metrics/index.js';
import { createRegistry, projectionIdentity, type Registered } from '../projections/index.js';
import { createQueries } from '../queries/index.js';
import { createRpc, type Rpc } from '../rpc/client.js';
import { PROJECTION_LIST } from '../schema/projections.js';
import type { Topic } from '../schema/rows/streams.js';
import { TRACES_CHECKPOINT_META } from '../schema/rows/traces.js';
import { createScreenerReader } from '../screener/index.js';
import type { ChainContext } from '../server/route.js';
import { checkChainIdentity } from '../storage/identity.js';
import {
  checkInvariants,
  createStore,
  inView,
  type RocksTuning,
  type Store,
  StoreWriteError,
} from '../storage/index.js';
import { createHub } from '../streams/hub.js';
import { createStreamLog, type Frame, type PackedFrames } from '../streams/log.js';
import { createStreams, type StreamSlots } from '../streams/service.js';
import { createTokensReader } from '../tokens/index.js';
import { type LaunchpadDeployments, loadLaunchpadsFile } from '../tokens/launchpads.js';
import { createWalletsReader } from '../wallets/index.js';
import { resolveCursorSecret } from './cursor-secret.js';

/** What every chain of the process shares. */
export interface SharedDeps {
  /** ROLE=writer: where each chain's engine publishes its change log and snapshots (it connects itself). */
  writer?: { natsUrl: string; snapshotSeconds: number } | null;
  log: Logger;
  /** The chain instruments of a read replica (it ingests on the serving thread); engines own their own. */
  metrics?: ChainMetrics | null;
  /** Process-wide cursor secret (hex); null = one generated per chain and kept in its store. */
  cursorSecret: string | null;
  blocksPerTask: number;
  decodeThreads: number;
  reconcileIntervalMs: number;
  /** RocksDB tuning of the chain's store (config ROCKSDB_*). */
  storageTuning?: RocksTuning;
  /** History segments, state cache, writer thread (config SEGMENT_*, STATE_CACHE_MB, STORAGE_WRITER). */
  ingestTuning?: IngestTuning;
  /**
   * Hears each commit's hand-over: how long the message took from the engine to the serving thread
   * (ms) and the serving thread's own time on it (seconds: registry re-read, frames published).
   */
  onHandOver?: (chain: string, transitMs: number, servingSeconds: number) => void;
  overrides: ReadonlySet<string>;
  overridesVersion: string;
  labels: ReadonlyMap<string, string[]>;
  /** The process's open-stream slots: a key's ceiling counts its streams on every chain. */
  streamSlots?: StreamSlots;
  /**
   * Starts a chain's embedded devnet (`startDevnet` of `@chain-indexer/devnet`), needed when a chain
   * has one (`cfg.devnet`). The composition root hands it in, so the indexer loads no devnet code of
   * its own: the devnet is a type-only (dev) dependency of this package.
   */
  startDevnet?: typeof import('@chain-indexer/devnet').startDevnet;
}

/** Defaults of the ingest tuning when a caller gives none (the config's defaults). */
const DEFAULT_INGEST_TUNING: IngestTuning = {
  segmentBytes: 64 * 1024 * 1024,
  segmentBlocks: 1_000,
  historyFrameBlocks: 256,
  stateCacheBytes: 48 * 1024 * 1024,
  writer: 'thread',
  finality: 'tag',
  verifyRoots: true,
  engineHeapMb: 2048,
  decodeHeapMb: 1024,
};

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
  /** The chain's ingest engine thread (null on a read replica). */
  readonly engine?: EngineHost | null;
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
  const markets = createMarketsReader({ usdStablecoins: o.markets.usdStablecoins, tokens });
  const wallets = createWalletsReader({
    quoteAssets: quoteAssetsOf(o.markets),
    usdStablecoins: o.markets.usdStablecoins,
    traces: o.traces,
  });
  return {
    chain,
    tokens,
    markets,
    screener: createScreenerReader({ tokens }),
    wallets,
    cohorts,
    queries: createQueries({ tokens, markets, wallets, cohorts }),
    addresses: createAddressesReader({
      labels: o.labels,
      launchpads: o.launchpads,
      markets: o.markets,
      live: chain.live,
    }),
  };
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
    | 'historyRetention'
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
 * The node chain `cfg` follows: its embedded devnet (started here, with the devnet's markets and
 * launchpads) when it has one, else its RPC URL and the launchpads file.
 * @throws Error when the chain has neither an RPC URL nor a devnet.
 */
async function nodeOf(cfg: ChainConfig, deps: SharedDeps, log: Logger) {
  let rpcUrl = cfg.rpcUrl;
  let devnet: ChainRuntime['devnet'] = null;
  let markets: MarketsConfig | null = null;
  let launchpads: LaunchpadDeployments = cfg.launchpadsFile
    ? loadLaunchpadsFile(cfg.launchpadsFile, cfg.name)
    : new Map();
  if (cfg.devnet) {
    if (!deps.startDevnet)
      throw new Error(`chain ${cfg.name}: an embedded devnet needs SharedDeps.startDevnet`);
    devnet = await deps.startDevnet({
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
  return { devnet, rpcUrl, markets, launchpads };
}

/** The engine's lanes as the serving thread sees them: their status as the engine last reported it. */
function lanesOf(engine: EngineHost): { ingest: Ingest; traces: TracesLane } {
  const ingest: Ingest = {
    status: () => engine.status().ingest,
    poolStats: () => engine.status().pool,
    start: () => engine.start(),
    stop: () => engine.stop(),
  };
  const traces: TracesLane = {
    // The lane's state as the engine reports it; every reader of its checkpoint takes it from the
    // request's view instead (schema/rows/traces.ts tracesCheckpointIn), one committed state.
    status: () => engine.status().traces,
    onRollback: () => ({}),
    start() {},
    stop: async () => {},
  };
  return { ingest, traces };
}

/**
 * The serving thread's part in one engine commit: the projections' states re-read from one view of
 * what RocksDB now holds, the commit's frames published to live subscribers; `handOver` hears the
 * message's transit (ms, from the engine's post to this thread taking it up; the frames are one
 * transferred buffer, decoded here for the listened topics only) and this work's duration
 * (seconds, the decoding included).
 */
function servingCommit(
  c: { frames: PackedFrames; postedAt: number },
  store: Store,
  registry: { reload(meta: (name: string) => unknown): void } | null,
  streams: {
    hub: { publish(f: Frame[]): void; topics(): Set<Topic> };
    log: { unpack(p: PackedFrames, topics: ReadonlySet<Topic>): Frame[] };
  } | null,
  handOver: (transitMs: number, seconds: number) => void,
): void {
  const t0 = performance.now();
  inView(store, (v) => registry?.reload((name) => v.meta(name)));
  if (streams) streams.hub.publish(streams.log.unpack(c.frames, streams.hub.topics()));
  handOver(performance.timeOrigin + t0 - c.postedAt, (performance.now() - t0) / 1000);
}

/**
 * What the serving thread reads of the store: RocksDB as committed, plus the engine's write state.
 * Every read is of what RocksDB holds now: this thread's own state cache holds only its start-up
 * writes, which the engine may have changed since.
 */
function servedStore(store: Store, engine: EngineHost): Store {
  const committed = <T>(read: (v: ReturnType<Store['view']>) => T): T => {
    return inView(store, read);
  };
  return {
    ...store,
    head: () => store.committedHead(),
    getMeta: (name) => committed((v) => v.meta(name)),
    canonicalHash: (n) => committed((v) => v.canonicalHash(n)),
    inFlight: () => engine.status().storage.inFlight,
    cacheStats: () => engine.status().storage.cache,
    writeError: () => {
      const e = engine.status().storage.writeError;
      return e === null ? null : new StoreWriteError(e);
    },
  };
}

/**
 * Opens chain `cfg`: starts its embedded devnet when it has one, opens and checks its store,
 * builds its projections and follower. Nothing follows the node until {@link ChainRuntime.start}.
 * @throws Error when the data directory belongs to another chain (real chains) or the node has no
 *   block START_BLOCK.
 */
export async function openChain(cfg: ChainConfig, deps: SharedDeps): Promise<ChainRuntime> {
  const log = deps.log.child({ chain: cfg.name });
  const { devnet, rpcUrl, launchpads, ...fromDevnet } = await nodeOf(cfg, deps, log);
  let markets = fromDevnet.markets;
  if (!rpcUrl) throw new Error(`chain ${cfg.name}: no RPC URL and no devnet`);

  // Aborted by stop(): the serving thread's node calls (identity check, live RPC) are abandoned.
  const abandon = new AbortController();
  const rpc = createRpc({ url: rpcUrl, signal: abandon.signal });
  // The serving thread owns the database: it opens it, checks it, and closes it last. The engine
  // thread attaches to it by handle and does every write from then on (engine/).
  const store = await createStore({
    dataDir: join(cfg.dataDir, 'rocks'),
    unfinalisedWindow: cfg.unfinalisedWindow,
    // ROLE=writer: every committed write also goes to the change log the publisher ships.
    changeLog: !!deps.writer,
    rocks: deps.storageTuning,
    writer: 'sync',
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

  // Bound late: commits arrive only after start(), when both exist.
  let registry: ReturnType<typeof createRegistry<Registered>> | null = null;
  let streams: ReturnType<typeof createStreams> | null = null;
  const tuning = deps.ingestTuning ?? DEFAULT_INGEST_TUNING;
  const engine = await startEngine(
    {
      chain: cfg,
      rpcUrl,
      handle: store.handle(),
      markets,
      launchpads,
      blocksPerTask: deps.blocksPerTask,
      decodeThreads: deps.decodeThreads,
      reconcileIntervalMs: deps.reconcileIntervalMs,
      ingest: tuning,
      changeLog: !!deps.writer,
      writer: deps.writer ?? null,
      logLevel: deps.log.level,
      decodeHeapMb: tuning.decodeHeapMb,
    },
    {
      heapMb: tuning.engineHeapMb,
      // The serving thread's whole part in a commit: projection states re-read, frames published.
      onCommit: (c) =>
        servingCommit(c, store, registry, streams, (ms, s) => deps.onHandOver?.(cfg.name, ms, s)),
      onFrames: (frames) => {
        if (streams) streams.hub.publish(streams.log.unpack(frames, streams.hub.topics()));
      },
      onFatal(error) {
        log.fatal({ error }, 'ingest engine thread died; exiting (a supervisor restarts the service)');
        process.exit(1);
      },
      onLate: () => log.error('ingest engine did not stop within its deadline; terminated'),
    },
  );

  streams = createStreams(
    createStreamLog(store),
    createHub((err) =>
      log.error({ err: (err as Error).message }, 'streams: a subscriber threw and was removed'),
    ),
    deps.streamSlots,
  );
  const { ingest, traces } = lanesOf(engine);
  const served = servedStore(store, engine);
  registry = createRegistry<Registered>(served, [...engine.projections], (msg) => log.warn(msg), {
    readOnly: true,
  });
  const parts = {
    store: served,
    ingest,
    rpc,
    registry,
    launchpads,
    traces,
    streams,
    markets,
    secretHex,
    deps,
  };
  const ctx = chainContextOf(
    {
      name: cfg.name,
      chainId: identity.chainId,
      historyRetention: cfg.historyRetention,
      ...parts,
      // Live RPC routes answer while a client waits: one attempt with a short timeout (a typed
      // 503 after it), not the follower's patient retries.
      node: createRpc({
        url: rpcUrl,
        timeoutMs: LIVE_RPC_TIMEOUT_MS,
        maxAttempts: 1,
        signal: abandon.signal,
      }),
    },
    devnet ? { devnet: { status: devnet.status } } : {},
  );
  if (deps.writer) ctx.writer = { status: () => engine.status().publisher };
  return {
    name: cfg.name,
    ctx,
    store: served,
    ingest,
    traces,
    rpc,
    devnet,
    engine,
    start() {
      engine.start();
    },
    async stop({ keepNode }) {
      // The serving thread's node calls are abandoned; the engine stops its lanes, drains its
      // committed writes and releases the database; the devnet's node stops meanwhile.
      abandon.abort(new Error('shutting down'));
      const devnetDown = devnet?.stop();
      await engine.stop();
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
        deps.metrics?.blocksCommitted.inc({ chain: cfg.name });
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
  registry = createRegistry<Registered>(
    store,
    PROJECTION_LIST.map(projectionIdentity),
    (msg) => log.warn(msg),
    {
      readOnly: true,
    },
  );
  const rpc = createRpc({ url: cfg.rpcUrl ?? 'http://127.0.0.1:9/no-node-configured-for-this-replica' });
  const ingest = replicaIngest(replica);
  const traces: TracesLane = {
    status: () => ({
      enabled: true,
      state: 'following',
      reason: 'replicated_from_writer',
      checkpoint: store.getMeta<number>(TRACES_CHECKPOINT_META) ?? null,
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
      historyRetention: cfg.historyRetention,
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
