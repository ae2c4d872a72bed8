/**
 * Entry point. With no configuration: starts the embedded devnet (anvil + real Uniswap V2/V3/V4
 * + test contracts + traffic), indexes it as chain `devnet` and serves it. With `RPC_URL` and
 * `CHAIN`: indexes that node instead and starts no devnet.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { createChainReader, createDecodedViewsProjection } from './chain/index.js';
import { type Config, loadConfig, printable } from './config/index.js';
import { createCursorCodec } from './cursor/index.js';
import { defaultVerifiedAbisDir } from './decode/abis-dir.js';
import { wsUrlOf } from './ingest/heads.js';
import { createIngest, type Ingest } from './ingest/index.js';
import { createTracesLane } from './ingest/traces.js';
import { type MarketsConfig, marketsConfigFor, quoteAssetsOf } from './markets/config.js';
import { createMarketsProjection } from './markets/projection.js';
import { createMetrics } from './metrics/index.js';
import { createRegistry } from './projections/index.js';
import { createRpc } from './rpc/client.js';
import { ALL_SCOPES, createAuth, hashKey, type KeyConfig, loadKeysFile } from './server/auth.js';
import { createServer } from './server/index.js';
import { buildOpenApi } from './server/openapi.js';
import type { ChainContext } from './server/route.js';
import { routes } from './server/routes/index.js';
import { uwsIsNative } from './server/uws.js';
import { checkChainIdentity } from './storage/identity.js';
import { checkInvariants, createStore, type Store } from './storage/index.js';
import { createHub } from './streams/hub.js';
import { createStreamLog } from './streams/log.js';
import { createStreams } from './streams/service.js';
import { type LaunchpadDeployments, loadLaunchpadsFile } from './tokens/launchpads.js';
import { createTokensProjection } from './tokens/projection.js';
import { startReconciler } from './tokens/reconcile.js';
import { VERSION } from './version.js';
import { createWalletsProjection } from './wallets/projection.js';
import { createReplayPool } from './workers/replay/index.js';

/** Entity overrides (wallets screened out of cohorts) and address labels from their files. */
function loadOverridesAndLabels(overridesFile: string | null, labelsFile: string | null) {
  const overrides = new Set<string>();
  let overridesVersion = '0';
  if (overridesFile) {
    const text = readFileSync(overridesFile, 'utf8');
    for (const a of JSON.parse(text) as string[]) overrides.add(a.toLowerCase());
    overridesVersion = createHash('sha256').update(text).digest('hex').slice(0, 12);
  }
  const labels = new Map<string, string[]>();
  if (labelsFile)
    for (const [a, ls] of Object.entries(
      JSON.parse(readFileSync(labelsFile, 'utf8')) as Record<string, string[]>,
    ))
      labels.set(a.toLowerCase(), ls);
  return { overrides, overridesVersion, labels };
}

