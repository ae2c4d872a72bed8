/**
 * The gauges ops alert on (ops/prometheus/alerts.yml) beside the ingest and storage ones of
 * `index.ts`: follower state, projection status and lag, replica lag, the reconciliation verdict
 * of the chain's standard tokens (USD stablecoins and wrapped native: their balances must equal
 * the sums of their Transfer events, so a divergence there is an index fault, not a token
 * quirk), and the free space of the data directory's filesystem. Every gauge is read at scrape
 * time from the chain's own status objects; nothing here is sampled in between.
 */

import { statfsSync } from 'node:fs';
import client from 'prom-client';
import type { FidelityStatus } from '../tokens/index.js';

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
  new client.Gauge({
    name: 'indexer_ingest_state',
    help: 'Follower state, one-hot: 1 on the current state (starting, backfilling, following, halted)',
    labelNames: ['chain', 'state'],
    registers: [registry],
    collect() {
      for (const c of chains()) oneHot(this, { chain: c.name }, 'state', INGEST_STATES, c.ingest().state);
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_last_reorg_depth_blocks',
    help: 'Depth of the last reorg rolled back, blocks (0 before any)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of chains()) this.set({ chain: c.name }, c.ingest().lastReorgDepth);
    },
  });
  new client.Gauge({
    name: 'indexer_projection_status',
    help: 'Projection status, one-hot: 1 on the current status (building, ready, stale, disabled)',
    labelNames: ['chain', 'projection', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains())
        for (const p of c.projections?.() ?? [])
          oneHot(this, { chain: c.name, projection: p.name }, 'status', PROJECTION_STATUSES, p.status);
    },
  });
  new client.Gauge({
    name: 'indexer_projection_lag_blocks',
    help: 'Blocks a projection is behind the node head (absent while unknown)',
    labelNames: ['chain', 'projection'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains())
        for (const p of c.projections?.() ?? [])
          if (p.lagBlocks !== null) this.set({ chain: c.name, projection: p.name }, p.lagBlocks);
    },
  });
  registerReplicaGauges(registry, chains);
  new client.Gauge({
    name: 'indexer_tokens_standard_reconciliation',
    help: 'Last reconciliation verdict of each standard token (USD stablecoins, wrapped native), one-hot by status (exact, diverges, not_yet_checked, not_checkable)',
    labelNames: ['chain', 'token', 'symbol', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains())
        for (const t of c.standardTokens?.() ?? [])
          oneHot(
            this,
            { chain: c.name, token: t.token, symbol: t.symbol ?? '' },
            'status',
            FIDELITY_STATUSES,
            t.status,
          );
    },
  });
  registerDiskGauges(registry, chains);
}

function registerReplicaGauges(registry: client.Registry, chains: () => readonly OpsGaugeSource[]): void {
  const replicas = () =>
    chains().flatMap((c) => {
      const r = c.replica?.() ?? null;
      return r ? [{ chain: c.name, ...r }] : [];
    });
  new client.Gauge({
    name: 'indexer_replication_lag_seconds',
    help: 'Seconds a read replica is behind its writer (ROLE=replica only)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicas()) this.set({ chain: r.chain }, r.lagSeconds);
    },
  });
  new client.Gauge({
    name: 'indexer_replication_max_lag_seconds',
    help: 'REPLICA_MAX_LAG_SECONDS: past this lag the replica answers 503 replica_lagging (ROLE=replica only)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicas()) this.set({ chain: r.chain }, r.maxLagSeconds);
    },
  });
  new client.Gauge({
    name: 'indexer_replication_state',
    help: 'Replica state, one-hot (bootstrapping, catching_up, following, disconnected, failed; ROLE=replica only)',
    labelNames: ['chain', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const r of replicas()) oneHot(this, { chain: r.chain }, 'state', REPLICA_STATES, r.state);
    },
  });
}

function registerDiskGauges(registry: client.Registry, chains: () => readonly OpsGaugeSource[]): void {
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
  new client.Gauge({
    name: 'indexer_storage_filesystem_avail_bytes',
    help: "Bytes available to the service on the filesystem of the chain's data directory",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ chain: s.chain }, s.free);
    },
  });
  new client.Gauge({
    name: 'indexer_storage_filesystem_size_bytes',
    help: "Size of the filesystem of the chain's data directory, bytes",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats()) this.set({ chain: s.chain }, s.size);
    },
  });
}
