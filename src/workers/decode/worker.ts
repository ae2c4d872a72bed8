/**
 * Decode pool worker (Piscina). Runs fetch, JSON parsing, shaping and log decoding off the main
 * thread and answers compact per-block deltas by structured clone.
 */
import type { BlockDelta, FetchResult } from '../../ingest/delta.js';
import { createRpc, type Rpc } from '../../rpc/client.js';
import { fetchBlocks, restoreBlock, type StoredBlock } from './fetch-blocks.js';

/** A decode task: fetch blocks `from..to` inclusive from the node at `rpcUrl`. */
export interface DecodeTask {
  rpcUrl: string;
  from: number;
  to: number;
}

const clients = new Map<string, Rpc>();

export default async function decode(task: DecodeTask): Promise<FetchResult> {
  let rpc = clients.get(task.rpcUrl);
  if (!rpc) {
    rpc = createRpc({ url: task.rpcUrl });
    clients.set(task.rpcUrl, rpc);
  }
  return fetchBlocks(rpc, task.from, task.to);
}

/** Named task `restore`: deltas of stored blocks, for projection rebuilds. */
export function restore(blocks: StoredBlock[]): BlockDelta[] {
  return blocks.map(restoreBlock);
}
