import { Type } from '@sinclair/typebox';
import { ratJson, ratParse } from '../../../../markets/rational.js';
import { stateAt } from '../../../../markets/read.js';
import { orient } from '../../../../markets/venue.js';
import { defineRoute, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { marketOf, quoteOf, venueJson, venueOf } from './common.js';

/** GET /tokens/{address}/price: spot price on the default venue at the anchor, as a rational. */
export const tokenPriceRoute = defineRoute({
  id: 'tokens.price',
  method: 'GET',
  path: '/tokens/{address}/price',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Spot price at the anchor on the default venue (quote rule; venue named): priceNumerator/priceDenominator in quote base units per token base unit.',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    const q = quoteOf(m, ctx.query.quote);
    const v = venueOf(ctx, m, q.quote);
    const st = stateAt(ctx.view, v.pool.key, ctx.anchor.number);
    const price = st?.price ? orient(v.pool, m.address, ratParse(st.price)) : null;
    return single(
      ctx.anchor,
      JSON.stringify({
        token: m.address,
        quote: q.quote,
        quoteResolution: q.how,
        venue: venueJson(v),
        price: price ? ratJson(price) : null,
        priceReason: price ? null : 'venue_has_no_price_yet',
        priceUnit: 'quote base units per token base unit',
      }),
    );
  },
});
