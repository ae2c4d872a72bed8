/**
 * The follower's status: its types and the status of a follower that has done nothing yet. No
 * build code: what reads a status (the serving thread's /health, a replica's stand-in follower)
 * imports this module, never the follower itself (engine/serving-graph.test.ts).
 */
import type { NodeFault } from './node-check.js';
import type { Mode } from './stage.js';

/** The roots check of ingest (workers/decode/roots.ts), counted since start. */
export interface RootsStatus {
  /** VERIFY_ROOTS. */
  enabled: boolean;
  /** Blocks whose header hash, transaction hashes and both roots were rebuilt and matched. */
  verified: number;
  /** Blocks with a transaction type (or header field) the encoder does not know. */
  notCheckable: number;
  /** Blocks fetched with VERIFY_ROOTS=off. */
  unchecked: number;
  /** Decode tasks failed by a block that kept mismatching its header (each halts ingest). */
  mismatches: number;
  /** The last not-checkable block and what made it so; null before any. */
  lastNotCheckable: { block: number; types: string[] } | null;
}

/** Rates of one mode over the last progress interval. */
export interface ModeRate {
  blocksPerSecond: number;
  txPerSecond: number;
}

/** Live state of ingest, read by `/health` and metrics. */
export interface IngestStatus {
  state: 'starting' | 'backfilling' | 'following' | 'halted' | 'paused';
  haltReason: string | null;
  /** What the halt is about (roots_mismatch: the block, what mismatched, the values); null unless halted. */
  haltDetail: string | null;
  /** The roots check: enabled, and blocks by outcome. */
  roots: RootsStatus;
  /** The node fault ingest is paused on (state `paused`, haltReason `node_inconsistent`); null: none. */
  nodeFault: NodeFault | null;
  /** The node ingest reads: its position in the chain's node list (0 = primary), of how many. */
  node: { index: number; count: number };
  nodeHead: number | null;
  /** Blocks per second over the last progress interval. */
  blocksPerSecond: number;
  /** Logs per second over the last progress interval. */
  eventsPerSecond: number;
  /** Estimated seconds to reach the node head at the current rate; null when unknown. */
  etaSeconds: number | null;
  reorgs: number;
  lastReorgDepth: number;
  lastError: string | null;
  /** Whether new heads arrive by newHeads subscription (else polling). */
  headSource: 'newHeads' | 'polling';
  /** The mode of the block being applied: history segments or the live window (null: idle). */
  mode: Mode | null;
  /** Last block committed in history mode (the rollback floor; −1: none). */
  historyEnd: number;
  /** The node's `finalized` block as last read (null: no such tag). */
  finalized: number | null;
  /** History segments: bound, the last one written and the open one. */
  segments: {
    maxBlocks: number;
    maxBytes: number;
    committed: number;
    last: { from: number; to: number; blocks: number; txs: number; bytes: number } | null;
    open: { from: number; blocks: number; bytes: number } | null;
  };
  /** Rates per mode over the last progress interval. */
  rates: Record<Mode, ModeRate>;
}

/** Decode pool figures for metrics: queue depth, utilisation, task time (milliseconds). */
export interface PoolStats {
  queueSize: number;
  utilization: number;
  runTimeP50Ms: number;
  runTimeP99Ms: number;
}

/**
 * The status of a follower that has done nothing yet (state `starting`, every counter at 0): what
 * {@link createIngest} starts from, and what a test of a status reader can start from.
 */
export function initialIngestStatus(o: {
  verifyRoots: boolean;
  segmentBlocks: number;
  segmentBytes: number;
}): IngestStatus {
  return {
    state: 'starting',
    haltReason: null,
    haltDetail: null,
    roots: {
      enabled: o.verifyRoots,
      verified: 0,
      notCheckable: 0,
      unchecked: 0,
      mismatches: 0,
      lastNotCheckable: null,
    },
    nodeFault: null,
    node: { index: 0, count: 1 },
    nodeHead: null,
    blocksPerSecond: 0,
    eventsPerSecond: 0,
    etaSeconds: null,
    reorgs: 0,
    lastReorgDepth: 0,
    lastError: null,
    headSource: 'polling',
    mode: null,
    historyEnd: -1,
    finalized: null,
    segments: { maxBlocks: o.segmentBlocks, maxBytes: o.segmentBytes, committed: 0, last: null, open: null },
    rates: { history: { blocksPerSecond: 0, txPerSecond: 0 }, live: { blocksPerSecond: 0, txPerSecond: 0 } },
  };
}
