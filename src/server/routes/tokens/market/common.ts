/** Shared by the token market routes: quote rule, default venue, orientation, renderings. */

import type { PoolRow } from '../../../../markets/model.js';
import {
  chooseVenue,
  counterOf,
  resolveQuote,
  type TokenPools,
  tokenPools,
  type VenueChoice,
} from '../../../../markets/venue.js';
import type { TokenRow } from '../../../../tokens/model.js';
import { tokenAt } from '../../../../tokens/read.js';
import { ApiError } from '../../../errors.js';
import { requireProjection } from '../../../projections.js';
import type { Ctx } from '../../../route.js';
import { timestampOf } from '../../pools/common.js';

export interface MarketCtx {
  token: TokenRow;
  address: string;
  pools: TokenPools;
  anchorTs: number;
}

/** Token, its pools and the anchor time. @throws ApiError projection_unavailable, not_found. */
export function marketOf(ctx: Ctx<{ address: string }, unknown>, anchor = ctx.anchor.number): MarketCtx {
  requireProjection(ctx.chain, 'tokens');
  requireProjection(ctx.chain, 'markets');
  const address = ctx.params.address.toLowerCase();
  const token = tokenAt(ctx.chain.store.rocks, address, anchor);
  if (!token)
    throw new ApiError('not_found', `token ${address} is not indexed at the anchored block ${anchor}`);
  return {
    token,
    address,
    pools: tokenPools(ctx.chain.store.rocks, address, anchor),
    anchorTs: timestampOf(ctx as never, anchor),
  };
}

/**
 * Applies the quote rule. @throws ApiError quote_not_admitted (409), bad_request listing the
 * candidates (400), not_found when the token has no registered pool.
 */
export function quoteOf(
  m: MarketCtx,
  named: string | undefined,
): { quote: string; how: string; candidates: string[] } {
  const r = resolveQuote(m.pools.pools, m.address, named);
  if (r.ok) return r;
  if (r.kind === 'no_pools')
    throw new ApiError('not_found', `token ${m.address} has no registered pool at the anchored block`);
  if (r.kind === 'not_admitted') {
    throw new ApiError(
      'quote_not_admitted',
      `${named} is not a quote of ${m.address}: no registered pool pairs them`,
      { candidates: r.candidates },
    );
  }
  throw new ApiError('bad_request', `several quotes exist for ${m.address}: name one with quote=`, {
    candidates: r.candidates,
  });
}

/** The default venue for (token, quote). */
export function venueOf(ctx: Ctx<unknown, unknown>, m: MarketCtx, quote: string): VenueChoice {
  const v = chooseVenue(ctx.chain.store.rocks, m.pools.pools, m.address, quote, m.anchorTs);
  if (!v) throw new ApiError('not_found', `no pool pairs ${m.address} with ${quote}`);
  return v;
}

export const venueJson = (v: VenueChoice) => ({
  pool: v.pool.key,
  protocol: v.pool.protocol,
  contract: v.pool.contract,
  poolId: v.pool.poolId,
  rule: v.rule,
});

export const poolsWithQuote = (m: MarketCtx, quote: string): PoolRow[] =>
  m.pools.pools.filter((p) => counterOf(p, m.address) === quote);

/** Membership fields of the Token resource (bounded at 2,048 pools). */
export const membershipJson = (m: MarketCtx) => ({
  poolsConsidered: m.pools.pools.length,
  poolsTruncated: m.pools.truncated,
  poolsFanoutExceeded: m.pools.truncated,
  poolFanoutExceeded: m.pools.truncated,
});
