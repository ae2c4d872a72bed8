/**
 * What the chain reader returns: raw chain records exactly as the node sent them (JSON text, kept
 * byte-exact), and the typed facts the service derives from them (origin fields, L1 gas, decoded
 * views, call trees, internal transfers, timestamp bounds, ingest gaps). Units: wei and gas as
 * decimal strings, timestamps in unix seconds, addresses lowercase 0x hex.
 */
import type { CallDecoderName, CallUnknownReason, LogStandard, LogUnknownReason } from '../decode/index.js';
import type { CallFrame } from '../schema/rows/traces.js';
import type { BlockRef } from '../storage/index.js';
import type { L1Gas, L1GasReason } from './l1-gas.js';

type Hex = `0x${string}`;

/** A block that bounds a timestamp: number, canonical hash and its timestamp (unix seconds). */
export interface BlockBound {
  number: number;
  hash: Hex;
  timestamp: number;
}

/** Both named bounds of a timestamp, read against one anchor. */
export interface TimestampBounds {
  timestamp: number;
  /** The last block with timestamp ≤ T (the highest number among equal timestamps). */
  lastAtOrBefore: BlockBound | null;
  lastAtOrBeforeReason: 'before_first_indexed_block' | null;
  /** The first block with timestamp ≥ T (the lowest number among equal timestamps). */
  firstAtOrAfter: BlockBound | null;
  firstAtOrAfterReason: 'after_anchor_block' | null;
}

/**
 * Why `from` is null (spec vocabulary). This build reads origin from the node's envelope (the node
 * recovers `from` from the signature), so its coverage is every indexed block and only
 * `unrecoverable` occurs; the other two are reserved for an origin sidecar with a coverage window.
 */
export type OriginReason = 'coverage_unavailable' | 'outside_coverage' | 'unrecoverable';

/** A transaction envelope (byte-exact) with its coordinate and origin fields. */
export interface TransactionRecord {
  /** The envelope JSON as the node sent it (eth_getBlockByNumber(n, true) entry). */
  raw: string;
  blockNumber: number;
  transactionIndex: number;
  from: string | null;
  fromReason: OriginReason | null;
  /** Callee; null for a contract creation. */
  to: string | null;
  toReason: 'contract_creation' | null;
  /** Wei, decimal string. */
  value: string;
  /** `full`: from, to and value are all answered; `partial`: `from` is null (see fromReason). */
  originCoverage: 'full' | 'partial';
}

/** A receipt (byte-exact) with its normalised L1 gas accounting. */
export interface ReceiptRecord {
  raw: string;
  /** Number of the block that holds it. */
  blockNumber: number;
  l1Gas: L1Gas | null;
  l1GasReason: L1GasReason | null;
}

/** Why a log or input has no decoded row: cannot occur while decoded_views is ready (kept so nothing is omitted). */
export type NotDecoded = 'not_decoded';

/** A log as the node sent it with its decoding (stored DecodedLog JSON). */
export interface DecodedLogRow {
  /** Raw log JSON, byte-exact. */
  log: string;
  /** DecodedLog JSON (src/decode): decoded, or unknown with a reason. */
  decoded: string;
}

/** A transaction's decoded calldata. */
export interface DecodedCallRecord {
  transactionHash: string;
  to: string | null;
  toReason: 'contract_creation' | null;
  /** DecodedCall JSON (src/decode): decoded, or unknown with a reason. */
  decoded: string;
}

/** Re-exported vocabularies of the decoded views, for schemas. */
export type { CallDecoderName, CallUnknownReason, LogStandard, LogUnknownReason };

/** Why a transaction has no retained call tree. */
export type CoverageReason =
  /** TRACES=off on this deployment. */
  | 'traces_disabled'
  /** The node has no debug_trace* methods: the lane stopped. */
  | 'node_lacks_debug_trace'
  /** The node could not give this transaction's trace (a gap; retried while retryable). */
  | 'node_trace_failed'
  /** The block was traced but holds no row for this transaction. */
  | 'not_retained';

/** Whether a transaction's call tree and internal transfers are retained, and how they reconcile. */
export type TraceCoverage =
  | {
      coverage: 'retained';
      source: 'debug_traceBlockByNumber' | 'debug_traceTransaction';
      frames: number;
      internalTransfers: number;
      creations: number;
      /** The root frame's from/to/value equal the envelope's (re-execution matches the record). */
      rootMatchesEnvelope: boolean;
    }
  | {
      coverage: 'not_available';
      reason: CoverageReason;
      /** The node's message or lane state behind the reason; null when there is none. */
      detail: string | null;
      /** Whether the lane retries (an open gap heals when the node answers). */
      retryable: boolean;
    };

/**
 * One call frame of a retained tree, in depth-first pre-order: the stored frame
 * (src/schema/rows/traces.ts CallFrame) with the reasons of its nulls and its decoded calldata.
 */
export type CallFrameRow = CallFrame & {
  toReason: 'creation_failed' | null;
  /** DecodedCall of `input` (unknown with a reason when no decoder applies). */
  decoded: unknown;
  outputReason: 'not_reported_by_tracer' | null;
};

/** One internal value transfer or creation of a transaction (callTracer replay). */
export interface InternalRow {
  ordinal: number;
  from: string;
  to: string | null;
  toReason: 'creation_failed' | null;
  /** Wei, decimal string. */
  value: string;
  kind: 'call' | 'callcode' | 'create' | 'create2' | 'selfdestruct';
  /** False when the frame or an ancestor reverted: the value did not move. */
  effective: boolean;
  type: 'transfer' | 'creation';
}

/** An ingest gap as `/gaps` serves it (src/schema/tables/chain.ts). */
export type GapRow = import('../schema/tables/chain.js').Gap;

/** A runtime-code observation at one block (eth_getCode). */
export interface CodeObservation {
  address: string;
  /** The block every read was pinned to. */
  observedAt: BlockRef;
  isContract: boolean;
  /** keccak256 of the runtime code; null with `codeHashReason` when there is none. */
  codeHash: Hex | null;
  codeHashReason: 'no_code' | null;
  /** Bytes. */
  codeSize: number;
}
