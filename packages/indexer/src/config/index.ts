/**
 * Configuration: user-facing optional environment variables resolved once, at start-up, into
 * required fields, validated, and printed (secrets masked).
 */

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
import { DEFAULT_ROCKS_TUNING, type RocksTuning } from '../storage/index.js';

/** A cursor secret: hex of at least 32 bytes. */
export const CURSOR_SECRET_RE = /^(?:[0-9a-fA-F]{2}){32,}$/;
/** An embedded devnet (anvil with the project's deployment and traffic). */
export interface DevnetConfig {
  port: number;
  /** anvil --chain-id (31337 for the first devnet, then 31338, …). */
  chainId: number;
  blockTimeMs: number;
  seed: number;
  txPerSecond: number;
}

/** One served chain, resolved: everything its follower, store and routes need. */
export interface ChainConfig {
  /** Chain name served under /index/v1/{chain}. */
  name: string;
  /** JSON-RPC URL of the node; null = the embedded devnet `devnet` describes. */
  rpcUrl: string | null;
  /**
   * Further nodes of the chain, in order (chains file `rpcUrls`: the first is `rpcUrl`, the
   * primary): ingest moves to the next one when its node contradicts itself (ingest/node-check.ts).
   * Empty: `rpcUrl` alone.
   */
  rpcUrls: string[];
  /** Period of the node-consistency check, ms (NODE_CHECK_INTERVAL_MS; 0: on request only). */
  nodeCheckIntervalMs: number;
  /** WebSocket URL for newHeads; null = derived from the RPC URL; 'off' = polling only. */
  wsUrl: string | null;
  /** The chain's own data directory (RocksDB under `rocks/`, devnet state under `devnet/`). */
  dataDir: string;
  startBlock: number;
  /** Blocks of undo data kept: the deepest reorg that can be rolled back. */
  unfinalisedWindow: number;
  /**
   * HISTORY_RETENTION: blocks below the head an as-of read (`atBlock`) may name; null = `all`
   * (default), every indexed block; `off` (or 0) = the chain's unfinalised window. Enforced on
   * reads (410 history_pruned), and the stored versions no read in range reaches are pruned down to
   * head − max(this, unfinalisedWindow) (storage/history-prune.ts).
   */
  historyRetention: number | null;
  /** Whether the traces lane replays blocks (debug_trace*). */
  traces: boolean;
  pollMs: number;
  /** Pool factories and quote assets (JSON file); null = built-in defaults for the chain id. */
  marketsFile: string | null;
  /** Launchpad deployments (JSON file); null = none (the devnet registers its own). */
  launchpadsFile: string | null;
  devnet: DevnetConfig | null;
}

/** What this process does (scale-out, ops/SCALE-OUT.md). */
export type Role = 'all' | 'writer' | 'replica';

