/**
 * Decode pool worker (Piscina). Runs fetch, JSON parsing, shaping and log decoding off the main
 * thread and answers compact per-block deltas by structured clone.
 */

import { type MessagePort, threadId } from 'node:worker_threads';
import { thisThreadStats } from '@chain-indexer/platform/threads';
import { useWasmKeccak } from '@chain-indexer/proofs';
import { Piscina } from 'piscina';
import { createRpc, type Rpc } from '../../rpc/client.js';
import { createRawRpc, type RawRpc } from '../../rpc/raw.js';
import type { BlockDelta, FetchResult, LateRows, WorkerHeap } from '../../schema/delta.js';
import {
  encodeParts,
  encodeStateKeys,
  epochMs,
  fetchBlocks,
  restoreBlock,
  type StoredBlock,
  transferablesOf,
  warmDecoders,
} from './fetch-blocks.js';

/**
 * A decode task: fetch blocks `from..to` inclusive from the node at `rpcUrl`; with `rows`, encode
 * each block's stateless rows (rows.ts) and hand them over by transfer; `texts: false` drops the
 * JSON strings from the deltas (history blocks whose frames are not made). A block whose records
 * do not match its header fails the task with a RootsMismatchError (roots.ts).
 */
export interface DecodeTask {
  rpcUrl: string;
  from: number;
  to: number;
  rows?: boolean;
  texts?: boolean;
  /** The blocks' batches keep undo: list the keys their rows overwrite with the state keys (fetch-blocks.ts encodeRows). */
  priors?: boolean;
  /** Hold every block to its header's roots (VERIFY_ROOTS; default true). */
  verifyRoots?: boolean;
  /**
   * Answer twice (live blocks): the shaped deltas with their state keys go out on this port as
   * soon as they are shaped (a FetchResult, texts kept), then the task resolves with their encoded
   * rows (LateRows), so the ingest thread builds the blocks while this thread encodes. Transferred
   * with the task. `rows` and `texts` are implied.
   */
  early?: MessagePort;
}

const clients = new Map<string, Rpc & RawRpc>();

/**
 * This thread's callers of the node at `rpcUrl`: blocks and receipts through the raw caller (the
 * node's bytes are stored as they came), other calls (metadata probes) through viem's.
 */
function clientOf(rpcUrl: string): Rpc & RawRpc {
  let rpc = clients.get(rpcUrl);
  if (!rpc) {
    const plain = createRpc({ url: rpcUrl });
    const raw = createRawRpc({ url: rpcUrl });
    rpc = { call: (m, p) => plain.call(m, p), callRaw: (m, p) => raw.callRaw(m, p) };
    clients.set(rpcUrl, rpc);
  }
  return rpc;
}

/**
 * Keccak for the roots check: hash-wasm's WebAssembly build in this thread (the JS one is ~10×
 * slower and the check hashes every envelope and receipt); if it cannot load, the JS one stays.
 */
const keccakReady = useWasmKeccak().catch((err: Error) => {
  process.emitWarning(`decode worker: WebAssembly keccak unavailable, using JS (${err.message})`);
});

/** This thread's heap, sent with every answer (the engine's per-thread heap metrics). */
function heapOf(): WorkerHeap {
  return { threadId, ...thisThreadStats() };
}

export default async function decode(task: DecodeTask): Promise<FetchResult | LateRows> {
  await keccakReady;
  if (task.early) return decodeEarly(task, task.early);
  const r: FetchResult = await fetchBlocks(clientOf(task.rpcUrl), task.from, task.to, task);
  r.heap = heapOf();
  if (!task.rows) return r;
  // Transferred, not cloned: the row buffers move to the ingest thread (piscina's Transferable).
  return Piscina.move({
    [Piscina.transferableSymbol]: transferablesOf(r),
    [Piscina.valueSymbol]: r,
  } as never) as unknown as FetchResult;
}

/**
 * An early task (DecodeTask.early): posts the shaped deltas with their state keys (transferred)
 * on `port`, then encodes their rows and answers them, transferred. A task that fails before the
 * post rejects without it (the ingest thread hears of it through the task).
 */
async function decodeEarly(task: DecodeTask, port: MessagePort): Promise<LateRows> {
  const r: FetchResult = await fetchBlocks(clientOf(task.rpcUrl), task.from, task.to, {
    verifyRoots: task.verifyRoots,
  });
  for (const d of r.blocks) encodeStateKeys(d, task.priors ?? false);
  if (r.marks) r.marks.encoded = epochMs();
  port.postMessage(r, transferablesOf(r));
  port.close();
  const parts = r.blocks.map(encodeParts);
  const late: LateRows = { parts, encoded: epochMs(), heap: heapOf() };
  return Piscina.move({
    [Piscina.transferableSymbol]: parts.flatMap((p) => Object.values(p)),
    [Piscina.valueSymbol]: late,
  } as never) as unknown as LateRows;
}

/**
 * Named task `warm`: builds the decoders and opens the node connection (eth_chainId) before the
 * first block, so the first block after a start does not also pay the worker's set-up. Never
 * fails: a node that cannot answer yet is the ingest loop's business.
 */
export async function warm(rpcUrl: string): Promise<true> {
  warmDecoders();
  await clientOf(rpcUrl)
    .call('eth_chainId')
    .catch(() => undefined);
  return true;
}

/** Named task `restore`: deltas of stored blocks, for projection rebuilds. */
export function restore(blocks: StoredBlock[]): BlockDelta[] {
  return blocks.map(restoreBlock);
}
