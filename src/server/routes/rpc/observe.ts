/**
 * Live RPC reads: each request first observes the node's latest block, then makes every read at
 * that block number, so the answer is pinned to one observed `(block, hash)`. Bounded: one
 * attempt with a short timeout; any node failure is a typed 503.
 */

import type { Rpc } from '../../../rpc/client.js';
import { RpcError } from '../../../rpc/client.js';
import type { BlockRef } from '../../../storage/index.js';
import { ApiError, ServiceError } from '../../errors.js';

export interface Observed {
  block: BlockRef;
  tag: string;
}

/** Observes the node head. @throws ApiError node_unavailable. */
export async function observeHead(rpc: Rpc): Promise<Observed> {
  const b = await guard(
    rpc.call<{ number: string; hash: `0x${string}` } | null>('eth_getBlockByNumber', ['latest', false]),
  );
  if (!b) throw new ApiError('node_unavailable', 'the node returned no latest block');
  return { block: { number: Number.parseInt(b.number, 16), hash: b.hash }, tag: b.number };
}

/** Turns node failures into a typed 503. */
export async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const why = err instanceof RpcError ? err.message : (err as Error).message;
    throw new ApiError('node_unavailable', `bounded node read failed: ${why.slice(0, 200)}`);
  }
}

export const observedJson = (o: Observed) => `{"block":${o.block.number},"hash":"${o.block.hash}"}`;
