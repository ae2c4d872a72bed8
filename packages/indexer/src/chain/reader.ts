/**
 * The chain reader: raw chain records (headers, transactions, receipts, logs) exactly as the node
 * sent them, their decoded views, call trees and internal transfers, timestamp bounds and ingest
 * gaps, resolved as of an anchor block through a request's {@link View}; plus the live node reads,
 * each pinned to the node block it observed. One reader per chain, created at start-up.
 * Sources: eth_getBlockByNumber / eth_getBlockReceipts stored by ingest (src/ingest/apply.ts), the
 * decoded-views projection (src/chain/decoded-views.ts), the traces lane (src/ingest/traces.ts).
 */

import type { Rpc } from '../rpc/client.js';
import type { TracesLaneStatus } from '../schema/rows/traces.js';
import type { TxLocation } from '../schema/tables/chain.js';
import type { BlockRef, View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import * as decoded from './decoded.js';
import * as gaps from './gaps.js';
import { createLiveReader, type LiveReader } from './live.js';
import { type ProofAnswer, recordProof } from './proofs.js';
import * as records from './records.js';
import * as traces from './traces.js';
import type {
  CallFrameRow,
  DecodedCallRecord,
  DecodedLogRow,
  GapRow,
  InternalRow,
  ReceiptRecord,
  TimestampBounds,
  TraceCoverage,
  TransactionRecord,
} from './types.js';

/** A transaction's trace coverage, and when retained, one page of its rows pushed to the sink. */
export interface TracePage {
  location: TxLocation;
  coverage: TraceCoverage;
}

/**
 * Every read of the chain domain. Paged reads push rows into a {@link PageSink} in walk order;
 * `q.at` is the page's anchor block. Absent subjects throw DomainError `not_found`.
 */
export interface ChainReader {
  /** Canonical header JSON of block `n` (transactions as hashes), byte-exact. */
  header(view: View, at: number, n: number): string;
  /** Canonical header JSON of the block with hash `hash`; a reorged block's hash is not_found. */
  headerByHash(view: View, at: number, hash: string): string;
  /** Both named bounds of timestamp `t` (unix seconds). */
  timestampBounds(view: View, at: number, t: number): TimestampBounds;
  /** Block `n`'s transactions in index order (byte-exact JSON). */
  blockTransactions(view: View, n: number, q: PageQuery, sink: PageSink<string>): void;
  /** Logs emitted in block `n` by log index (byte-exact JSON). */
  blockLogs(view: View, n: number, q: PageQuery, sink: PageSink<string>): void;
  /** Block `n`'s logs with their decodings. */
  blockLogsDecoded(view: View, n: number, q: PageQuery, sink: PageSink<DecodedLogRow>): void;
  /** Where transaction `hash` is in the canonical chain as of `at`. */
  txLocation(view: View, at: number, hash: string): TxLocation;
  /** Envelope (byte-exact) with coordinate and origin fields. */
  transaction(view: View, at: number, hash: string): TransactionRecord;
  /** Receipt (byte-exact) with normalised L1 gas accounting. */
  receipt(view: View, at: number, hash: string): ReceiptRecord;
  /**
   * The Merkle proof of transaction `hash` (trie `transactions`) or of its receipt (trie
   * `receipts`) against its block header, or why there is none (proofs.ts).
   */
  proof(view: View, at: number, hash: string, trie: 'transactions' | 'receipts'): ProofAnswer;
  /** Logs of transaction `hash` by log index (byte-exact JSON). */
  transactionLogs(view: View, hash: string, q: PageQuery, sink: PageSink<string>): void;
  /** Logs of transaction `hash` with their decodings. */
  transactionLogsDecoded(view: View, hash: string, q: PageQuery, sink: PageSink<DecodedLogRow>): void;
  /** Decoded calldata of transaction `hash`. */
  decodedCalldata(view: View, at: number, hash: string): DecodedCallRecord;
  /**
   * The call tree of transaction `hash`: its coverage, and when retained one page of frames in
   * pre-order. @throws DomainError projection_unavailable while the traces lane is behind its block.
   */
  callFrames(view: View, hash: string, q: PageQuery, sink: PageSink<CallFrameRow>): TracePage;
  /**
   * Internal value transfers and creations of transaction `hash`: coverage (retention and
   * reconciliation), and when retained one page of rows by frame ordinal.
   * @throws DomainError projection_unavailable while the traces lane is behind its block.
   */
  internalTransfers(view: View, hash: string, q: PageQuery, sink: PageSink<InternalRow>): TracePage;
  /** Ingest gaps of every lane, by lane then first block. */
  gaps(view: View, q: PageQuery, sink: PageSink<GapRow>): void;
  /** Open ingest gaps of every lane (bounded count). */
  openGapCount(view: View): number;
  /** Canonical `(number, hash)` of block `n` as of `at`. */
  canonicalAt(view: View, at: number, n: number): BlockRef;
  /** Live node reads, each pinned to the node block it observed. */
  live: LiveReader;
}

/** What the chain reader needs besides a request's view. */
export interface ChainReaderDeps {
  /** The traces lane's state (enabled, following, checkpoint): decides trace coverage. */
  traces: () => TracesLaneStatus;
  /** A bounded node client for live reads (short timeout, few attempts); null on a replica without a node. */
  node: Rpc | null;
}

/** Creates the chain reader (it keeps no state: every read goes through the view it is given). */
export function createChainReader(deps: ChainReaderDeps): ChainReader {
  const tracePage = <R>(
    view: View,
    hash: string,
    q: PageQuery,
    sink: PageSink<R>,
    walk: (view: View, loc: TxLocation, q: PageQuery, sink: PageSink<R>) => void,
  ): TracePage => {
    const location = records.txLocation(view, q.at, hash);
    const coverage = traces.coverageOf(view, deps.traces(), location);
    if (coverage.coverage === 'retained') walk(view, location, q, sink);
    return { location, coverage };
  };
  return {
    header: records.header,
    headerByHash: records.headerByHash,
    timestampBounds: records.timestampBounds,
    blockTransactions: records.blockTransactions,
    blockLogs: records.blockLogs,
    blockLogsDecoded: decoded.blockLogsDecoded,
    txLocation: records.txLocation,
    transaction: records.transaction,
    receipt: records.receipt,
    proof: recordProof,
    transactionLogs: records.transactionLogs,
    transactionLogsDecoded: decoded.transactionLogsDecoded,
    decodedCalldata: decoded.decodedCalldata,
    callFrames: (view, hash, q, sink) => tracePage(view, hash, q, sink, traces.callFrames),
    internalTransfers: (view, hash, q, sink) => tracePage(view, hash, q, sink, traces.internalTransfers),
    gaps: gaps.gaps,
    openGapCount: gaps.openGapCount,
    canonicalAt: records.canonicalAt,
    live: createLiveReader(deps.node),
  };
}
