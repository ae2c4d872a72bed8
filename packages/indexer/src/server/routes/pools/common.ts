/** Shared by the pool routes: addressing (address or V4 manager + poolId) and renderings of the reader's objects. */

import type { PoolRef } from '../../../markets/index.js';
import { Address, PoolId } from '../../schemas.js';

/** Path parameters of the two addressing schemes. */
export const ByAddress = { address: Address };
export const ByV4 = { manager: Address, pool_id: PoolId };
export type Variant = 'address' | 'v4';

/** The pool a request names. */
export const refOf = (variant: Variant, params: Record<string, string>): PoolRef =>
  variant === 'v4' ? { manager: params.manager, poolId: params.pool_id } : { address: params.address };
