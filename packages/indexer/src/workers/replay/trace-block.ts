/**
 * Call traces of one block, run inside the replay pool. Source:
 * `debug_traceBlockByNumber(hexNumber, {tracer: 'callTracer'})`, falling back to
 * `debug_traceTransaction(hash, {tracer: 'callTracer'})` per transaction when the node does not
 * serve block traces, refuses the whole block, or answers a list that cannot be matched to the
 * block's transactions. Every requested transaction gets an entry: a trace, or a typed gap.
 */
import { type Rpc, RpcError } from '../../rpc/client.js';
import type { TraceResult } from '../../schema/rows/traces.js';
import { type CallTracerFrame, flattenCallTrace } from './frames.js';

/** A transaction whose frames were obtained and flattened (wei as decimal strings). */
export interface TxTraceOk extends TraceResult {
  status: 'ok';
}

/** A transaction whose trace could not be obtained: a gap to record, never dropped. */
export interface TxTraceGap {
  txHash: string;
  status: 'not_available';
  /** Human-readable cause (node error message, malformed trace, ...). */
  reason: string;
  /** Whether asking again later might succeed (transport failure or node overload). */
  retryable: boolean;
}

export type TxTrace = TxTraceOk | TxTraceGap;

/** Traces of one block, one entry per requested hash, in the order of `txHashes`. */
export interface BlockTraceResult {
  blockNumber: number;
  /** The RPC method the traces came from (`debug_traceTransaction` after a fallback). */
  source: 'debug_traceBlockByNumber' | 'debug_traceTransaction';
  txs: TxTrace[];
  /** The replay thread's heap when it answered (set by the pool's worker; bytes). */
  heap?: import('../../schema/delta.js').WorkerHeap;
}

/** One element of a block trace answer: geth/anvil/erigon give `{txHash, result}` (or `{txHash, error}`). */
interface BlockTraceItem {
  txHash?: string;
  result?: CallTracerFrame | null;
  error?: string | { message?: string };
}

const CALL_TRACER = { tracer: 'callTracer' } as const;
const toHex = (n: number) => `0x${n.toString(16)}`;

/** JSON-RPC codes meaning "this node does not serve that method" (method not found, not supported). */
const UNSUPPORTED_CODES: ReadonlySet<number> = new Set([-32601, -32004]);

/** Nodes known (per Rpc client) not to serve `debug_traceBlockByNumber`: skip straight to per-tx. */
const blockTraceUnsupported = new WeakSet<Rpc>();

function toGap(txHash: string, err: unknown): TxTraceGap {
  const reason = err instanceof Error ? err.message : String(err);
  const retryable = err instanceof RpcError ? err.retryable : false;
  return { txHash, status: 'not_available', reason, retryable };
}

/** Flattens one tracer result, turning a missing or malformed tree into a gap. */
function fromResult(txHash: string, result: CallTracerFrame | null | undefined): TxTrace {
  if (!result || typeof result !== 'object') {
    return { txHash, status: 'not_available', reason: 'node returned no trace', retryable: false };
  }
  // anvil answers an unknown hash with an empty struct-log trace instead of an error.
  if (typeof result.type !== 'string') {
    return {
      txHash,
      status: 'not_available',
      reason: 'node returned no callTracer frame (unknown transaction?)',
      retryable: false,
    };
  }
  try {
    return { status: 'ok', ...flattenCallTrace(txHash, result) };
  } catch (err) {
    return toGap(txHash, err);
  }
}

async function traceTx(rpc: Rpc, txHash: string): Promise<TxTrace> {
  try {
    return fromResult(
      txHash,
      await rpc.call<CallTracerFrame | null>('debug_traceTransaction', [txHash, CALL_TRACER]),
    );
  } catch (err) {
    return toGap(txHash, err);
  }
}

/**
 * Matches a block trace answer to `txHashes`: by `txHash` when every item carries one (and the
 * set is exactly the requested one), else by position. Returns null when it cannot be matched.
 */
function matchItems(items: BlockTraceItem[], txHashes: string[]): BlockTraceItem[] | null {
  if (items.length !== txHashes.length) return null;
  if (!items.every((it) => typeof it?.txHash === 'string')) return items;
  const byHash = new Map<string, BlockTraceItem>();
  for (const it of items) byHash.set((it.txHash as string).toLowerCase(), it);
  if (byHash.size !== items.length) return null;
  const out: BlockTraceItem[] = [];
  for (const h of txHashes) {
    const it = byHash.get(h.toLowerCase());
    if (!it) return null;
    out.push(it);
  }
  return out;
}

/**
 * Traces every transaction of block `blockNumber`. `txHashes` are the block's transactions in
 * block order (from `eth_getBlockByNumber`); the answer has one entry per hash, same order.
 *
 * Failure policy: a single transaction the node cannot trace becomes a `not_available` gap.
 * When every transaction fails with a retryable error (node down, overloaded) the block is not
 * turned into gaps: the last {@link RpcError} is thrown so the caller retries the block later.
 * @throws RpcError as just described.
 */
export async function traceBlock(
  rpc: Rpc,
  blockNumber: number,
  txHashes: string[],
): Promise<BlockTraceResult> {
  if (txHashes.length === 0) return { blockNumber, source: 'debug_traceBlockByNumber', txs: [] };
  if (!blockTraceUnsupported.has(rpc)) {
    let items: BlockTraceItem[] | null = null;
    try {
      items = await rpc.call<BlockTraceItem[] | null>('debug_traceBlockByNumber', [
        toHex(blockNumber),
        CALL_TRACER,
      ]);
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      if (err.code !== undefined && UNSUPPORTED_CODES.has(err.code)) blockTraceUnsupported.add(rpc);
      // A transient failure (rate limit, 5xx, timeout after retries): retry the whole block later,
      // so what is stored (including `source`) does not depend on transient faults.
      else if (err.retryable) throw err;
      // Any other whole-block refusal (one bad tx aborting the block, a timeout on a huge
      // block): per-transaction tracing may still get most of it.
    }
    const matched = Array.isArray(items) ? matchItems(items, txHashes) : null;
    if (matched) {
      const txs = await Promise.all(
        matched.map((it, i) =>
          // A per-item error (some nodes report one failing tx inside the block answer): retry it alone.
          it?.result && !it.error ? fromResult(txHashes[i], it.result) : traceTx(rpc, txHashes[i]),
        ),
      );
      return { blockNumber, source: 'debug_traceBlockByNumber', txs };
    }
  }
  const txs = await Promise.all(txHashes.map((h) => traceTx(rpc, h)));
  throwIfNodeDown(txs);
  return { blockNumber, source: 'debug_traceTransaction', txs };
}

/** Every tx failed retryably: the node is unreachable, not the traces missing. */
function throwIfNodeDown(txs: TxTrace[]): void {
  if (txs.every((t) => t.status === 'not_available' && t.retryable)) {
    const last = txs[txs.length - 1] as TxTraceGap;
    throw new RpcError(`no trace obtained for any tx: ${last.reason}`, 'debug_traceTransaction', true);
  }
}
