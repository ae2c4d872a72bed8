/**
 * The scanner's configuration: optional environment variables resolved once, at start-up, into
 * required fields, validated, and printed with secrets masked. Used both by the standalone
 * entry (`node packages/scanner/dist/main.js`) and by the indexer when it starts the scanner
 * in-process.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { envInt as int } from '@chain-indexer/platform/config';
import {
  httpMaxConnectionsFromEnv,
  type TrustedProxyHeader,
  trustedProxiesFromEnv,
  trustedProxyHeaderFromEnv,
} from '@chain-indexer/platform/http';
import { natsConnectOptions } from '@chain-indexer/platform/nats';
import {
  type Cidr,
  formatCidr,
  redact,
  rememberSecrets,
  secretsOfUrl,
} from '@chain-indexer/platform/security';
import { MAX_SESSION_HOURS } from './accounts.js';

export interface ScannerConfig {
  host: string;
  /** Listener port (SCANNER_PORT, default 8090; 0 = any free port). */
  port: number;
  /** The scanner's directory (SCANNER_DATA_DIR): RocksDB in rocks/, the outbox, admin.sock. */
  dataDir: string;
  /** SMTP server URL for notifications (SMTP_URL); null = write `.eml` files to {@link outboxDir}. */
  smtpUrl: string | null;
  /** Where notifications go when no SMTP server is set (SCANNER_OUTBOX_DIR, default <dataDir>/outbox). */
  outboxDir: string;
  /** Sender address of notifications (SCANNER_MAIL_FROM). */
  mailFrom: string;
  /** Where a lapsed account is sent to renew (SCANNER_UPGRADE_URL); in every API_PLAN_REQUIRED body. */
  upgradeUrl: string;
  /**
   * Socket peers trusted to say who the client is (TRUSTED_PROXIES, shared with the indexer; CIDR
   * list; default none), read from the right past trusted proxies (platform/src/proxy.ts).
   */
  trustedProxies: Cidr[];
  /**
   * The one header those proxies write the client in (TRUSTED_PROXY_HEADER, shared with the
   * indexer): `x-forwarded-for` (default) or `forwarded`; the other is never read.
   */
  trustedProxyHeader: TrustedProxyHeader;
  /**
   * HTTP_MAX_CONNECTIONS (shared with the indexer; platform/src/http-limits.ts): open connections
   * the listener accepts on the node:http stand-in (default 4096); native uWS has no such setting.
   */
  httpMaxConnections: number;
  /** How long a charged result is served again for free, milliseconds (SCANNER_CACHE_SECONDS). */
  cacheMs: number;
  /** Dashboard session lifetime given by the CLI by default, hours (SCANNER_SESSION_HOURS). */
  sessionHours: number;
  logLevel: string;
  /**
   * NATS servers of the shared state (SCANNER_NATS_URL, else NATS_URL; comma list of nats://
   * URLs): when set, the key directory, credit ledger and rate windows live in JetStream KV and
   * several scanner servers share one account space (shared/). null: one server, local store.
   */
  natsUrl: string | null;
  /** Name prefix of the shared KV buckets (SCANNER_KV_BUCKET, default `scanner`). */
  kvBucket: string;
  /**
   * SCANNER_KV_SECRET (hex, ≥ 32 bytes), required with a NATS URL: the key of the MAC every KV
   * record carries (shared/state.ts). Only scanner servers hold it; a NATS user who may write the
   * buckets without it cannot mint keys, sessions or credits. Null without NATS.
   */
  kvSecret: string | null;
}

/**
 * Resolves the scanner configuration from `env`, and records its secrets (the secret parts of
 * SMTP_URL and the NATS URLs, SCANNER_KV_SECRET) with the one redaction: from here on they are
 * masked by value in every log line and error body.
 * @param defaults.dataDir the data directory when SCANNER_DATA_DIR is unset (standalone:
 *   `./data/scanner`; in-process: `<DATA_DIR>/scanner`, the same path with default settings).
 * @param defaults.indexDataDirs the index's RocksDB directories (one per chain): the scanner's
 *   directory may not lie inside any (an index rebuild must never touch accounts, keys, usage or
 *   credits).
 * @throws Error naming the bad variable.
 */
