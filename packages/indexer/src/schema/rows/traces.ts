/**
 * Row shapes of the traces lane: the replay pool's flattened call trace (src/workers/replay
 * flattens a `callTracer` tree into these), what the lane stores per transaction, and the lane's
 * status that the chain and wallets readers publish as trace coverage.
 *
 * Units: every wei amount and gas figure is a bigint-safe decimal string (never a JS number).
 * Addresses are lowercase `0x` hex.
 */

/** Frame kinds, lowercase of the tracer's `type`. */
export type FrameKind =
  | 'call'
  | 'staticcall'
  | 'delegatecall'
  | 'callcode'
  | 'create'
  | 'create2'
  | 'selfdestruct';

/** One call frame, in depth-first pre-order of the tree. */
export interface CallFrame {
  /** 0-based pre-order index within the transaction; the root is 0. */
  ordinal: number;
  /** Ordinal of the parent frame; null for the root. Always smaller than `ordinal`. */
  parent: number | null;
  /** Root is 0; a child is its parent's depth + 1. */
  depth: number;
  kind: FrameKind;
  from: string;
  /** Callee; for create/create2 the created address, null when the creation failed. */
  to: string | null;
  /**
   * Wei, decimal string; '0' when the tracer gives none. For `delegatecall` this is the value
   * the tracer reports (the enclosing call's value, visible as CALLVALUE), NOT value moved:
   * see `movesValue`.
   */
  value: string;
  /** Whether this frame actually moves `value` from `from` to `to` (false for delegatecall/staticcall or zero value). */
  movesValue: boolean;
  input: string;
  /** Return data (or revert data) as hex; null when the tracer gives none. */
  output: string | null;
  /** Gas used by this frame including its children, decimal string. */
  gasUsed: string;
  /** This frame failed (`error` set): its own state changes were undone. */
  reverted: boolean;
  /** Some ancestor failed, so this frame's effects were undone even if it succeeded itself. */
  revertedByAncestor: boolean;
  error: string | null;
  revertReason: string | null;
}

/** A native-value movement by a non-root frame (the root's value is the transaction's own). */
export interface InternalTransfer {
  ordinal: number;
  from: string;
  /** Recipient; null only for a failed creation (value then stayed with the creator). */
  to: string | null;
  /** Wei, decimal string, > 0. */
  value: string;
  kind: Exclude<FrameKind, 'staticcall' | 'delegatecall'>;
  /** False when the frame or an ancestor reverted: the value did not move. */
  effective: boolean;
}

/** A CREATE/CREATE2 frame, including the root when the transaction itself deploys a contract. */
export interface Creation {
  ordinal: number;
  creator: string;
  /** Created address; null when the creation failed. */
  address: string | null;
  depth: number;
  /** False when the creation or an ancestor reverted: no code remains at `address`. */
  effective: boolean;
}

/** The flattened trace of one transaction. */
export interface TraceResult {
  txHash: string;
  frames: CallFrame[];
  internalTransfers: InternalTransfer[];
  creations: Creation[];
}

/** Per-transaction retention and reconciliation state of the traces lane. */
export type TraceStatus =
  | {
      status: 'retained';
      source: string;
      frames: number;
      internalTransfers: number;
      creations: number;
      /** The root frame's from/to/value equal the envelope's (the re-execution matches the record). */
      rootMatchesEnvelope: boolean;
    }
  | { status: 'not_available'; reason: string; retryable: boolean };

/** A stored call frame: the flattened frame plus its decoded calldata (src/decode DecodedCall). */
export type StoredFrame = CallFrame & { decoded?: unknown };

/** A stored internal value transfer or creation of one transaction (see src/ingest/traces.ts). */
export type StoredInternal = Record<string, unknown> & { ordinal: number; kind: string };

/**
 * META row of the traces lane's checkpoint (the last block replayed), written in the batch of the
 * block's trace rows: a reader takes it from its own view, so the checkpoint and the rows it
 * covers are one committed state.
 */
export const TRACES_CHECKPOINT_META = 'checkpoint:traces';

/**
 * The traces lane's checkpoint as `view` holds it, else the lane's reported one (a lane that has
 * written none yet).
 */
export function tracesCheckpointIn(
  view: { meta<T>(name: string): T | undefined },
  lane: Pick<TracesLaneStatus, 'checkpoint'>,
): number | null {
  return view.meta<number>(TRACES_CHECKPOINT_META) ?? lane.checkpoint;
}

/** State of the traces lane (src/ingest/traces.ts), read by the chain and wallets readers. */
export interface TracesLaneStatus {
  enabled: boolean;
  state: 'following' | 'disabled' | 'not_supported';
  reason: string | null;
  checkpoint: number | null;
}
