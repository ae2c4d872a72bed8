/**
 * `@chain-indexer/indexer/chain`: opening a served chain — the service's configuration, the
 * chain's runtime (node or embedded devnet, RocksDB, engine thread), its metrics and the stream
 * slots the chains share. What the composition root (app/main.ts) wires together.
 */

/** The service's configuration from the environment, and its printable (secrets masked) form. */
export { type Config, loadConfig, printable } from '../config/index.js';
/** A chain's metrics (ingest, storage, serving) in a registry. */
export { createChainMetrics } from '../metrics/chain.js';
/** Registers a counter whose value another component reads (the scanner's, the engine's). */
export { registerCounterSource } from '../metrics/external.js';
/** What the alerting gauges read of one served chain. */
export type { OpsGaugeSource } from '../metrics/index.js';
/** The process's metrics registry and scrape, a chain's own metrics, and counters read from elsewhere. */
export { createMetrics } from '../metrics/index.js';
/** Opens a chain (writer or single process) or a read replica of one; the running chain. */
export { type ChainRuntime, openChain, openReplicaChain, type SharedDeps } from '../runtime/chain.js';
/** CURSOR_SECRET resolved (or generated and remembered for redaction) at start-up. */
export { resolveCursorSecret } from '../runtime/cursor-secret.js';
/** The bounded stream (SSE) slots of the process, and the slots shared between replicas through NATS. */
export { createStreamSlots } from '../streams/service.js';
/** Stream slots shared by every replica of a deployment (NATS KV leases). */
export { openSharedStreamSlots } from '../streams/shared-slots.js';
