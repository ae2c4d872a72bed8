/**
 * Configuration: user-facing optional environment variables resolved once, at start-up, into
 * required fields, validated, and printed (secrets masked).
 */
import { resolve } from 'node:path';

export interface Config {
  /** Chain name served under /index/v1/{chain}. */
  chain: string;
  /** JSON-RPC URL of the node; null = start the embedded devnet. */
  rpcUrl: string | null;
  /** WebSocket URL for newHeads; null = derived from the RPC URL; 'off' = polling only. */
  wsUrl: string | null;
  host: string;
  port: number;
  metricsPort: number;
  dataDir: string;
  devnetPort: number;
  devnetBlockTimeMs: number;
  devnetSeed: number;
  devnetTxPerSecond: number;
  /** Dev key with every scope (embedded default), from DEV_API_KEY or generated. */
  devApiKey: string | null;
  devApiKeyGenerated: boolean;
  keysFile: string | null;
  /** Launchpad deployments of the served chain (JSON); the devnet registers its own. */
  launchpadsFile: string | null;
  /** Pool factories of the served chain (JSON); mainnet defaults built in; the devnet registers its own. */
  marketsFile: string | null;
  /** JSON array of wallets screened out of cohorts (entity overrides). */
  overridesFile: string | null;
  /** JSON object address → labels. */
  labelsFile: string | null;
  /** Hex secret for cursor MACs; null = generated once and kept in the data directory. */
  cursorSecret: string | null;
  /** Blocks of undo data kept: the deepest reorg that can be rolled back. */
  unfinalisedWindow: number;
  startBlock: number;
  pollMs: number;
  blocksPerTask: number;
  decodeThreads: number;
  logLevel: string;
  /** Whether the traces lane replays blocks (debug_trace*); TRACES=off disables it. */
  traces: boolean;
  /** Period of the balance/supply reconciliation against the node, milliseconds. */
  reconcileIntervalMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`${name} must be in ${min}..${max}, got ${n}`);
  return n;
}

/** Resolves the configuration from `env`. @throws Error naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv, generateKey: () => string): Config {
  const rpcUrl = env.RPC_URL || null;
  const chain = env.CHAIN || (rpcUrl ? '' : 'devnet');
  if (!chain) throw new Error('CHAIN (the chain name to serve) is required with RPC_URL');
  if (!/^[a-z0-9-]{1,32}$/.test(chain)) throw new Error(`CHAIN must match [a-z0-9-]{1,32}, got "${chain}"`);
  const devApiKey = env.DEV_API_KEY || (rpcUrl && env.KEYS_FILE ? null : generateKey());
  return {
    chain,
    rpcUrl,
    wsUrl: env.WS_URL || null,
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    dataDir: resolve(env.DATA_DIR || './data'),
    devnetPort: int(env, 'DEVNET_PORT', 8545, 1, 65535),
    devnetBlockTimeMs: int(env, 'DEVNET_BLOCK_TIME_MS', 1000, 100, 60_000),
    devnetSeed: int(env, 'DEVNET_SEED', 1, 0, 2 ** 31),
    devnetTxPerSecond: int(env, 'DEVNET_TX_PER_SECOND', 15, 0, 10_000),
    devApiKey,
    devApiKeyGenerated: !env.DEV_API_KEY && devApiKey !== null,
    keysFile: env.KEYS_FILE || null,
    launchpadsFile: env.LAUNCHPADS_FILE || null,
    marketsFile: env.MARKETS_FILE || null,
    overridesFile: env.ENTITY_OVERRIDES_FILE || null,
    labelsFile: env.LABELS_FILE || null,
    cursorSecret: env.CURSOR_SECRET || null,
    unfinalisedWindow: int(env, 'UNFINALISED_WINDOW', 128, 2, 1_000_000),
    startBlock: int(env, 'START_BLOCK', 0, 0, 2 ** 52),
    pollMs: int(env, 'POLL_MS', rpcUrl ? 500 : 100, 10, 60_000),
    blocksPerTask: int(env, 'BLOCKS_PER_TASK', 20, 1, 1000),
    decodeThreads: int(env, 'DECODE_THREADS', 2, 1, 64),
    logLevel: env.LOG_LEVEL || 'info',
    traces: (env.TRACES ?? 'on') !== 'off',
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 5_000, 100, 3_600_000),
  };
}

const mask = (url: string) =>
  url.replace(/\/\/[^@/]*@/, '//***@').replace(/([?&](key|apikey|token)=)[^&]+/i, '$1***');

/** The config as printed at boot: secrets masked. */
export function printable(c: Config): Record<string, unknown> {
  return {
    ...c,
    devApiKey: c.devApiKey ? `(masked, ${c.devApiKey.length} chars)` : null,
    cursorSecret: c.cursorSecret ? '(set)' : '(generated, kept in data dir)',
    rpcUrl: c.rpcUrl ? mask(c.rpcUrl) : null,
    wsUrl: c.wsUrl ? mask(c.wsUrl) : null,
  };
}
