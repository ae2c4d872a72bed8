/**
 * Replay pool worker (Piscina). Fetches `callTracer` traces of one block and flattens them into
 * frames, internal transfers and creations off the main thread; answers by structured clone.
 */
import { threadId } from 'node:worker_threads';
import { thisThreadStats } from '@chain-indexer/platform/threads';
import { defaultVerifiedAbisDir } from '../../decode/abis-dir.js';
import { createDecoders, type Decoders, loadVerifiedAbis } from '../../decode/index.js';
import { createRpc, type Rpc, RpcError } from '../../rpc/client.js';
import type { WorkerHeap } from '../../schema/delta.js';
import { lowerThisThreadPriority } from '../priority.js';
import { type BlockTraceResult, traceBlock } from './trace-block.js';

/** Replay workers run lowest: the traces lane must never take a core from the main lanes or reads. */
const REPLAY_NICE = 10;
lowerThisThreadPriority(REPLAY_NICE);

/** A replay task: trace `txHashes` (the block's transactions, in block order) of `blockNumber`. */
export interface ReplayTask {
  rpcUrl: string;
  blockNumber: number;
  txHashes: string[];
  /** Folder of verified ABIs used to decode frame inputs (default ./abis). */
  verifiedAbisDir?: string;
}

/**
 * An {@link RpcError} as a plain record: structured clone across the thread boundary keeps only
 * `message` of an Error subclass, and the caller needs `retryable`/`code` to decide a retry.
 */
export interface SerializedRpcError {
  kind: 'RpcError';
  message: string;
  method: string;
  retryable: boolean;
  code?: number;
}

/** A frame with its decoded calldata (src/decode DecodedCall). */
export type DecodedFrame = import('../../schema/rows/traces.js').CallFrame & {
  decoded: import('../../decode/index.js').DecodedCall;
};

let decoders: Decoders | null = null;

/** One RPC client per node URL for the worker's lifetime (few URLs: one per chain). */
const clients = new Map<string, Rpc>();

/** This thread's heap (v8.getHeapStatistics, bytes), sent with every answer (the engine's heap metrics). */
function heapOf(): WorkerHeap {
  return { threadId, ...thisThreadStats() };
}

export default async function replay(task: ReplayTask): Promise<BlockTraceResult> {
  let rpc = clients.get(task.rpcUrl);
  if (!rpc) {
    rpc = createRpc({ url: task.rpcUrl });
    clients.set(task.rpcUrl, rpc);
  }
  try {
    const res = await traceBlock(rpc, task.blockNumber, task.txHashes);
    // Decode every frame's input here, off the main thread (creations carry init code: no `to`).
    decoders ??= createDecoders({
      verifiedAbis: loadVerifiedAbis(task.verifiedAbisDir ?? defaultVerifiedAbisDir()),
    });
    for (const tx of res.txs) {
      if (tx.status !== 'ok') continue;
      for (const f of tx.frames) {
        (f as DecodedFrame).decoded = decoders.decodeCalldata(
          f.input,
          f.kind === 'create' || f.kind === 'create2' ? null : f.to,
        );
      }
    }
    res.heap = heapOf();
    return res;
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    const plain: SerializedRpcError = {
      kind: 'RpcError',
      message: err.message,
      method: err.method,
      retryable: err.retryable,
      code: err.code,
    };
    throw plain;
  }
}
