/**
 * The per-chain instruments of ingest (label `chain`): defined once, registered where they are
 * recorded — in a chain's ingest engine thread (its own prom-client registry, merged into the
 * loopback scrape by the main thread) or, on a read replica, in the main thread's registry.
 */
import client from 'prom-client';

/** The per-chain instruments a chain's follower and RPC client record into (label `chain`). */
export interface ChainMetrics {
  rpcDuration: client.Histogram<'chain' | 'method' | 'outcome'>;
  rpcRetries: client.Counter<'chain' | 'method'>;
  blocksCommitted: client.Counter<'chain'>;
  eventsCommitted: client.Counter<'chain'>;
  /** Main-thread seconds spent committing blocks, by stage (chain records, each projection, write). */
  commitStageSeconds: client.Counter<'chain' | 'stage'>;
  /**
   * Main-thread time of one block's commit (every stage, pauses excluded), seconds, by the block's
   * transaction count class (`size`: `0-49`, `50-149`, `150+`).
   */
  blockCommitSeconds: client.Histogram<'chain' | 'size'>;
  /** Steps of a live block from head poll to visible (ingest/timeline.ts), seconds. */
  liveStageSeconds: client.Histogram<'chain' | 'stage'>;
  /**
   * Wall time of each ingest stage per block (link, prepare, apply) and of the driver's commit, by
   * driver (`history`, `live`), seconds (ingest/stage.ts).
   */
  stageSeconds: client.Histogram<'chain' | 'driver' | 'stage'>;
  reorgs: client.Histogram<'chain'>;
  /** History segments committed. */
  segmentsCommitted: client.Counter<'chain'>;
  /** Blocks and transactions committed, by mode (`history` segments or the `live` window). */
  modeBlocks: client.Counter<'chain' | 'mode'>;
  modeTransactions: client.Counter<'chain' | 'mode'>;
  /** Pools first seen after START_BLOCK, by protocol and outcome (`registered` or why not). */
  marketsFirstSight: client.Counter<'chain' | 'protocol' | 'outcome'>;
  /** Node faults found (ingest/node-check.ts): `block_missing` or `parent_missing`. */
  nodeFaults: client.Counter<'chain' | 'kind'>;
}

/** Creates the chain instruments in `registry`. */
export function createChainMetrics(registry: client.Registry): ChainMetrics {
  const rpcDuration = new client.Histogram({
    name: 'indexer_rpc_request_duration_seconds',
    help: 'JSON-RPC request latency by chain, method and outcome',
    labelNames: ['chain', 'method', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [registry],
  });
  const rpcRetries = new client.Counter({
    name: 'indexer_rpc_retries_total',
    help: 'JSON-RPC retries (429, 5xx, timeouts, dropped connections) by chain and method',
    labelNames: ['chain', 'method'],
    registers: [registry],
  });
  const blocksCommitted = new client.Counter({
    name: 'indexer_ingest_blocks_total',
    help: 'Blocks committed',
    labelNames: ['chain'],
    registers: [registry],
  });
  const eventsCommitted = new client.Counter({
    name: 'indexer_ingest_events_total',
    help: 'Logs committed',
    labelNames: ['chain'],
    registers: [registry],
  });
  const commitStageSeconds = new client.Counter({
    name: 'indexer_ingest_commit_stage_seconds_total',
    help: 'Main-thread time of block commits by stage (chain, one per projection, write), seconds',
    labelNames: ['chain', 'stage'],
    registers: [registry],
  });
  const blockCommitSeconds = new client.Histogram({
    name: 'indexer_ingest_block_commit_seconds',
    help: 'Main-thread time of one block commit (all stages, pauses excluded) by transaction count class, seconds',
    labelNames: ['chain', 'size'],
    buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5],
    registers: [registry],
  });
  const liveStageSeconds = new client.Histogram({
    name: 'indexer_ingest_live_stage_seconds',
    help: 'Wall time of each step of a live block from the head poll to visible (plan, queue, fetch, verify, shape, encode, handoff, wait, build, write; total = all), seconds',
    labelNames: ['chain', 'stage'],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
    registers: [registry],
  });
  const segmentsCommitted = new client.Counter({
    name: 'indexer_ingest_segments_total',
    help: 'History segments committed (many final blocks in one write, no undo)',
    labelNames: ['chain'],
    registers: [registry],
  });
  const modeBlocks = new client.Counter({
    name: 'indexer_ingest_mode_blocks_total',
    help: 'Blocks committed by ingest mode: history (segments) or live (block by block)',
    labelNames: ['chain', 'mode'],
    registers: [registry],
  });
  const modeTransactions = new client.Counter({
    name: 'indexer_ingest_mode_transactions_total',
    help: 'Transactions committed by ingest mode: history (segments) or live (block by block)',
    labelNames: ['chain', 'mode'],
    registers: [registry],
  });
  const reorgs = new client.Histogram({
    name: 'indexer_ingest_reorg_depth_blocks',
    help: 'Reorgs by depth (blocks rolled back)',
    labelNames: ['chain'],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const nodeFaults = new client.Counter({
    name: 'indexer_ingest_node_faults_total',
    help: 'Node faults: the node could no longer return a block it served (block_missing) or named a parent it does not have (parent_missing); ingest pauses on each',
    labelNames: ['chain', 'kind'],
    registers: [registry],
  });
  const stageSeconds = new client.Histogram({
    name: 'indexer_ingest_stage_seconds',
    help: 'Wall time of each ingest stage per block (link, prepare, apply) and of its driver commit (a history segment write counts on the block that closed it), by driver (history, live), seconds',
    labelNames: ['chain', 'driver', 'stage'],
    buckets: [0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
    registers: [registry],
  });
  const marketsFirstSight = new client.Counter({
    name: 'indexer_markets_first_sight_pools_total',
    help: 'Pools first seen after START_BLOCK by protocol and outcome (registered, not_a_pool, not_configured_factory, factory_mismatch, no_initialize_log, node_error)',
    labelNames: ['chain', 'protocol', 'outcome'],
    registers: [registry],
  });
  return {
    rpcDuration,
    rpcRetries,
    blocksCommitted,
    eventsCommitted,
    commitStageSeconds,
    blockCommitSeconds,
    liveStageSeconds,
    stageSeconds,
    reorgs,
    segmentsCommitted,
    modeBlocks,
    modeTransactions,
    marketsFirstSight,
    nodeFaults,
  };
}