export interface Config {
  /**
   * `all` (default): follow the nodes and serve, no NATS. `writer`: the same, and publish every
   * chain's change log and snapshots on NATS. `replica`: no node for ingest; apply the writers'
   * logs from NATS and serve REST, batch and streams.
   */
  role: Role;
  /** NATS servers (comma list); required for writer and replica. */
  natsUrl: string | null;
  /** Writer: seconds between snapshots (replicas join from the newest). */
  snapshotSeconds: number;
  /** Replica: lag past which anchored routes answer 503 replica_lagging, seconds. */
  replicaMaxLagSeconds: number;
  /** Every served chain, in configuration order (the first answers the root routes' defaults). */
  chains: ChainConfig[];
  /** Where the chains came from: CHAINS_FILE, the single-chain variables, or the embedded devnet. */
  chainsSource: 'chains_file' | 'single_chain_env' | 'embedded_devnet';
  host: string;
  port: number;
  metricsPort: number;
  dataDir: string;
  /** Dev key with every scope (embedded default), from DEV_API_KEY or generated. */
  devApiKey: string | null;
  devApiKeyGenerated: boolean;
  keysFile: string | null;
  /** JSON array of wallets screened out of cohorts (entity overrides). */
  overridesFile: string | null;
  /** JSON object address → labels. */
  labelsFile: string | null;
  /**
   * Hex secret (≥ 32 bytes) of cursor MACs; null = generated once per chain and kept in its data
   * directory (ROLE=all only: a writer and its replicas share CURSOR_SECRET).
   */
  cursorSecret: string | null;
  blocksPerTask: number;
  decodeThreads: number;
  logLevel: string;
  /** Period of the balance/supply reconciliation against the node, milliseconds. */
  reconcileIntervalMs: number;
  /**
   * Nice value of every thread but the serving one (INGEST_NICE, 0–19, default 10; 0: off): on a
   * machine with fewer cores than runnable threads the kernel serves reads first and builds the
   * index with what is left (platform thread-priority.ts; Linux).
   */
  ingestNice: number;
  /** RocksDB tuning of every chain's store (ROCKSDB_COMPRESSION, ROCKSDB_CACHE_MB, ROCKSDB_INDEX_IN_CACHE). */
  storageTuning: RocksTuning;
  /** The two ingest modes and the write side (see src/ingest/drivers/ and docs/ingest.md). */
  ingestTuning: IngestTuning;
  /**
   * TRUSTED_PROXIES, shared with the scanner (platform/src/proxy.ts): peers whose proxy headers
   * are believed. Default none.
   */
  trustedProxies: Cidr[];
  /**
   * TRUSTED_PROXY_HEADER, shared with the scanner (platform/src/proxy.ts): the one header the
   * trusted proxies write the client's address in, `x-forwarded-for` (default) or `forwarded`;
   * the other is never read.
   */
  trustedProxyHeader: TrustedProxyHeader;
  /**
   * HTTP_MAX_CONNECTIONS (platform/src/http-limits.ts): open connections each listener accepts on
   * the node:http stand-in (default 4096); native uWS has no such setting.
   */
  httpMaxConnections: number;
}