export function loadScannerConfig(
  env: NodeJS.ProcessEnv,
  defaults: { dataDir?: string; indexDataDirs?: readonly string[] } = {},
): ScannerConfig {
  const dataDir = resolve(env.SCANNER_DATA_DIR || defaults.dataDir || './data/scanner');
  for (const indexDir of defaults.indexDataDirs ?? []) {
    const rel = relative(resolve(indexDir), dataDir);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
      throw new Error(
        `SCANNER_DATA_DIR (${dataDir}) lies inside an index data directory (${indexDir}); choose a separate directory`,
      );
  }
  const host = env.SCANNER_HOST || env.HOST || '127.0.0.1';
  const port = int(env, 'SCANNER_PORT', 8090, 0, 65535);
  const trustedProxies = trustedProxiesFromEnv(env);
  const trustedProxyHeader = trustedProxyHeaderFromEnv(env);
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl))
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  const natsUrl = (env.SCANNER_NATS_URL || env.NATS_URL || '').trim();
  if (natsUrl)
    try {
      natsConnectOptions(natsUrl);
    } catch (err) {
      throw new Error(`SCANNER_NATS_URL / NATS_URL: ${(err as Error).message}`);
    }
  const kvBucket = env.SCANNER_KV_BUCKET || 'scanner';
  const kvSecret = env.SCANNER_KV_SECRET || null;
  if (kvSecret !== null && !/^(?:[0-9a-fA-F]{2}){32,}$/.test(kvSecret))
    throw new Error(
      'SCANNER_KV_SECRET must be hex of at least 32 bytes (64 hex digits), e.g. `openssl rand -hex 32`',
    );
  if (natsUrl && kvSecret === null)
    throw new Error(
      'SCANNER_KV_SECRET is required with a NATS URL (the shared state): the same value on every scanner server; see ops/SCALE-OUT.md "Secrets"',
    );
  if (!/^[A-Za-z0-9_-]{1,48}$/.test(kvBucket))
    throw new Error('SCANNER_KV_BUCKET is 1..48 letters, digits, - or _');
  // Masked by value from here on in every log line and error body (platform/src/redact.ts).
  rememberSecrets([
    ...secretsOfUrl(smtpUrl),
    ...secretsOfUrl(natsUrl),
    ...(kvSecret ? [kvSecret, kvSecret.toLowerCase(), kvSecret.toUpperCase()] : []),
  ]);
  return {
    host,
    port,
    dataDir,
    smtpUrl,
    outboxDir: resolve(env.SCANNER_OUTBOX_DIR || join(dataDir, 'outbox')),
    mailFrom: env.SCANNER_MAIL_FROM || 'scanner@localhost',
    upgradeUrl: env.SCANNER_UPGRADE_URL || `http://${host}:${port}/v1/account/plan`,
    trustedProxies,
    trustedProxyHeader,
    httpMaxConnections: httpMaxConnectionsFromEnv(env),
    cacheMs: int(env, 'SCANNER_CACHE_SECONDS', 60, 0, 86_400) * 1000,
    sessionHours: int(env, 'SCANNER_SESSION_HOURS', 24, 1, MAX_SESSION_HOURS),
    logLevel: env.LOG_LEVEL || 'info',
    natsUrl: natsUrl || null,
    kvBucket,
    kvSecret,
  };
}

/** The configuration as printed at boot: URLs through the one redaction, secrets named only as set. */
export function printableScannerConfig(c: ScannerConfig): Record<string, unknown> {
  const mask = (u: string | null) => (u ? redact(u) : null);
  return {
    ...c,
    smtpUrl: mask(c.smtpUrl),
    natsUrl: mask(c.natsUrl),
    upgradeUrl: redact(c.upgradeUrl),
    kvSecret: c.kvSecret ? '(set)' : null,
    trustedProxies: c.trustedProxies.map(formatCidr),
  };
}

/**
 * Whether the indexer starts the scanner in-process: SCANNER=on|off; by default on for the
 * embedded devnet (`npm start` serves both) and off when indexing configured nodes.
 */
export function scannerEnabled(env: NodeJS.ProcessEnv, embeddedDevnet: boolean): boolean {
  const v = env.SCANNER;
  if (v === 'on') return true;
  if (v === 'off') return false;
  if (v !== undefined && v !== '') throw new Error(`SCANNER must be on or off, got "${v}"`);
  return embeddedDevnet;
}
