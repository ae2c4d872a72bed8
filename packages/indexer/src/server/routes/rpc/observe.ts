/**
 * Bounded node reads outside the chain reader: turns a node failure into a typed 503. The live
 * RPC routes read through `ctx.readers.chain.live` (src/chain/live.ts); this helper remains for
 * the address routes until they move onto their domain's reader.
 */
import { RpcError } from '../../../rpc/client.js';
import { ApiError, ServiceError } from '../../errors.js';

/** Turns node failures into a typed 503 `node_unavailable`. */
export async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    const why = err instanceof RpcError ? err.message : (err as Error).message;
    throw new ApiError('node_unavailable', `bounded node read failed: ${why.slice(0, 200)}`);
  }
}
