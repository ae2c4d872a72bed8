/**
 * Call trees and internal transfers as of an anchor, from the traces lane's rows (callTracer
 * replay, src/ingest/traces.ts). R10: node re-execution, not verifiable against a block root.
 * Coverage is decided here, once: a transaction whose block the lane has not replayed yet is a
 * typed 503 (the lane is behind, retry); a lane that cannot trace, or a trace the node could not
 * give, is `not_available` with a reason from {@link CoverageReason}, never an empty list.
 */
import { DomainError } from '../errors/index.js';
import { CHAIN_CALL_FRAMES, CHAIN_INTERNAL } from '../schema/cursors.js';
import {
  type StoredFrame,
  type StoredInternal,
  type TracesLaneStatus,
  tracesCheckpointIn,
} from '../schema/rows/traces.js';
import type { TxLocation } from '../schema/tables/chain.js';
import { TRACE_STATUS } from '../schema/tables/traces.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import type { CallFrameRow, InternalRow, TraceCoverage } from './types.js';
import { walkPage } from './walk.js';

const NOT_DECODED = { status: 'unknown', reason: 'not_decoded', selector: null } as const;

/**
 * The trace coverage of the transaction at `loc`.
 * @throws DomainError projection_unavailable while the lane has not replayed `loc.number` yet.
 */
export function coverageOf(view: View, lane: TracesLaneStatus, loc: TxLocation): TraceCoverage {
  if (lane.state === 'disabled')
    return { coverage: 'not_available', reason: 'traces_disabled', detail: lane.reason, retryable: false };
  if (lane.state === 'not_supported')
    return {
      coverage: 'not_available',
      reason: 'node_lacks_debug_trace',
      detail: lane.reason,
      retryable: false,
    };
  const s = view.get(TRACE_STATUS, loc.number, loc.txIndex);
  if (!s) {
    const checkpoint = tracesCheckpointIn(view, lane);
    if (checkpoint === null || checkpoint < loc.number)
      throw new DomainError(
        'projection_unavailable',
        `the traces lane has not replayed block ${loc.number} yet (at ${checkpoint ?? 'none'}); retry with backoff`,
        { projection: 'traces', status: 'building', checkpoint: lane.checkpoint },
      );
    return { coverage: 'not_available', reason: 'not_retained', detail: null, retryable: false };
  }
  if (s.status === 'not_available')
    return {
      coverage: 'not_available',
      reason: 'node_trace_failed',
      detail: s.reason,
      retryable: s.retryable,
    };
  return {
    coverage: 'retained',
    source: s.source as 'debug_traceBlockByNumber' | 'debug_traceTransaction',
    frames: s.frames,
    internalTransfers: s.internalTransfers,
    creations: s.creations,
    rootMatchesEnvelope: s.rootMatchesEnvelope,
  };
}

/** The served form of a stored frame: nulls get their reasons, a missing decoding is typed. */
function frameRow(f: StoredFrame): CallFrameRow {
  return {
    ordinal: f.ordinal,
    parent: f.parent,
    depth: f.depth,
    kind: f.kind,
    from: f.from,
    to: f.to,
    toReason: f.to === null ? 'creation_failed' : null,
    value: f.value,
    movesValue: f.movesValue,
    input: f.input,
    decoded: f.decoded ?? NOT_DECODED,
    output: f.output,
    outputReason: f.output === null ? 'not_reported_by_tracer' : null,
    gasUsed: f.gasUsed,
    reverted: f.reverted,
    revertedByAncestor: f.revertedByAncestor,
    error: f.error,
    revertReason: f.revertReason,
  };
}

/** One page of the retained call frames of the transaction at `loc`, by ordinal (pre-order). */
export function callFrames(view: View, loc: TxLocation, q: PageQuery, sink: PageSink<CallFrameRow>): void {
  const tx: [number, number] = [loc.number, loc.txIndex];
  walkPage(view, CHAIN_CALL_FRAMES, tx, { prefix: tx }, q, sink, frameRow);
}

/** One page of the internal transfers and creations of the transaction at `loc`, by frame ordinal. */
export function internalTransfers(
  view: View,
  loc: TxLocation,
  q: PageQuery,
  sink: PageSink<InternalRow>,
): void {
  const tx: [number, number] = [loc.number, loc.txIndex];
  walkPage(view, CHAIN_INTERNAL, tx, { prefix: tx }, q, sink, internalRowOf);
}

/** The served shape of a stored internal transfer or creation (a failed creation has no `to`). */
export function internalRowOf(r: StoredInternal): InternalRow {
  const to = (r.to as string | null) ?? null;
  return {
    ordinal: r.ordinal,
    from: r.from as string,
    to,
    toReason: to === null ? 'creation_failed' : null,
    value: r.value as string,
    kind: r.kind as InternalRow['kind'],
    effective: r.effective as boolean,
    type: r.type === 'creation' ? 'creation' : 'transfer',
  };
}
