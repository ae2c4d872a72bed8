/**
 * Flattening of one transaction's `callTracer` tree (source: `debug_traceTransaction` /
 * `debug_traceBlockByNumber` with `{tracer: 'callTracer'}`) into call frames, internal native
 * transfers and contract creations. Pure and synchronous: runs inside the replay pool.
 *
 * Units: every wei amount and gas figure is a bigint-safe decimal string (never a JS number).
 * Addresses are lowercase `0x` hex.
 */

import type {
  CallFrame,
  Creation,
  FrameKind,
  InternalTransfer,
  TraceResult,
} from '../../schema/rows/traces.js';

/** One node of a `callTracer` result, as geth, erigon, reth and anvil return it (hex quantities). */
export interface CallTracerFrame {
  type: string;
  from: string;
  /** Absent (or the would-be address) on a failed CREATE, depending on the client. */
  to?: string | null;
  /** Hex wei. Absent on STATICCALL; on DELEGATECALL it is the caller's call value, not value moved. */
  value?: string | null;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string | null;
  error?: string | null;
  revertReason?: string | null;
  calls?: CallTracerFrame[] | null;
}

/** Tracer type → kind, built once. */
const KINDS: ReadonlyMap<string, FrameKind> = new Map([
  ['CALL', 'call'],
  ['STATICCALL', 'staticcall'],
  ['DELEGATECALL', 'delegatecall'],
  ['CALLCODE', 'callcode'],
  ['CREATE', 'create'],
  ['CREATE2', 'create2'],
  ['SELFDESTRUCT', 'selfdestruct'],
]);

/** Kinds whose `value` is an actual movement of wei from `from` to `to`. */
const VALUE_MOVING: ReadonlySet<FrameKind> = new Set([
  'call',
  'callcode',
  'create',
  'create2',
  'selfdestruct',
]);

/** Thrown on a tree that is not a callTracer result (unknown type, bad quantity). */
export class MalformedTraceError extends Error {
  override readonly name = 'MalformedTraceError';
}

/** Parses a tracer quantity (hex `0x…`, or decimal from some clients) to bigint; absent → 0n. */
function quantity(q: string | null | undefined, field: string, txHash: string): bigint {
  if (q === undefined || q === null || q === '' || q === '0x') return 0n;
  try {
    return BigInt(q);
  } catch {
    throw new MalformedTraceError(`${txHash}: ${field} ${JSON.stringify(q)} is not a quantity`);
  }
}

const lower = (a: string | null | undefined): string | null => (a ? a.toLowerCase() : null);

/**
 * Flattens a callTracer tree in depth-first pre-order (iteratively: no recursion limit).
 * @throws MalformedTraceError on an unknown frame type or a non-numeric quantity.
 */
export function flattenCallTrace(txHash: string, root: CallTracerFrame): TraceResult {
  const frames: CallFrame[] = [];
  const internalTransfers: InternalTransfer[] = [];
  const creations: Creation[] = [];
  // Stack of [node, parent ordinal, parent undone]; children pushed in reverse for pre-order.
  const stack: Array<[CallTracerFrame, number | null, boolean]> = [[root, null, false]];
  while (stack.length > 0) {
    const [node, parent, ancestorUndone] = stack.pop() as [CallTracerFrame, number | null, boolean];
    const kind = KINDS.get(String(node.type).toUpperCase());
    if (!kind) throw new MalformedTraceError(`${txHash}: unknown frame type ${JSON.stringify(node.type)}`);
    const ordinal = frames.length;
    const depth = parent === null ? 0 : frames[parent].depth + 1;
    const reverted = node.error !== undefined && node.error !== null && node.error !== '';
    const isCreate = kind === 'create' || kind === 'create2';
    // geth clears `to` of a failed create; other clients keep the would-be address: normalise.
    const to = isCreate && reverted ? null : lower(node.to);
    const from = (lower(node.from) ?? '') as string;
    const value = quantity(node.value, 'value', txHash);
    const movesValue = value > 0n && VALUE_MOVING.has(kind);
    const effective = !(reverted || ancestorUndone);
    frames.push({
      ordinal,
      parent,
      depth,
      kind,
      from,
      to,
      value: value.toString(),
      movesValue,
      input: node.input ?? '0x',
      output: node.output ?? null,
      gasUsed: quantity(node.gasUsed, 'gasUsed', txHash).toString(),
      reverted,
      revertedByAncestor: ancestorUndone,
      error: reverted ? (node.error as string) : null,
      revertReason: node.revertReason ?? null,
    });
    if (movesValue && depth > 0) {
      internalTransfers.push({
        ordinal,
        from,
        to,
        value: value.toString(),
        kind: kind as InternalTransfer['kind'],
        effective,
      });
    }
    if (isCreate) creations.push({ ordinal, creator: from, address: to, depth, effective });
    const calls = node.calls;
    if (calls) for (let i = calls.length - 1; i >= 0; i--) stack.push([calls[i], ordinal, !effective]);
  }
  return { txHash, frames, internalTransfers, creations };
}
