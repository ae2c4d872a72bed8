/**
 * Entry point. With no configuration: starts the embedded devnet (anvil + real Uniswap V2/V3/V4
 * + test contracts + traffic; DEVNET_CHAINS=2 starts a second one), indexes it as chain `devnet`
 * and serves it. With `RPC_URL` and `CHAIN`, or a `CHAINS_FILE`: indexes those nodes instead and
 * starts no devnet. Every chain has its own follower and RocksDB directory (packages/indexer/src/runtime/chain.ts).
 */
// First: the native-module check runs before any module that loads a native binary is evaluated.
import './native-check.js';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ChainRuntime,
  type Config,
  createMetrics,
  createStreamSlots,
  loadConfig,
  openChain,
  openReplicaChain,
  openSharedStreamSlots,
  printable,
  registerCounterSource,
} from '@chain-indexer/indexer/chain';
import {
  ALL_SCOPES,
  buildOpenApi,
  createAuth,
  createServer,
  hashKey,
  type KeyConfig,
  loadKeysFile,
  responseCacheOf,
  routes,
} from '@chain-indexer/indexer/server';
import { exitUnlessHttpCore, uwsStandInWarning } from '@chain-indexer/platform/http';
import {
  privateDir,
  redact,
  redactingLoggerOptions,
  restrictUmask,
  tightenTree,
} from '@chain-indexer/platform/security';
import { deprioritiseOtherThreads } from '@chain-indexer/platform/threads';
import { VERSION } from '@chain-indexer/platform/version';
import { chainRoles, createScannerService } from '@chain-indexer/scanner';
import { loadScannerConfig, printableScannerConfig, scannerEnabled } from '@chain-indexer/scanner/config';
import { pino } from 'pino';
import { opsGaugeSource } from './ops-gauges.js';
import { createScannerIndexPort } from './scanner-port.js';

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

/**
 * Longest a shutdown may take from SIGTERM/SIGINT, ms: past it the process exits anyway, with the
 * reason logged (the bound is 5 s measured from outside; this leaves room for the exit).
 */
const SHUTDOWN_DEADLINE_MS = 4_500;

