/**
 * Replay pool worker (Piscina). Fetches `callTracer` traces of one block and flattens them into
 * frames, internal transfers and creations off the main thread; answers by structured clone.
 */
import { createRpc, type Rpc, RpcError } from '../../rpc/client.js';
import { type BlockTraceResult, traceBlock } from './trace-block.js';

/** A replay task: trace `txHashes` (the block's transactions, in block order) of `blockNumber`. */
export interface ReplayTask {
  rpcUrl: string;
  blockNumber: number;
  txHashes: string[];
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

/** One RPC client per node URL for the worker's lifetime (few URLs: one per chain). */
const clients = new Map<string, Rpc>();

export default async function replay(task: ReplayTask): Promise<BlockTraceResult> {
  let rpc = clients.get(task.rpcUrl);
  if (!rpc) {
    rpc = createRpc({ url: task.rpcUrl });
    clients.set(task.rpcUrl, rpc);
  }
  try {
    return await traceBlock(rpc, task.blockNumber, task.txHashes);
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
