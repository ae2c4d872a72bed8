/**
 * `@chain-indexer/indexer/testing`: what the repository's own end-to-end suites and load benches
 * reach below the front doors — a chain's store opened directly, the ingest status shape, the
 * decode worker's block shaping and root checks, the live stages, the tables' sizes. Loads build
 * code: never imported by app/ (front-doors test).
 */

/** The ingest status a chain reports before its first block. */
export { initialIngestStatus } from '../ingest/index.js';
/** The live block's timeline stages (indexer_ingest_live_stage_seconds). */
export { LIVE_STAGES } from '../ingest/timeline.js';
/** Opens a chain's RocksDB store (storage/index.ts) outside a running service. */
export { createStore } from '../storage/index.js';
/** What the history pruner left per versioned table of a stopped store (tools/history-versions). */
export { type HistoryVersions, historyVersions } from '../tools/history-versions.js';
/** Bytes per table of a store (tools/table-sizes). */
export { type TableSize, tableSizes } from '../tools/table-sizes.js';
/** A block as the decode worker shapes it from RPC, and its rows encoded. */
export { encodeRows, shapeBlock } from '../workers/decode/fetch-blocks.js';
/** The decode worker's check of a block's transactions and receipts roots. */
export { checkRoots } from '../workers/decode/roots.js';
