/**
 * The per-chain instruments of ingest (label `chain`): defined once, registered where they are
 * recorded — in a chain's ingest engine thread (its own prom-client registry, merged into the
 * loopback scrape by the main thread) or, on a read replica, in the main thread's registry.
 */
import type client from 'prom-client';
import { instruments } from './define.js';

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
  const { counter, histogram } = instruments(registry);
  return {
    rpcDuration: histogram(
      'indexer_rpc_request_duration_seconds',
      'JSON-RPC request latency by chain, method and outcome',
      ['chain', 'method', 'outcome'],
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    ),
    rpcRetries: counter(
      'indexer_rpc_retries_total',
      'JSON-RPC retries (429, 5xx, timeouts, dropped connections) by chain and method',
      ['chain', 'method'],
    ),
    blocksCommitted: counter('indexer_ingest_blocks_total', 'Blocks committed', ['chain']),
    eventsCommitted: counter('indexer_ingest_events_total', 'Logs committed', ['chain']),
    commitStageSeconds: counter(
      'indexer_ingest_commit_stage_seconds_total',
      'Main-thread time of block commits by stage (chain, one per projection, write), seconds',
      ['chain', 'stage'],
    ),
    blockCommitSeconds: histogram(
      'indexer_ingest_block_commit_seconds',
      'Main-thread time of one block commit (all stages, pauses excluded) by transaction count class, seconds',
      ['chain', 'size'],
      [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5],
    ),
    liveStageSeconds: histogram(
      'indexer_ingest_live_stage_seconds',
      'Wall time of each step of a live block from the head poll to visible (plan, queue, fetch, verify, shape, encode, handoff, wait, build, write; total = all), seconds',
      ['chain', 'stage'],
      [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
    ),
    segmentsCommitted: counter(
      'indexer_ingest_segments_total',
      'History segments committed (many final blocks in one write, no undo)',
      ['chain'],
    ),
    modeBlocks: counter(
      'indexer_ingest_mode_blocks_total',
      'Blocks committed by ingest mode: history (segments) or live (block by block)',
      ['chain', 'mode'],
    ),
    modeTransactions: counter(
      'indexer_ingest_mode_transactions_total',
      'Transactions committed by ingest mode: history (segments) or live (block by block)',
      ['chain', 'mode'],
    ),
    reorgs: histogram(
      'indexer_ingest_reorg_depth_blocks',
      'Reorgs by depth (blocks rolled back)',
      ['chain'],
      [1, 2, 4, 8, 16, 32, 64, 128],
    ),
    nodeFaults: counter(
      'indexer_ingest_node_faults_total',
      'Node faults: the node could no longer return a block it served (block_missing) or named a parent it does not have (parent_missing); ingest pauses on each',
      ['chain', 'kind'],
    ),
    stageSeconds: histogram(
      'indexer_ingest_stage_seconds',
      'Wall time of each ingest stage per block (link, prepare, apply) and of its driver commit (a history segment write counts on the block that closed it), by driver (history, live), seconds',
      ['chain', 'driver', 'stage'],
      [0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
    ),
    marketsFirstSight: counter(
      'indexer_markets_first_sight_pools_total',
      'Pools first seen after START_BLOCK by protocol and outcome (registered, not_a_pool, not_configured_factory, factory_mismatch, no_initialize_log, node_error)',
      ['chain', 'protocol', 'outcome'],
    ),
  };
}
