/**
 * Shared mode (SCANNER_NATS_URL or NATS_URL set): the key directory, the credit ledger and the
 * rate windows of several scanner servers on one NATS JetStream deployment (state.ts: buckets,
 * keys, contact; directory.ts, ledger.ts, windows.ts: the three seams). Without a NATS URL the
 * scanner is one server over its own store, unchanged.
 */
import type { Logger } from 'pino';
import type { ScannerConfig } from '../config.js';
import type { Seams } from '../core.js';
import type { RateWindows } from '../windows.js';
import { createSharedDirectory } from './directory.js';
import { createSharedLedger } from './ledger.js';
import { openSharedState, type SharedState } from './state.js';
import { createSharedWindows } from './windows.js';

export { mergeKey } from './directory.js';
export type { SharedBalance } from './ledger.js';
export { HEARTBEAT_MS, type SharedState } from './state.js';
export { PUBLISH_MS } from './windows.js';

/** How long start-up waits for the watcher to catch up before listening anyway (keys then 503). */
const CATCH_UP_MS = 10_000;

/** The shared implementations of a scanner server, before its store is opened. */
export interface Shared {
  state: SharedState;
  /** The directory and ledger factories for openScannerCore. */
  seams: Seams;
  windows: RateWindows;
  /** Starts watching (after the core is open); resolves once caught up or after 10 s. */
  start(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Connects to `config.natsUrl` and prepares the shared seams.
 * @throws when NATS does not answer or JetStream is not enabled.
 */
export async function openShared(config: ScannerConfig, log: Logger, now: () => number): Promise<Shared> {
  if (!config.natsUrl || !config.kvSecret)
    throw new Error('openShared needs a NATS URL and SCANNER_KV_SECRET');
  const state = await openSharedState({
    servers: config.natsUrl,
    bucket: config.kvBucket,
    secret: Buffer.from(config.kvSecret, 'hex'),
    log,
    now,
  });
  const windows = createSharedWindows(state, log, now);
  return {
    state,
    seams: {
      directory: (store, clock) => createSharedDirectory(store, clock, state, log),
      ledger: (store) => createSharedLedger(store, state, log),
      shared: true,
    },
    windows,
    async start() {
      const ok = await state.start(CATCH_UP_MS);
      log.info({ serverId: state.serverId, caughtUp: ok }, 'scanner shared state on NATS JetStream KV');
      return ok;
    },
    async close() {
      windows.close();
      await state.close();
    },
  };
}
