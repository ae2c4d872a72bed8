/**
 * The gauges ops alert on (ops/prometheus/alerts.yml) beside the ingest and storage ones of
 * `index.ts`: follower state, projection status and lag, replica lag, the reconciliation verdict
 * of the chain's standard tokens (USD stablecoins and wrapped native: their balances must equal
 * the sums of their Transfer events, so a divergence there is an index fault, not a token
 * quirk), and the free space of the data directory's filesystem. Every gauge is read at scrape
 * time from the chain's own status objects; nothing here is sampled in between.
 */

import { statfsSync } from 'node:fs';
import type client from 'prom-client';
import type { FidelityStatus } from '../tokens/index.js';
import { chainGauge, instruments } from './define.js';

export const INGEST_STATES = ['starting', 'backfilling', 'following', 'halted', 'paused'] as const;
export const PROJECTION_STATUSES = ['building', 'ready', 'stale', 'disabled'] as const;
export const REPLICA_STATES = [
  'bootstrapping',
  'catching_up',
  'following',
  'disconnected',
  'failed',
] as const;
export const FIDELITY_STATUSES: readonly FidelityStatus[] = [
  'exact',
  'diverges',
  'not_yet_checked',
  'not_checkable',
];

/** What the ops gauges read of one chain; every field but `name` and `ingest` is optional. */
export interface OpsGaugeSource {
  name: string;
  /** The follower's state and last reorg depth (src/ingest status). */
  ingest(): { state: (typeof INGEST_STATES)[number]; lastReorgDepth: number };
  /** Each projection's status and blocks behind the node head (the /health records). */
  projections?(): ReadonlyArray<{ name: string; status: string; lagBlocks: number | null }>;
  /** The replica's state and lag behind its writer; null unless ROLE=replica. */
  replica?(): { state: string; lagSeconds: number; maxLagSeconds: number } | null;
  /** The last reconciliation verdict of each standard token of the chain (address, symbol). */
  standardTokens?(): ReadonlyArray<{ token: string; symbol: string | null; status: FidelityStatus }>;
  /** A directory on the filesystem that holds the chain's store (statfs of it). */
  dataDir?: string;
}

/** One-hot gauge: `value 1` on the current label value, 0 on the others (so `== 1` selects it). */
function oneHot(
  g: client.Gauge<string>,
  labels: Record<string, string>,
  key: string,
  all: readonly string[],
  current: string,
) {
  for (const v of all) g.set({ ...labels, [key]: v }, v === current ? 1 : 0);
}

/** Registers the ops gauges on `registry`, reading `chains()` at each scrape. */
export function registerOpsGauges(registry: client.Registry, chains: () => readonly OpsGaugeSource[]): void {
  const { gauge } = instruments(registry);
  gauge(
    'indexer_ingest_state',
    'Follower state, one-hot: 1 on the current state (starting, backfilling, following, halted)',
    ['chain', 'state'],
    (m) => {
      for (const c of chains()) oneHot(m, { chain: c.name }, 'state', INGEST_STATES, c.ingest().state);
    },
  );
  chainGauge(
    registry,
    chains,
    'indexer_ingest_last_reorg_depth_blocks',
    'Depth of the last reorg rolled back, blocks (0 before any)',
    (c) => c.ingest().lastReorgDepth,
  );
  gauge(
    'indexer_projection_status',
    'Projection status, one-hot: 1 on the current status (building, ready, stale, disabled)',
    ['chain', 'projection', 'status'],
    (m) => {
      m.reset();
      for (const c of chains())
        for (const p of c.projections?.() ?? [])
          oneHot(m, { chain: c.name, projection: p.name }, 'status', PROJECTION_STATUSES, p.status);
    },
  );
  gauge(
    'indexer_projection_lag_blocks',
    'Blocks a projection is behind the node head (absent while unknown)',
    ['chain', 'projection'],
    (m) => {
      m.reset();
      for (const c of chains())
        for (const p of c.projections?.() ?? [])
          if (p.lagBlocks !== null) m.set({ chain: c.name, projection: p.name }, p.lagBlocks);
    },
  );
  registerReplicaGauges(registry, chains);
  gauge(
    'indexer_tokens_standard_reconciliation',
    'Last reconciliation verdict of each standard token (USD stablecoins, wrapped native), one-hot by status (exact, diverges, not_yet_checked, not_checkable)',
    ['chain', 'token', 'symbol', 'status'],
    (m) => {
      m.reset();
      for (const c of chains())
        for (const t of c.standardTokens?.() ?? [])
          oneHot(
            m,
            { chain: c.name, token: t.token, symbol: t.symbol ?? '' },
            'status',
            FIDELITY_STATUSES,
            t.status,
          );
    },
  );
  registerDiskGauges(registry, chains);
}

function registerReplicaGauges(registry: client.Registry, chains: () => readonly OpsGaugeSource[]): void {
  const { gauge } = instruments(registry);
  const replicas = () =>
    chains().flatMap((c) => {
      const r = c.replica?.() ?? null;
      return r ? [{ chain: c.name, ...r }] : [];
    });
  gauge(
    'indexer_replication_lag_seconds',
    'Seconds a read replica is behind its writer (ROLE=replica only)',
    ['chain'],
    (m) => {
      m.reset();
      for (const r of replicas()) m.set({ chain: r.chain }, r.lagSeconds);
    },
  );
  gauge(
    'indexer_replication_max_lag_seconds',
    'REPLICA_MAX_LAG_SECONDS: past this lag the replica answers 503 replica_lagging (ROLE=replica only)',
    ['chain'],
    (m) => {
      m.reset();
      for (const r of replicas()) m.set({ chain: r.chain }, r.maxLagSeconds);
    },
  );
  gauge(
    'indexer_replication_state',
    'Replica state, one-hot (bootstrapping, catching_up, following, disconnected, failed; ROLE=replica only)',
    ['chain', 'state'],
    (m) => {
      m.reset();
      for (const r of replicas()) oneHot(m, { chain: r.chain }, 'state', REPLICA_STATES, r.state);
    },
  );
}

function registerDiskGauges(registry: client.Registry, chains: () => readonly OpsGaugeSource[]): void {
  const { gauge } = instruments(registry);
  const stats = () =>
    chains().flatMap((c) => {
      if (!c.dataDir) return [];
      try {
        const s = statfsSync(c.dataDir);
        return [{ chain: c.name, free: s.bavail * s.bsize, size: s.blocks * s.bsize }];
      } catch {
        return [];
      }
    });
  gauge(
    'indexer_storage_filesystem_avail_bytes',
    "Bytes available to the service on the filesystem of the chain's data directory",
    ['chain'],
    (m) => {
      m.reset();
      for (const s of stats()) m.set({ chain: s.chain }, s.free);
    },
  );
  gauge(
    'indexer_storage_filesystem_size_bytes',
    "Size of the filesystem of the chain's data directory, bytes",
    ['chain'],
    (m) => {
      m.reset();
      for (const s of stats()) m.set({ chain: s.chain }, s.size);
    },
  );
}
