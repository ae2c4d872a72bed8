/**
 * `@chain-indexer/indexer/replication`: scale-out over NATS (the writer's change log, replicas
 * following it). Loaded only when NATS_URL is set.
 */

/** Connects to NATS (NATS_URL), with the service's logger. */
export { connectNats } from '../replication/index.js';
/** The JetStream stream name of a chain's change log. */
export { streamOf } from '../replication/names.js';
