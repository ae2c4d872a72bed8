/** Shared by the token market routes: quote rule, default venue, orientation, renderings. */

import type { PoolRow } from '../../../../markets/model.js';
import type { At } from '../../../../markets/read.js';
import {
  chooseVenue,
  counterOf,
  resolveQuote,
  type TokenPools,
  tokenPools,
  type VenueChoice,
  volume24h,
} from '../../../../markets/venue.js';
import type { TokenRow } from '../../../../tokens/model.js';
import { tokenAt } from '../../../../tokens/read.js';
import { ApiError, type ErrorCode } from '../../../errors.js';
import { requireProjection } from '../../../projections.js';
import type { Ctx } from '../../../route.js';
import { timestampOf } from '../../pools/common.js';

/** Typed errors of the token market PAGE routes (quote rule, cursors, fail-closed projections). */
export const PAGED_MARKET_ERRORS: readonly ErrorCode[] = [
  'bad_request',
  'not_found',
  'quote_not_admitted',
  'bad_cursor',
  'stale_cursor',
  'projection_unavailable',
];

export interface MarketCtx {
  token: TokenRow;
  address: string;
  pools: TokenPools;
  anchorTs: number;
  /** The read position (anchor block and its timestamp) for window figures. */
  at: At;
}

/** Token, its pools and the anchor time. @throws ApiError projection_unavailable, not_found. */
export function marketOf(ctx: Ctx<{ address: string }, unknown>, anchor = ctx.anchor.number): MarketCtx {
  requireProjection(ctx.chain, 'tokens');
  requireProjection(ctx.chain, 'markets');
  const address = ctx.params.address.toLowerCase();
  const token = tokenAt(ctx.view, address, anchor);
  if (!token)
    throw new ApiError('not_found', `token ${address} is not indexed at the anchored block ${anchor}`);
  return {
    token,
    address,
    pools: tokenPools(ctx.view, address, anchor),
    anchorTs: timestampOf(ctx as never, anchor),
    at: { block: anchor, ts: timestampOf(ctx as never, anchor) },
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
  const v = chooseVenue(ctx.view, m.pools.pools, m.address, quote, m.at);
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

/**
 * Quote of the first-paint market routes (stats, overview): named (must be admitted), else the
 * only counter currency, else the quote with the largest USD-markable 24h volume (configured USD
 * stablecoins). `null` quote when none qualifies: stats answers 400 quote_ambiguous, overview
 * publishes null market fields with the candidates.
 * @throws ApiError quote_not_admitted (409), not_found (no registered pool).
 */
export function marketQuoteOf(
  ctx: Ctx<unknown, unknown>,
  m: MarketCtx,
  named: string | undefined,
): { quote: string | null; how: string; candidates: string[] } {
  const candidates = [...new Set(m.pools.pools.map((p) => counterOf(p, m.address)))].sort();
  if (!candidates.length) throw new ApiError('not_found', `token ${m.address} has no registered pool`);
  const q = named?.toLowerCase();
  if (q) {
    if (!candidates.includes(q))
      throw new ApiError('quote_not_admitted', `${q} is not a quote of ${m.address}`, { candidates });
    return { quote: q, how: 'named', candidates };
  }
  if (candidates.length === 1) return { quote: candidates[0], how: 'only_counter_currency', candidates };
  const stables = new Set(ctx.chain.markets.usdStablecoins);
  let best: { q: string; v: bigint } | null = null;
  for (const c of candidates.filter((x) => stables.has(x))) {
    const vol = m.pools.pools
      .filter((p) => counterOf(p, m.address) === c)
      .reduce((a, p) => a + volume24h(ctx.view, p, m.address, m.at).quote, 0n);
    if (vol > 0n && (!best || vol > best.v)) best = { q: c, v: vol };
  }
  return best
    ? { quote: best.q, how: 'largest_usd_markable_volume', candidates }
    : { quote: null, how: 'ambiguous', candidates };
}
