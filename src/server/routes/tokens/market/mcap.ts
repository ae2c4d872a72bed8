import { Type } from '@sinclair/typebox';
import { cmp, invert, type Rational, ratJson, ratParse } from '../../../../markets/rational.js';
import { extreme, stateAt } from '../../../../markets/read.js';
import { orient, tokenIsBase } from '../../../../markets/venue.js';
import { statsAt } from '../../../../tokens/read.js';
import { defineRoute, type Route, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { marketOf, membershipJson, poolsWithQuote, quoteOf, venueJson, venueOf } from './common.js';

export const tokenMcapRoute = defineRoute({
  id: 'tokens.mcap',
  method: 'GET',
  path: '/tokens/{address}/mcap',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Market cap at the anchor = exact supply (supplyFromTransfers, token base units) × default-venue price, as a rational in quote base units. Unpaginated.',
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
    const supply = BigInt(statsAt(ctx.view, m.address, ctx.anchor.number)?.supplyFromTransfers ?? '0');
    const price = st?.price ? orient(v.pool, m.address, ratParse(st.price)) : null;
    return single(
      ctx.anchor,
      JSON.stringify({
        token: m.address,
        quote: q.quote,
        quoteResolution: q.how,
        venue: venueJson(v),
        supply: supply.toString(),
        supplySource: 'supplyFromTransfers (mints minus burns to 0x0)',
        price: price ? ratJson(price) : null,
        marketCap: price ? ratJson({ n: price.n * supply, d: price.d }) : null,
        marketCapReason: price ? null : 'venue_has_no_price_yet',
        marketCapUnit: 'quote base units',
        ...membershipJson(m),
      }),
    );
  },
});

const extremeRoute = (which: 'high' | 'low'): Route =>
  defineRoute({
    id: which === 'high' ? 'tokens.ath' : 'tokens.atl',
    method: 'GET',
    path: which === 'high' ? '/tokens/{address}/ath' : '/tokens/{address}/atl',
    scope: 'read',
    group: 'Tokens',
    summary: `All-time ${which} price across the token's pools against the quote (bounded fanout ≤ 2048), oriented quote per token; pools listing the token as currency1 are inverted (their lows become highs) and provenance says so. Unpaginated.`,
    params: { address: Address },
    query: QuoteQuery,
    response: Single(Type.Object({}, { additionalProperties: true })),
    errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const m = marketOf(ctx);
      const q = quoteOf(m, ctx.query.quote);
      let best: { price: Rational; pool: string; bucket: number; inverted: boolean } | null = null;
      for (const p of poolsWithQuote(m, q.quote)) {
        const base = tokenIsBase(p, m.address);
        // Inverting swaps extremes: the token's high in an inverted pool is the pool's low.
        const x = extreme(ctx.view, p.key, m.anchorTs, base === (which === 'high') ? 'high' : 'low');
        if (!x) continue;
        const price = base ? x.price : invert(x.price);
        if (!best || (which === 'high' ? cmp(price, best.price) > 0 : cmp(price, best.price) < 0))
          best = { price, pool: p.key, bucket: x.bucket, inverted: !base };
      }
      return single(
        ctx.anchor,
        JSON.stringify({
          token: m.address,
          quote: q.quote,
          kind: which === 'high' ? 'ath' : 'atl',
          price: best ? ratJson(best.price) : null,
          priceReason: best ? null : 'no_trades',
          provenance: best
            ? { pool: best.pool, dayBucket: best.bucket, invertedFromCounterOrientation: best.inverted }
            : null,
          ...membershipJson(m),
        }),
      );
    },
  });

export const tokenAthRoute = extremeRoute('high');
export const tokenAtlRoute = extremeRoute('low');
export { venueJson };