/** Ingest's write side: history segments, the state cache and the writer thread. */
export interface IngestTuning {
  /** History segment bound, bytes of pending writes (SEGMENT_MB, MiB). */
  segmentBytes: number;
  /** History segment bound, blocks (SEGMENT_BLOCKS). */
  segmentBlocks: number;
  /** Blocks before the hand-over whose stream frames history mode still makes (HISTORY_FRAME_BLOCKS). */
  historyFrameBlocks: number;
  /** Bound of the ingest's state cache, bytes (STATE_CACHE_MB, MiB). */
  stateCacheBytes: number;
  /** Who commits writes: the writer thread (default) or the main thread (STORAGE_WRITER=sync). */
  writer: 'thread' | 'sync';
  /**
   * What makes a block history (FINALITY): `tag` — final by the node's `finalized` tag and below
   * the window; `window` — below the window alone.
   */
  finality: 'tag' | 'window';
  /**
   * Whether the decode workers hold every block to its header's roots before it is committed
   * (VERIFY_ROOTS=on|off, on by default; src/workers/decode/roots.ts).
   */
  verifyRoots: boolean;
  /**
   * Old-generation bound of the ingest engine thread's heap, MiB (ENGINE_HEAP_MB): the thread that
   * builds the index has an owner and a ceiling (its heap is in the metrics).
   */
  engineHeapMb: number;
  /** Old-generation bound of each decode thread's heap, MiB (DECODE_HEAP_MB). */
  decodeHeapMb: number;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** A chain name: the `{chain}` path segment. */
const CHAIN_NAME = /^[a-z0-9-]{1,32}$/;
/** Embedded devnets at most (DEVNET_CHAINS): each is an anvil process with its own traffic. */
const MAX_DEVNETS = 4;

/** One entry of CHAINS_FILE (JSON array). */
interface ChainsFileEntry {
  name: string;
  rpcUrl?: string;
  rpcUrls?: string[];
  wsUrl?: string;
  startBlock?: number;
  unfinalisedWindow?: number;
  traces?: boolean;
  pollMs?: number;
  marketsFile?: string;
  launchpadsFile?: string;
}

function chainsFromFile(
  file: string,
  dataDir: string,
  replica: boolean,
  nodeCheckIntervalMs: number,
): Array<Omit<ChainConfig, 'historyRetention'>> {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new Error(`CHAINS_FILE ${file}: expected a non-empty JSON array`);
  const known = new Set([
    'name',
    'rpcUrl',
    'rpcUrls',
    'wsUrl',
    'startBlock',
    'unfinalisedWindow',
    'traces',
    'pollMs',
    'marketsFile',
    'launchpadsFile',
  ]);
  return raw.map((e: ChainsFileEntry, i) => {
    const where = `CHAINS_FILE ${file} [${i}]`;
    for (const k of Object.keys(e)) if (!known.has(k)) throw new Error(`${where}: unknown field "${k}"`);
    if (!CHAIN_NAME.test(e.name ?? '')) throw new Error(`${where}: name must match [a-z0-9-]{1,32}`);
    if (e.rpcUrls !== undefined) {
      if (
        !Array.isArray(e.rpcUrls) ||
        !e.rpcUrls.length ||
        !e.rpcUrls.every((u) => typeof u === 'string' && u)
      )
        throw new Error(`${where}: rpcUrls must be a non-empty array of URLs (the first is the primary)`);
      if (e.rpcUrl && e.rpcUrl !== e.rpcUrls[0])
        throw new Error(`${where}: rpcUrl must be the first of rpcUrls (or leave rpcUrl out)`);
    }
    const primary = e.rpcUrl ?? e.rpcUrls?.[0];
    if (!primary && !replica) throw new Error(`${where}: rpcUrl (or rpcUrls) is required`);
    const num = (v: number | undefined, name: string, def: number, min: number) => {
      if (v === undefined) return def;
      if (!Number.isSafeInteger(v) || v < min)
        throw new Error(`${where}: ${name} must be an integer ≥ ${min}`);
      return v;
    };
    return {
      name: e.name,
      rpcUrl: primary ?? null,
      rpcUrls: e.rpcUrls ?? [],
      nodeCheckIntervalMs,
      wsUrl: e.wsUrl ?? null,
      dataDir: join(dataDir, 'chains', e.name),
      startBlock: num(e.startBlock, 'startBlock', 0, 0),
      unfinalisedWindow: num(e.unfinalisedWindow, 'unfinalisedWindow', 128, 2),
      traces: e.traces ?? true,
      pollMs: num(e.pollMs, 'pollMs', 500, 10),
      marketsFile: e.marketsFile ? resolve(e.marketsFile) : null,
      launchpadsFile: e.launchpadsFile ? resolve(e.launchpadsFile) : null,
      devnet: null,
    };
  });
}

/**
 * Every secret value of a resolved configuration: the secret parts of each node and NATS URL
 * ({@link secretsOfUrl}), the dev key and the cursor secret (both cases of its hex).
 */
export function configSecrets(c: Config): string[] {
  return [
    ...c.chains.flatMap((ch) => [ch.rpcUrl, ...ch.rpcUrls, ch.wsUrl].flatMap(secretsOfUrl)),
    ...secretsOfUrl(c.natsUrl),
    ...[c.devApiKey, c.cursorSecret].filter((v): v is string => !!v),
    ...(c.cursorSecret ? [c.cursorSecret.toLowerCase(), c.cursorSecret.toUpperCase()] : []),
  ];
}

/**
 * Resolves the configuration from `env`, and records its secrets with the one redaction
 * ({@link configSecrets} → `rememberSecrets`): from here on they are masked by value in every
 * log line, error body and /health field.
 * @throws Error naming the bad variable.
 */
export function loadConfig(env: NodeJS.ProcessEnv, generateKey: () => string): Config {
  const c = resolveConfig(env, generateKey);
  rememberSecrets(configSecrets(c));
  return c;
}

/**
 * RocksDB tuning from `ROCKSDB_COMPRESSION`, `ROCKSDB_CACHE_MB` (MiB), `ROCKSDB_INDEX_IN_CACHE`,
 * `ROCKSDB_COMPACTION` and the memtable budget; unset fields take {@link DEFAULT_ROCKS_TUNING}.
 * @throws Error naming the bad variable.
 */
function storageTuningFromEnv(env: NodeJS.ProcessEnv): RocksTuning {
  return {
    compression: oneOf(
      env,
      'ROCKSDB_COMPRESSION',
      ['zstd', 'bottom', 'off'] as const,
      DEFAULT_ROCKS_TUNING.compression,
    ),
    cacheMb: int(env, 'ROCKSDB_CACHE_MB', DEFAULT_ROCKS_TUNING.cacheMb, 8, 65_536),
    indexInCache:
      oneOf(
        env,
        'ROCKSDB_INDEX_IN_CACHE',
        ['on', 'off'] as const,
        DEFAULT_ROCKS_TUNING.indexInCache ? 'on' : 'off',
      ) === 'on',
    compaction: oneOf(
      env,
      'ROCKSDB_COMPACTION',
      ['default', 'level', 'universal'] as const,
      DEFAULT_ROCKS_TUNING.compaction ?? 'default',
    ),
    memtableMb: envMemtable(env),
  };
}

/**
 * Ingest tuning from the environment: segment size (`SEGMENT_MB`, stored in bytes) and span,
 * history frame span, state cache (`STATE_CACHE_MB`, stored in bytes), writer mode, finality,
 * root verification and the worker heaps (MiB).
 * @throws Error naming the bad variable.
 */
function ingestTuningFromEnv(env: NodeJS.ProcessEnv): IngestTuning {
  return {
    segmentBytes: int(env, 'SEGMENT_MB', 32, 1, 4_096) * 1024 * 1024,
    segmentBlocks: int(env, 'SEGMENT_BLOCKS', 1_000, 1, 1_000_000),
    historyFrameBlocks: int(env, 'HISTORY_FRAME_BLOCKS', 256, 0, 1_000_000),
    stateCacheBytes: int(env, 'STATE_CACHE_MB', 48, 1, 65_536) * 1024 * 1024,
    writer: oneOf(env, 'STORAGE_WRITER', ['thread', 'sync'] as const, 'thread'),
    finality: oneOf(env, 'FINALITY', ['tag', 'window'] as const, 'tag'),
    verifyRoots: oneOf(env, 'VERIFY_ROOTS', ['on', 'off'] as const, 'on') === 'on',
    engineHeapMb: int(env, 'ENGINE_HEAP_MB', 2048, 64, 65_536),
    decodeHeapMb: int(env, 'DECODE_HEAP_MB', 1024, 32, 65_536),
  };
}

/**
 * HISTORY_RETENTION: `all` (default) → null, `off` or `0` → 'off' (the chain's unfinalised window,
 * resolved per chain by {@link withRetention}), or a whole number of blocks ≥ 1 an as-of read may
 * reach below the head. @throws Error on anything else.
 */
function historyRetentionFromEnv(env: NodeJS.ProcessEnv): number | null | 'off' {
  const raw = (env.HISTORY_RETENTION ?? 'all').trim();
  if (raw === 'all') return null;
  if (raw === 'off' || raw === '0') return 'off';
  if (!/^[1-9][0-9]{0,14}$/.test(raw))
    throw new Error(`HISTORY_RETENTION must be "all", "off" or a number of blocks ≥ 1, got "${raw}"`);
  return Number(raw);
}

/**
 * A chain with HISTORY_RETENTION `r` resolved: `off` keeps as-of reads to the chain's unfinalised
 * window (the blocks a rollback may still change), so nothing below it is kept.
 */
function withRetention<C extends Omit<ChainConfig, 'historyRetention'>>(
  c: C,
  r: number | null | 'off',
): C & { historyRetention: number | null } {
  return { ...c, historyRetention: r === 'off' ? c.unfinalisedWindow : r };
}

function resolveConfig(env: NodeJS.ProcessEnv, generateKey: () => string): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const rpcUrl = env.RPC_URL || null;
  const role = (env.ROLE || 'all') as Role;
  if (!['all', 'writer', 'replica'].includes(role))
    throw new Error(`ROLE must be all, writer or replica, got "${role}"`);
  const natsUrl = env.NATS_URL || null;
  if (role !== 'all' && !natsUrl) throw new Error(`ROLE=${role} needs NATS_URL (the NATS servers)`);
  if (natsUrl) {
    try {
      natsConnectOptions(natsUrl);
    } catch (err) {
      throw new Error(`NATS_URL: ${(err as Error).message}`);
    }
  }
  if (env.CHAINS_FILE && (rpcUrl || env.CHAIN))
    throw new Error('CHAINS_FILE and RPC_URL/CHAIN are exclusive: describe every chain in the file');
  let base: Array<Omit<ChainConfig, 'historyRetention'>>;
  let chainsSource: Config['chainsSource'];
  const retention = historyRetentionFromEnv(env);
  const perChain = {
    startBlock: int(env, 'START_BLOCK', 0, 0, 2 ** 52),
    unfinalisedWindow: int(env, 'UNFINALISED_WINDOW', 128, 2, 1_000_000),
    traces: (env.TRACES ?? 'on') !== 'off',
    wsUrl: env.WS_URL || null,
    nodeCheckIntervalMs: int(env, 'NODE_CHECK_INTERVAL_MS', 30_000, 0, 3_600_000),
  };
  if (env.CHAINS_FILE) {
    base = chainsFromFile(
      resolve(env.CHAINS_FILE),
      dataDir,
      role === 'replica',
      perChain.nodeCheckIntervalMs,
    );
    chainsSource = 'chains_file';
  } else if (rpcUrl || role === 'replica') {
    const chain = env.CHAIN || '';
    if (!chain) throw new Error('CHAIN (the chain name to serve) is required with RPC_URL or ROLE=replica');
    if (!CHAIN_NAME.test(chain)) throw new Error(`CHAIN must match [a-z0-9-]{1,32}, got "${chain}"`);
    base = [
      {
        name: chain,
        rpcUrl,
        rpcUrls: [],
        dataDir,
        ...perChain,
        pollMs: int(env, 'POLL_MS', 500, 10, 60_000),
        marketsFile: env.MARKETS_FILE || null,
        launchpadsFile: env.LAUNCHPADS_FILE || null,
        devnet: null,
      },
    ];
    chainsSource = 'single_chain_env';
  } else {
    const n = int(env, 'DEVNET_CHAINS', 1, 1, MAX_DEVNETS);
    const port = int(env, 'DEVNET_PORT', 8545, 1, 65535 - MAX_DEVNETS);
    const seed = int(env, 'DEVNET_SEED', 1, 0, 2 ** 31);
    const name0 = env.CHAIN || 'devnet';
    if (!CHAIN_NAME.test(name0)) throw new Error(`CHAIN must match [a-z0-9-]{1,32}, got "${name0}"`);
    base = Array.from({ length: n }, (_, i) => ({
      name: i === 0 ? name0 : `${name0}${i + 1}`,
      rpcUrl: null,
      rpcUrls: [],
      // The first devnet keeps the single-chain layout (DATA_DIR/rocks, DATA_DIR/devnet).
      dataDir: i === 0 ? dataDir : join(dataDir, 'chains', `${name0}${i + 1}`),
      ...perChain,
      wsUrl: null,
      pollMs: int(env, 'POLL_MS', 100, 10, 60_000),
      marketsFile: null,
      launchpadsFile: null,
      devnet: {
        port: port + i,
        chainId: 31337 + i,
        blockTimeMs: int(env, 'DEVNET_BLOCK_TIME_MS', 1000, 100, 60_000),
        seed: seed + i,
        txPerSecond: int(env, 'DEVNET_TX_PER_SECOND', 15, 0, 10_000),
      },
    }));
    chainsSource = 'embedded_devnet';
  }
  const chains: ChainConfig[] = base.map((c) => withRetention(c, retention));
  const names = new Set<string>();
  for (const c of chains) {
    if (names.has(c.name)) throw new Error(`chain "${c.name}" is configured twice`);
    names.add(c.name);
  }
  // An all-scope key is generated (and printed) only for the embedded devnet. On a real chain the
  // operator names the keys (KEYS_FILE) or, knowingly, one all-scope key (DEV_API_KEY).
  if (chainsSource !== 'embedded_devnet' && !env.KEYS_FILE && !env.DEV_API_KEY)
    throw new Error(
      'no API keys: a real chain needs KEYS_FILE (keys with their scopes), or DEV_API_KEY set explicitly to one all-scope key; no key is generated outside the embedded devnet',
    );
  const devApiKey = env.DEV_API_KEY || (chainsSource === 'embedded_devnet' ? generateKey() : null);
  const cursorSecret = env.CURSOR_SECRET || null;
  if (cursorSecret !== null && !CURSOR_SECRET_RE.test(cursorSecret))
    throw new Error(
      'CURSOR_SECRET must be hex of at least 32 bytes (64 hex digits), e.g. `openssl rand -hex 32`',
    );
  // The writer and its replicas share one secret from their config; it never travels on NATS.
  if (role !== 'all' && cursorSecret === null)
    throw new Error(
      `ROLE=${role} needs CURSOR_SECRET (the same on the writer and every replica; see ops/SCALE-OUT.md "Secrets")`,
    );
  return {
    role,
    natsUrl,
    snapshotSeconds: int(env, 'SNAPSHOT_SECONDS', 600, 5, 86_400 * 7),
    replicaMaxLagSeconds: int(env, 'REPLICA_MAX_LAG_SECONDS', 10, 1, 86_400),
    chains,
    chainsSource,
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    dataDir,
    devApiKey,
    devApiKeyGenerated: !env.DEV_API_KEY && devApiKey !== null,
    keysFile: env.KEYS_FILE || null,
    overridesFile: env.ENTITY_OVERRIDES_FILE || null,
    labelsFile: env.LABELS_FILE || null,
    cursorSecret,
    blocksPerTask: int(env, 'BLOCKS_PER_TASK', 5, 1, 1000),
    decodeThreads: int(env, 'DECODE_THREADS', 2, 1, 64),
    logLevel: env.LOG_LEVEL || 'info',
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 5_000, 100, 3_600_000),
    ingestNice: int(env, 'INGEST_NICE', 10, 0, 19),
    storageTuning: storageTuningFromEnv(env),
    trustedProxies: trustedProxiesFromEnv(env),
    trustedProxyHeader: trustedProxyHeaderFromEnv(env),
    httpMaxConnections: httpMaxConnectionsFromEnv(env),
    ingestTuning: ingestTuningFromEnv(env),
  };
}

