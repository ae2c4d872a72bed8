/** Helpers shared by the token routes: anchored token lookup and the projection guard. */

import type { TokenRow } from '../../../tokens/model.js';
import { tokenAt } from '../../../tokens/read.js';
import { ApiError } from '../../errors.js';
import { requireProjection } from '../../projections.js';
import type { Ctx } from '../../route.js';

/** Name of the projection behind the token registry, balance, holder and launch routes. */
export const TOKENS = 'tokens';

/** The token at the anchor. @throws ApiError projection_unavailable, not_found. */
export function tokenOr404(ctx: Ctx<{ address: string }, unknown>, anchor = ctx.anchor.number): TokenRow {
  requireProjection(ctx.chain, TOKENS);
  const t = tokenAt(ctx.view, ctx.params.address.toLowerCase(), anchor);
  if (!t)
    throw new ApiError(
      'not_found',
      `token ${ctx.params.address} is not indexed at the anchored block ${anchor}`,
    );
  return t;
}

/** True when ingest started at block 0, so every transfer of every token was seen. */
export function fullCoverage(ctx: Ctx<unknown, unknown>): boolean {
  return (ctx.chain.store.getMeta<{ firstBlock: number }>('identity')?.firstBlock ?? 0) === 0;
}
