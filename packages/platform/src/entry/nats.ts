/** `@chain-indexer/platform/nats`: connecting to NATS from a configured URL list. */

/** NATS_URL (a comma-separated list, credentials allowed) → the client's connect options. */
export { type NatsConnectOptions, natsConnectOptions } from '../nats-url.js';
