/** Shared by the pool routes: addressing (address or V4 manager + poolId) and renderings of the reader's objects. */

import type { PoolRef } from '../../../markets/index.js';
import { Address, PoolId } from '../../schemas.js';

/** Path parameters of the two addressing schemes. */
export const ByAddress = { address: Address };
export const ByV4 = { manager: Address, pool_id: PoolId };
export type Variant = 'address' | 'v4';

/**
 * The id, path and path parameters of pool route `name` (e.g. `liquidity`) in an addressing
 * scheme: `pools.<name>` at `/pools/{address}<suffix>`, or `pools.v4<Name>` at
 * `/pools/v4/{manager}/{pool_id}<suffix>`; every pool route is scope read, group Pools.
 */
export function poolRouteOf(
  variant: Variant,
  name: string,
  suffix: string,
): { id: string; path: string; params: typeof ByAddress | typeof ByV4; scope: 'read'; group: string } {
  const head = { scope: 'read' as const, group: 'Pools' };
  return variant === 'v4'
    ? {
        id: `pools.v4${name[0].toUpperCase()}${name.slice(1)}`,
        path: `/pools/v4/{manager}/{pool_id}${suffix}`,
        params: ByV4,
        ...head,
      }
    : { id: `pools.${name}`, path: `/pools/{address}${suffix}`, params: ByAddress, ...head };
}

/** The pool a request names. */
export const refOf = (variant: Variant, params: Record<string, string>): PoolRef =>
  variant === 'v4' ? { manager: params.manager, poolId: params.pool_id } : { address: params.address };
