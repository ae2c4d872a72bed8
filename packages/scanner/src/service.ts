/**
 * The scanner service: `createScannerService(deps)` builds it (store, seams, gate, endpoints, its
 * own uWS listener) and hands back its handle. The package's door is index.ts.
 */
import { type us_listen_socket, uws } from '@chain-indexer/platform/http';
import { VERSION } from '@chain-indexer/platform/version';
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { startAdminSocket } from './admin.js';
import type { SharedStatus } from './commands.js';
import type { ScannerConfig } from './config.js';
import { openScannerCore, type ScannerCore, type Seams } from './core.js';
import { mountEndpoints } from './dispatch.js';
import { defineEndpoint, type Endpoint } from './endpoint.js';
import { ENDPOINTS } from './endpoints/index.js';
import { createGate } from './gate.js';
import { createRequestIds } from './http.js';
import { type IndexPort, NO_INDEX } from './index-port.js';
import { buildScannerOpenApi } from './openapi.js';
import { openShared } from './shared/index.js';
import { createRateWindows, type RateWindows } from './windows.js';

/** What the scanner service is built from. */
export interface ScannerDeps {
  config: ScannerConfig;
  log: Logger;
  /** The index scan endpoints read (phase 2); default: none attached. */
  index?: IndexPort;
  /** Endpoints to register; default: every endpoint of endpoints/index.ts. */
  endpoints?: readonly Endpoint[];
  /** Service clock (ms); tests pass a controllable one. */
  now?: () => number;
  /** The rate windows; default: the embedded sliding logs. */
  windows?: RateWindows;
  /**
   * The key directory and ledger implementations; default: the shared ones (shared/) when the
   * config names NATS servers, else the embedded ones over the store.
   */
  seams?: Seams;
  /** Whether to open the admin socket for the CLI (default true). */
  adminSocket?: boolean;
}

/** A running (or ready to listen) scanner service. */
export interface ScannerService {
  /** Starts the listener on config.host:config.port; resolves to the bound port. */
  listen(): Promise<number>;
  /** Stops the listener and the admin socket, flushes e-mails, closes the store. */
  close(): Promise<void>;
  /** The OpenAPI 3.1 document served at GET /v1/openapi.json. */
  readonly openapi: Record<string, unknown>;
  /** Method and path of every registered endpoint. */
  registered(): Array<{ method: string; path: string }>;
  /** The service's state (accounts, directory, ledger, notifier, store) for in-process callers. */
  readonly core: ScannerCore;
  /**
   * Shared mode (NATS): contact and the records refused since start — forged (`mac`) or put back
   * from the bucket's history (`replay`); null without NATS.
   */
  sharedStatus(): SharedStatus | null;
}

/** Period of the housekeeping sweep (idle rate windows, expired cached answers), ms. */
const SWEEP_MS = 60_000;

/** Opens the store and builds the service. Call `listen()` to serve. */
export async function createScannerService(deps: ScannerDeps): Promise<ScannerService> {
  const { config, log } = deps;
  const now = deps.now ?? Date.now;
  // Shared mode: the three seams on NATS JetStream KV (several servers, one account space).
  const shared = config.natsUrl && !deps.seams ? await openShared(config, log, now) : null;
  let core: ScannerCore;
  try {
    core = await openScannerCore(config, log, now, shared?.seams ?? deps.seams);
  } catch (err) {
    await shared?.close();
    throw err;
  }
  await shared?.start();
  const windows = deps.windows ?? shared?.windows ?? createRateWindows();
  const endpoints = [...(deps.endpoints ?? ENDPOINTS)];
  const openapiEndpoint = defineEndpoint({
    id: 'openapi',
    method: 'GET',
    path: '/v1/openapi.json',
    auth: 'public',
    tag: 'Service',
    summary: 'This OpenAPI 3.1 document (no key)',
    response: Type.Object({}, { additionalProperties: true, description: 'an OpenAPI 3.1 document' }),
    handler: () => openapi,
  });
  endpoints.push(openapiEndpoint);
  const openapi = buildScannerOpenApi(endpoints, VERSION);

  let open = true;
  const app = uws.App();
  mountEndpoints(app, endpoints, {
    gate: createGate({ directory: core.directory, windows, upgradeUrl: config.upgradeUrl }),
    ledger: core.ledger,
    index: deps.index ?? NO_INDEX,
    services: {
      accounts: core.accounts,
      directory: core.directory,
      ledger: core.ledger,
      upgradeUrl: config.upgradeUrl,
    },
    log,
    now,
    cacheMs: config.cacheMs,
    trusted: { proxies: config.trustedProxies, header: config.trustedProxyHeader },
    requestId: createRequestIds(),
    isOpen: () => open,
  });

  const sharedStatus = shared
    ? (): SharedStatus => ({
        serverId: shared.state.serverId,
        lastContact: shared.state.lastContact(),
        refused: { mac: shared.state.rejected(), replay: shared.state.replayed() },
      })
    : null;
  const admin =
    deps.adminSocket === false
      ? null
      : await startAdminSocket(
          config.dataDir,
          { ...core, sessionHours: config.sessionHours, sharedStatus: sharedStatus ?? undefined },
          log,
          () => core.notifier.flush(),
        );
  const sweep = setInterval(() => {
    const t = now();
    windows.sweep(t);
    try {
      core.ledger.sweep(t);
    } catch (err) {
      log.error({ err: String(err) }, 'cache sweep failed');
    }
    try {
      const n = core.directory.pruneSessions(t);
      if (n) log.info({ sessions: n }, 'pruned expired and revoked dashboard sessions');
    } catch (err) {
      log.warn({ err: String(err) }, 'session pruning deferred');
    }
  }, SWEEP_MS);
  sweep.unref();

  let socket: us_listen_socket | null = null;
  return {
    core,
    sharedStatus: () => sharedStatus?.() ?? null,
    openapi,
    registered: () => endpoints.map((e) => ({ method: e.spec.method, path: e.spec.path })),
    listen() {
      return new Promise((resolve, reject) => {
        app.listen(config.host, config.port, (s) => {
          if (!s) return reject(new Error(`scanner cannot listen on ${config.host}:${config.port}`));
          socket = s;
          const port = uws.us_socket_local_port(s);
          // Not "serving http://…": tools find the indexer's port by that phrase, and in-process
          // the scanner starts listening before the indexer logs it.
          log.info({ port }, `scanner API listening on http://${config.host}:${port}/v1`);
          resolve(port);
        });
      });
    },
    async close() {
      open = false;
      clearInterval(sweep);
      if (socket) uws.us_listen_socket_close(socket);
      socket = null;
      // Open keep-alive connections too: no request may reach the ledger or the index as they close.
      (app as unknown as { close(): void }).close();
      await admin?.close();
      await shared?.close();
      await core.close();
    },
  };
}
