import { Type } from '@sinclair/typebox';
import { chooseVenue, VENUE_RULE } from '../../../../markets/venue.js';
import { ApiError } from '../../../errors.js';
import { defineRoute, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { marketOf, membershipJson } from './common.js';

/** GET /tokens/{address}/venue: venue resolution per quote (or for the named quote). */
export const tokenVenueRoute = defineRoute({
  id: 'tokens.venue',
  method: 'GET',
  path: '/tokens/{address}/venue',
  scope: 'read',
  group: 'Tokens',
  summary: `Venue resolution: for each quote (or the named one) the default pool and every candidate with its 24h quote volume. Rule: ${VENUE_RULE}.`,
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    const quotes = [
      ...new Set(m.pools.pools.map((p) => (p.currency0 === m.address ? p.currency1 : p.currency0))),
    ].sort();
    const named = ctx.query.quote?.toLowerCase();
    const list = (named ? quotes.filter((q) => q === named) : quotes).map((q) => {
      const v = chooseVenue(ctx.view, m.pools.pools, m.address, q, m.at)!;
      return { quote: q, venue: { pool: v.pool.key, protocol: v.pool.protocol }, candidates: v.candidates };
    });
    if (named && !list.length)
      throw new ApiError('quote_not_admitted', `${named} is not a quote of ${m.address}`, {
        candidates: quotes,
      });
    return single(
      ctx.anchor,
      JSON.stringify({ token: m.address, rule: VENUE_RULE, quotes: list, ...membershipJson(m) }),
    );
  },
});