/**
 * The config as printed at boot: every URL through the one redaction ({@link redact}: path keys of
 * node providers, userinfo, query values), keys and secrets named only by whether they are set.
 */
export function printable(c: Config): Record<string, unknown> {
  return {
    ...c,
    natsUrl: c.natsUrl ? redact(c.natsUrl) : null,
    trustedProxies: c.trustedProxies.map(formatCidr),
    devApiKey: c.devApiKey ? `(masked, ${c.devApiKey.length} chars)` : null,
    cursorSecret: c.cursorSecret ? '(set)' : '(generated, kept in data dir)',
    chains: c.chains.map((ch) => ({
      ...ch,
      rpcUrl: ch.rpcUrl ? redact(ch.rpcUrl) : null,
      rpcUrls: ch.rpcUrls.map(redact),
      wsUrl: ch.wsUrl ? redact(ch.wsUrl) : null,
    })),
  };
}

/** ROCKSDB_MEMTABLE_MB (the default tuning's when unset). */
function envMemtable(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.ROCKSDB_MEMTABLE_MB;
  if (raw === undefined || raw === '') return DEFAULT_ROCKS_TUNING.memtableMb;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 8 || n > 65_536)
    throw new Error(`ROCKSDB_MEMTABLE_MB must be an integer from 8 to 65536, got "${raw}"`);
  return n;
}
