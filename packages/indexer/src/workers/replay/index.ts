/**
 * The replay pool: a Piscina pool that turns `callTracer` traces of a block into flat call
 * frames, internal native transfers and contract creations (see `frames.ts` for the shapes;
 * wei as decimal strings). Source RPC: `debug_traceBlockByNumber`, else `debug_traceTransaction`.
 */
import { Piscina } from 'piscina';
import { RpcError } from '../../rpc/client.js';
import { esmWorker } from '../esm-worker.js';
import type { BlockTraceResult } from './trace-block.js';
import type { ReplayTask, SerializedRpcError } from './worker.js';

export type { BlockTraceResult, TxTrace, TxTraceGap, TxTraceOk } from './trace-block.js';

export interface ReplayPoolOptions {
  /** Maximum worker threads. */
  threads: number;
  /** Old-generation bound of each replay thread's heap, MiB (`resourceLimits`). */
  heapMb?: number;
  /** Receives the replay thread's heap with every answer (the engine's per-thread heap metrics). */
  onHeap?: (h: import('../../schema/delta.js').WorkerHeap) => void;
}

export interface ReplayPool {
  /**
   * Traces `txHashes` (block order) of `blockNumber` on the node at `rpcUrl`.
   * @throws RpcError when the node is unreachable for the whole block (rebuilt from the worker's record).
   */
  trace(
    rpcUrl: string,
    blockNumber: number,
    txHashes: string[],
    verifiedAbisDir?: string,
  ): Promise<BlockTraceResult>;
  /** Stops the workers; pending tasks are rejected. */
  destroy(): Promise<void>;
}

export function createReplayPool(opts: ReplayPoolOptions): ReplayPool {
  // The worker exists only compiled (dist/…/worker.js): the pool is exercised by end-to-end tests.
  const pool = new Piscina({
    ...esmWorker(new URL('./worker.js', import.meta.url)),
    // Long-lived workers (see the decode pool): no respawn and module recompile per idle spell.
    minThreads: 1,
    maxThreads: opts.threads,
    idleTimeout: 60_000,
    ...(opts.heapMb ? { resourceLimits: { maxOldGenerationSizeMb: opts.heapMb } } : {}),
  });
  return {
    async trace(rpcUrl, blockNumber, txHashes, verifiedAbisDir) {
      const task: ReplayTask = { rpcUrl, blockNumber, txHashes, verifiedAbisDir };
      try {
        const res = (await pool.run(task)) as BlockTraceResult;
        if (res.heap) opts.onHeap?.(res.heap);
        delete res.heap;
        return res;
      } catch (err) {
        const e = err as Partial<SerializedRpcError> | null;
        if (e && typeof e === 'object' && e.kind === 'RpcError') {
          throw new RpcError(
            e.message ?? 'replay failed',
            e.method ?? 'debug_traceTransaction',
            e.retryable === true,
            e.code,
          );
        }
        throw err;
      }
    },
    destroy() {
      return pool.destroy();
    },
  };
}