async function main(): Promise<void> {
  const config: Config = loadConfig(process.env, () => `dev_${randomBytes(24).toString('base64url')}`);
  const log = pino({ level: config.logLevel, ...redactingLoggerOptions() });
  // A native binary loads only when its SHA-256 is pinned (platform uws-load.ts); otherwise the
  // node:http stand-in serves and this one warning names the reason and the fix.
  const uwsWarning = uwsStandInWarning();
  if (uwsWarning) log.warn(uwsWarning);
  exitUnlessHttpCore((obj, msg) => log.fatal(obj, msg));
  log.info({ config: printable(config) }, 'configuration');
  // Every file this process (and RocksDB, anvil's state, the scanner) writes: 0600, dirs 0700.
  restrictUmask();
  // The serving thread first: every other thread (engines, decode and writer threads, RocksDB's
  // background threads) runs at INGEST_NICE, now and as they appear.
  const priority = deprioritiseOtherThreads(config.ingestNice);
  privateDir(config.dataDir);
  const tightened = tightenTree(config.dataDir);
  if (tightened)
    log.info({ entries: tightened }, 'data directory made private (files 0600, directories 0700)');

  const runtimes: ChainRuntime[] = [];
  const metrics = createMetrics({
    chains: () =>
      runtimes.map((r) => ({
        name: r.name,
        store: r.store,
        ingest: r.ingest,
        hubSubscribers: () => r.ctx.streams.hub.size(),
        responseCache: () => responseCacheOf(r.ctx),
        engine: () => (r.engine ? r.engine.status() : null),
      })),
    ops: () => runtimes.map((r) => opsGaugeSource(r, config.dataDir)),
    // A replica ingests on this thread; otherwise each chain's engine thread owns its instruments.
    chainMetrics: config.role === 'replica',
    extra: () => Promise.all(runtimes.map((r) => r.engine?.metricsJson() ?? Promise.resolve([]))),
  });
  // This thread's NATS connection (a replica's log, shared stream slots); a writer's engines
  // publish their change logs on connections of their own (engine/compose.ts).
  const nats =
    config.role !== 'all'
      ? await (await import('@chain-indexer/indexer/replication')).connectNats(config.natsUrl!, log)
      : null;
  // The open-stream ceiling of a key, shared by the writer and every replica (streams/shared-slots.ts).
  const sharedSlots = nats
    ? await openSharedStreamSlots({ js: nats.js, jsm: nats.jsm, create: config.role === 'writer', log })
    : null;
  const streamSlots = sharedSlots ?? createStreamSlots();
  // Signals are handled from here on, start-up included: Ctrl-C while the embedded devnet deploys
  // stops the anvil this process started (unless DEVNET_KEEP=1) instead of leaving it behind.
  let server: ReturnType<typeof createServer> | null = null;
  let scanner: Awaited<ReturnType<typeof createScannerService>> | null = null;
  let stopping = false;
  /** The shutdown step in progress (named in the deadline's log line). */
  let step = 'starting';
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, starting: server === null }, 'shutting down');
    priority.stop();
    // DEVNET_KEEP=1 leaves an embedded devnet's node running for the next start.
    const keepNode = process.env.DEVNET_KEEP === '1';
    const embedded = config.chainsSource === 'embedded_devnet';
    let devnetModule: typeof import('@chain-indexer/devnet') | null = null;
    // The deadline: whatever the node does (hangs, is gone), the process exits within
    // SHUTDOWN_DEADLINE_MS of the signal. Every committed block is already in RocksDB's write-ahead
    // log, so exiting here loses nothing committed; the next start opens the store as it was.
    setTimeout(() => {
      log.error(
        { signal, deadlineMs: SHUTDOWN_DEADLINE_MS, step },
        'shutdown deadline passed: graceful close is late (a node that hangs?); exiting now',
      );
      if (embedded && !keepNode) {
        for (const r of runtimes) r.devnet?.killNodeNow();
        devnetModule?.killNodesStartedHereNow();
      }
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    if (embedded) devnetModule = await import('@chain-indexer/devnet');
    let code = 0;
    step = 'closing the listeners';
    server?.close();
    metrics.close();
    step = 'closing the scanner';
    await scanner?.close().catch((err: Error) => {
      log.error({ err: err.message }, 'scanner did not close cleanly');
      code = 1;
    });
    // The chains stop together: each abandons its node calls and drains its committed writes.
    await Promise.all(
      [...runtimes].map(async (r) => {
        try {
          step = `stopping chain ${r.name}`;
          await r.stop({ keepNode });
        } catch (err) {
          log.error(
            { chain: r.name, err: (err as Error)?.stack ?? String(err) },
            'shutdown step failed; closing the store anyway',
          );
          code = 1;
        }
      }),
    );
    // A signal during start-up: the node of a devnet still being set up is not in a runtime yet.
    step = 'stopping devnet nodes';
    if (!keepNode && embedded) await devnetModule?.killNodesStartedHere().catch(() => undefined);
    step = 'closing NATS';
    await sharedSlots?.close().catch(() => undefined);
    await nats?.close().catch(() => undefined);
    // After a storage write failure RocksDB refuses to close cleanly (its flush hits the same
    // error); every committed block is already in the WAL, so say so and exit non-zero.
    step = 'closing the stores';
    for (const r of [...runtimes]) {
      const closed = await r.close();
      if (closed) {
        log.error(
          { chain: r.name, err: closed.message, cause: String(closed.cause ?? '') },
          'store did not close cleanly',
        );
        code = 1;
      }
    }
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const shared = {
    log,
    metrics: metrics.chain,
    writer:
      config.role === 'writer' ? { natsUrl: config.natsUrl!, snapshotSeconds: config.snapshotSeconds } : null,
    onHandOver: (chain: string, transitMs: number, servingSeconds: number) => {
      metrics.engineHandOver.observe({ chain }, transitMs / 1000);
      metrics.servingCommitSeconds.observe({ chain }, servingSeconds);
    },
    cursorSecret: config.cursorSecret,
    blocksPerTask: config.blocksPerTask,
    decodeThreads: config.decodeThreads,
    reconcileIntervalMs: config.reconcileIntervalMs,
    storageTuning: config.storageTuning,
    ingestTuning: config.ingestTuning,
    // One set of stream slots for every chain: a key's ceiling is per key, not per (key, chain);
    // with NATS (writer, replica) one for the writer and every replica together.
    streamSlots,
    // The embedded devnet's code loads only when a chain has one (the indexer imports none itself).
    startDevnet: config.chains.some((c) => c.devnet)
      ? (await import('@chain-indexer/devnet')).startDevnet
      : undefined,
    ...loadOverridesAndLabels(config.overridesFile, config.labelsFile),
  };
  // Chains open one after another (each may start a devnet and check its node); a chain that
  // cannot open stops the start-up with its reason, after closing the ones already open.
  for (const c of config.chains) {
    try {
      runtimes.push(
        config.role === 'replica'
          ? await openReplicaChain(c, { ...shared, nats: nats!, maxLagSeconds: config.replicaMaxLagSeconds })
          : await openChain(c, shared),
      );
    } catch (err) {
      if (stopping) return; // a signal interrupted the start-up: shutdown() exits
      for (const r of runtimes) await r.stop({ keepNode: false }).catch(() => undefined);
      for (const r of runtimes) await r.close();
      // A devnet that failed half-way (e.g. its deployment) leaves no node behind.
      if (process.env.DEVNET_KEEP !== '1' && config.chainsSource === 'embedded_devnet')
        await (await import('@chain-indexer/devnet')).killNodesStartedHere().catch(() => undefined);
      throw new Error(`chain ${c.name}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (stopping) return;

  const keys: KeyConfig[] = config.keysFile ? loadKeysFile(config.keysFile) : [];
  if (config.devApiKey)
    keys.push({ name: 'dev', sha256: hashKey(config.devApiKey), scopes: [...ALL_SCOPES] });
  server = createServer({
    routes,
    chains: new Map(runtimes.map((r) => [r.name, r.ctx])),
    auth: createAuth(keys),
    log,
    openapiJson: JSON.stringify(buildOpenApi(routes, VERSION)),
    observe: (route, status, s, rows) => {
      metrics.httpDuration.observe({ route, status: String(status) }, s);
      metrics.httpRowsRead.observe({ route }, rows);
    },
    // The console's dev-key offer: only the embedded devnet's key, only to loopback peers.
    console: {
      devKey: config.chainsSource === 'embedded_devnet' ? config.devApiKey : null,
      trustedProxies: config.trustedProxies,
      trustedProxyHeader: config.trustedProxyHeader,
    },
  });
  const port = await server.listen(config.host, config.port);
  const metricsPort = await metrics.listen(config.metricsPort);
  // The companion scanner API: its own listener and store (DATA_DIR/scanner, beside the chains'
  // directories, so an index reset or rebuild never touches it); it reads the chains' heads.
  const embedded = config.chainsSource === 'embedded_devnet';
  if (scannerEnabled(process.env, embedded)) {
    const scannerConfig = loadScannerConfig(process.env, {
      dataDir: join(config.dataDir, 'scanner'),
      indexDataDirs: config.chains.map((c) => join(c.dataDir, 'rocks')),
    });
    const roles = chainRoles(
      runtimes.map((r) => r.name),
      process.env,
      embedded,
    );
    log.info({ scanner: printableScannerConfig(scannerConfig) }, 'scanner configuration');
    scanner = await createScannerService({
      config: scannerConfig,
      log: log.child({ component: 'scanner' }),
      index: createScannerIndexPort(
        runtimes.map((r) => r.ctx),
        roles,
      ),
    });
    await scanner.listen();
    // Shared records the scanner refused (forged, or put back from the KV history), on /metrics.
    const status = () => scanner?.sharedStatus() ?? null;
    registerCounterSource(metrics.registry, {
      name: 'scanner_shared_records_refused_total',
      help: 'Records of the scanner’s shared KV refused since start: mac (forged or altered), replay (an older record put back)',
      labelNames: ['reason'],
      read: () => {
        const s = status();
        return s
          ? [
              { labels: { reason: 'mac' }, value: s.refused.mac },
              { labels: { reason: 'replay' }, value: s.refused.replay },
            ]
          : [];
      },
    });
  }
  for (const r of runtimes) r.start();

  for (const r of runtimes)
    log.info(
      { port, metricsPort, chain: r.name },
      `serving http://${config.host}:${port}/index/v1/${r.name}`,
    );
  if (config.devApiKeyGenerated && config.devApiKey) {
    // Printed once, to stdout only; it is never logged through the logger.
    process.stdout.write(
      `\nDEV_API_KEY=${config.devApiKey}\n(generated for this run; set DEV_API_KEY to choose your own)\n\n`,
    );
  }

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
  process.stderr.write(`fatal: ${redact(String((err as Error).stack ?? err))}\n`);
  process.exit(1);
});