async function main(): Promise<void> {
  const config: Config = loadConfig(process.env, () => `dev_${randomBytes(24).toString('base64url')}`);
  const log = pino({ level: config.logLevel, base: { chain: config.chain } });
  if (!uwsIsNative()) {
    log.fatal(
      'uWebSockets.js native binary did not load (the package fell back to its pure-JS server); refusing to start',
    );
    process.exit(1);
  }
  log.info({ config: printable(config) }, 'configuration');
  mkdirSync(config.dataDir, { recursive: true });

  let store: Store | null = null;
  let ingest: Ingest | null = null;
  let hubSubscribers = () => 0;
  const metrics = createMetrics({
    store: () => store,
    ingest: () => ingest,
    hubSubscribers: () => hubSubscribers(),
  });

  let rpcUrl = config.rpcUrl;
  let stopDevnet: (() => Promise<void>) | null = null;
  let devnetMarkets: MarketsConfig | null = null;
  let launchpads: LaunchpadDeployments = config.launchpadsFile
    ? loadLaunchpadsFile(config.launchpadsFile, config.chain)
    : new Map();
  if (!rpcUrl) {
    const { startDevnet } = await import('./devnet/index.js');
    const devnet = await startDevnet({
      port: config.devnetPort,
      blockTimeMs: config.devnetBlockTimeMs,
      seed: config.devnetSeed,
      txPerSecond: config.devnetTxPerSecond,
      stateDir: join(config.dataDir, 'devnet'),
      log: (msg) => log.info({ component: 'devnet' }, msg),
    });
    rpcUrl = devnet.rpcUrl;
    stopDevnet = devnet.stop;
    const c = devnet.deployment.contracts;
    devnetMarkets = {
      v2Factories: [c.uniswapV2Factory.toLowerCase()],
      v3Factories: [c.uniswapV3Factory.toLowerCase()],
      v4Managers: [c.poolManager.toLowerCase()],
      usdStablecoins: devnet.deployment.tokens
        .filter((t) => t.kind === 'stable')
        .map((t) => t.address.toLowerCase()),
      quoteAssets: [
        ...devnet.deployment.tokens.filter((t) => t.kind === 'stable').map((t) => t.address.toLowerCase()),
        ...devnet.deployment.tokens.filter((t) => t.kind === 'weth').map((t) => t.address.toLowerCase()),
        '0x0000000000000000000000000000000000000000',
      ],
    };
    const pad = devnet.deployment.launchpad;
    launchpads = new Map([
      [
        'devnet-pad',
        {
          factories: [pad.address.toLowerCase()],
          curve: pad.address.toLowerCase(),
          graduationTargetWei: pad.graduationTargetWei,
        },
      ],
    ]);
    log.info({ rpcUrl, reused: devnet.reused }, 'embedded devnet ready');
  }

  const rpc = createRpc({
    url: rpcUrl,
    onRetry: (method) => metrics.rpcRetries.inc({ method }),
    onTiming: (method, s, ok) => metrics.rpcDuration.observe({ method, outcome: ok ? 'ok' : 'error' }, s),
  });
  store = await createStore({
    dataDir: join(config.dataDir, 'rocks'),
    unfinalisedWindow: config.unfinalisedWindow,
  });
  const identity = await checkChainIdentity({
    store,
    rpc,
    chain: config.chain,
    startBlock: config.startBlock,
    resettable: config.rpcUrl === null,
    log,
  });
  log.info({ head: store.head(), invariants: checkInvariants(store) }, 'storage invariants hold');

  let secretHex = config.cursorSecret ?? store.getMeta<string>('cursorSecret');
  if (!secretHex) {
    secretHex = randomBytes(32).toString('hex');
    store.putMeta('cursorSecret', secretHex);
  }

  const markets = devnetMarkets ?? marketsConfigFor(identity.chainId, config.marketsFile);
  const registry = createRegistry(
    store,
    [
      createDecodedViewsProjection(),
      createTokensProjection({ launchpads }),
      createMarketsProjection({ config: markets, launchpads }),
      createWalletsProjection({ quoteAssets: quoteAssetsOf(markets) }),
    ],
    (msg) => log.warn(msg),
  );
  const replayPool = createReplayPool({ threads: 1 });
  const traces = createTracesLane({
    store,
    pool: replayPool,
    rpcUrl,
    log,
    enabled: config.traces,
    verifiedAbisDir: defaultVerifiedAbisDir(),
  });
  const streams = createStreams(createStreamLog(store), createHub());
  hubSubscribers = () => streams.hub.size();
  ingest = createIngest({
    registry,
    streams,
    rollbackHooks: [(dropped) => traces.onRollback(dropped)],
    chain: config.chain,
    rpcUrl,
    rpc,
    store,
    log,
    startBlock: config.startBlock,
    pollMs: config.pollMs,
    wsUrl: config.wsUrl === 'off' ? null : (config.wsUrl ?? wsUrlOf(rpcUrl)),
    blocksPerTask: config.blocksPerTask,
    decodeThreads: config.decodeThreads,
    onReorg: (depth) => metrics.reorgs.observe(depth),
    onCommit(e) {
      if (e.kind === 'block') {
        metrics.blocksCommitted.inc();
        metrics.eventsCommitted.inc(e.block.logs.length);
      }
    },
  });

  const chainCtx: ChainContext = {
    name: config.chain,
    chainId: identity.chainId,
    store,
    ingest,
    rpc,
    cursors: createCursorCodec(Buffer.from(secretHex, 'hex')),
    registry,
    launchpads,
    traces,
    streams,
    markets,
    readers: { chain: createChainReader() },
    ...loadOverridesAndLabels(config.overridesFile, config.labelsFile),
  };

  const keys: KeyConfig[] = config.keysFile ? loadKeysFile(config.keysFile) : [];
  if (config.devApiKey)
    keys.push({ name: 'dev', sha256: hashKey(config.devApiKey), scopes: [...ALL_SCOPES] });
  const server = createServer({
    routes,
    chains: new Map([[config.chain, chainCtx]]),
    auth: createAuth(keys),
    log,
    openapiJson: JSON.stringify(buildOpenApi(routes, VERSION)),
    observe: (route, status, s) => metrics.httpDuration.observe({ route, status: String(status) }, s),
  });
  const port = await server.listen(config.host, config.port);
  const metricsPort = await metrics.listen(config.metricsPort);
  ingest.start();
  traces.start();
  const stopReconciler = startReconciler({
    store,
    rpc,
    log,
    intervalMs: config.reconcileIntervalMs,
    ready: () => registry.lagging(store?.head()?.number ?? null).length === 0,
  });

  log.info(
    { port, metricsPort, chain: config.chain },
    `serving http://${config.host}:${port}/index/v1/${config.chain}`,
  );
  if (config.devApiKeyGenerated && config.devApiKey) {
    // Printed once, to stdout only; it is never logged through the logger.
    process.stdout.write(
      `\nDEV_API_KEY=${config.devApiKey}\n(generated for this run; set DEV_API_KEY to choose your own)\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    let code = 0;
    try {
      server.close();
      metrics.close();
      stopReconciler();
      await traces.stop();
      await ingest?.stop();
      await replayPool.destroy();
      await stopDevnet?.();
    } catch (err) {
      log.error(
        { err: (err as Error)?.stack ?? String(err) },
        'shutdown step failed; closing the store anyway',
      );
      code = 1;
    }
    // After a storage write failure RocksDB refuses to close cleanly (its flush hits the same
    // error); every committed block is already in the WAL, so say so and exit non-zero.
    const closed = await store?.close().then(
      () => null,
      (err: Error) => err,
    );
    if (closed)
      log.error({ err: closed.message, cause: String(closed.cause ?? '') }, 'store did not close cleanly');
    process.exit(closed ? 1 : code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // A stray rejection from a library's background work (e.g. a WebSocket transport reconnecting
  // to a restarted node) must not take the index down: every store write is one atomic batch, so
  // no state is half-done. Logged with its stack for a fix; synchronous exceptions still crash.
  process.on('unhandledRejection', (reason) => {
    log.error(
      { err: (reason as Error)?.stack ?? String(reason) },
      'unhandled rejection (process kept running)',
    );
  });
}

main().catch((err) => {
  process.stderr.write(`fatal: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
