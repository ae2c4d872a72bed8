/** Token price, market cap, all-time extremes and venue resolution (quote rule, default venue). */

import { Type } from '@sinclair/typebox';
import { membershipJson, ratJson, ratJsonOrNull, VENUE_RULE, venueJson } from '../../../../markets/index.js';
import type { Route } from '../../../route.js';
import { extremeHead, singleRoute } from '../../../route-shapes.js';
import { Address, Amount, Nullable, Obj, QuoteQuery, ReasonOf } from '../../../schemas.js';

import { PoolKey, Price, Protocol } from '../../pools/schemas.js';
import { AS_OF_TOKEN, quoted, TOKEN_MARKET } from './common.js';
import { membershipProps, QuoteResolution, TOKEN_PRICE_UNIT, Venue } from './schemas.js';

const ERRORS = ['bad_request', 'not_found', 'quote_not_admitted'] as const;
const Params = { address: Address };

/** What the quoted single reads of a token share: their refusals and the projection they need. */
const QUOTED_READ = { errors: [...ERRORS], requires: TOKEN_MARKET, asOf: true };

/** The leading properties of a default-venue answer: the token, the resolved quote, how, the venue. */
const quotedVenueProps = () => ({
  token: { ...Address, description: 'the token' },
  quote: { ...Address, description: 'the resolved quote' },
  quoteResolution: QuoteResolution,
  venue: Venue,
});

/** Their values from a reader's default-venue answer. */
const quotedVenueJson = (a: {
  token: string;
  quote: { quote: string; how: string };
  venue: Parameters<typeof venueJson>[0];
}) => ({
  token: a.token,
  quote: a.quote.quote,
  quoteResolution: a.quote.how,
  venue: venueJson(a.venue),
});

export const tokenPriceRoute = singleRoute({
  id: 'tokens.price',
  cached: true,
  path: '/tokens/{address}/price',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Spot price at the anchor on the default venue (quote rule; venue named): priceNumerator/priceDenominator in quote base units per token base unit.' +
    AS_OF_TOKEN,
  params: Params,
  query: QuoteQuery,
  data: Obj({
    ...quotedVenueProps(),
    price: Nullable(Price(TOKEN_PRICE_UNIT), 'see priceReason'),
    priceReason: ReasonOf(['venue_has_no_price_yet']),
    priceUnit: Type.Literal(TOKEN_PRICE_UNIT, { description: 'unit of price' }),
  }),
  ...QUOTED_READ,
  read(ctx) {
    const p = ctx.readers.markets.tokenPrice(...quoted(ctx));
    return {
      ...quotedVenueJson(p),
      price: ratJsonOrNull(p.price),
      priceReason: p.price ? null : 'venue_has_no_price_yet',
      priceUnit: TOKEN_PRICE_UNIT,
    };
  },
});

export const tokenMcapRoute = singleRoute({
  id: 'tokens.mcap',
  path: '/tokens/{address}/mcap',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Market cap at the anchor = exact supply (supplyFromTransfers, token base units) × default-venue price, as a rational in quote base units. Unpaginated.' +
    AS_OF_TOKEN,
  params: Params,
  query: QuoteQuery,
  data: Obj({
    ...quotedVenueProps(),
    supply: { ...Amount, description: 'supplyFromTransfers at the anchor, token base units' },
    supplySource: Type.Literal('supplyFromTransfers (mints minus burns to 0x0)', {
      description: 'supply source',
    }),
    price: Nullable(Price(TOKEN_PRICE_UNIT), 'null before the venue’s first trade'),
    marketCap: Nullable(Price('quote base units', 'market cap'), 'see marketCapReason'),
    marketCapReason: ReasonOf(['venue_has_no_price_yet']),
    marketCapUnit: Type.Literal('quote base units', { description: 'unit of marketCap' }),
    ...membershipProps,
  }),
  ...QUOTED_READ,
  read(ctx) {
    const m = ctx.readers.markets.tokenMcap(...quoted(ctx));
    return {
      ...quotedVenueJson(m),
      supply: m.supply.toString(),
      supplySource: 'supplyFromTransfers (mints minus burns to 0x0)',
      price: ratJsonOrNull(m.price),
      marketCap: m.price ? ratJson({ n: m.price.n * m.supply, d: m.price.d }) : null,
      marketCapReason: m.price ? null : 'venue_has_no_price_yet',
      marketCapUnit: 'quote base units',
      ...membershipJson(m.membership),
    };
  },
});

const extremeRoute = (which: 'high' | 'low'): Route =>
  singleRoute({
    ...extremeHead('tokens', which),
    summary: `All-time ${which} price across the token's pools against the quote (bounded fanout ≤ 2048), oriented quote per token; pools listing the token as currency1 are inverted (their lows become highs) and provenance says so. Unpaginated. As of a block: atBlock / atBlockHash (each pool’s extreme over its 1d candles with trades at or below N, a candle holding later trades recomputed from the pool’s swaps up to N; pools registered at or below N).`,
    params: Params,
    query: QuoteQuery,
    data: Obj({
      token: { ...Address, description: 'the token' },
      quote: { ...Address, description: 'the resolved quote' },
      kind: Type.Literal(which === 'high' ? 'ath' : 'atl', { description: 'all-time high or low' }),
      price: Nullable(Price(TOKEN_PRICE_UNIT, `all-time ${which}`), 'see priceReason'),
      priceReason: ReasonOf(['no_trades']),
      provenance: Nullable(
        Obj({
          pool: PoolKey,
          dayBucket: Type.Integer({
            minimum: 0,
            description: 'start of the UTC day of the extreme, unix seconds',
          }),
          invertedFromCounterOrientation: Type.Boolean({
            description: 'true when the pool lists the token as currency1 (its price was inverted)',
          }),
        }),
        'null without trades',
      ),
      ...membershipProps,
    }),
    ...QUOTED_READ,
    read(ctx) {
      const r = ctx.readers.markets.tokenExtreme(...quoted(ctx), which);
      const x = r.extreme;
      return {
        token: r.token,
        quote: r.quote,
        kind: which === 'high' ? 'ath' : 'atl',
        price: x ? ratJson(x.price) : null,
        priceReason: x ? null : 'no_trades',
        provenance: x
          ? { pool: x.pool, dayBucket: x.bucket, invertedFromCounterOrientation: x.inverted }
          : null,
        ...membershipJson(r.membership),
      };
    },
  });

export const tokenAthRoute = extremeRoute('high');
export const tokenAtlRoute = extremeRoute('low');

const Candidate = Obj({
  pool: PoolKey,
  protocol: Protocol,
  volume24hQuote: { ...Amount, description: 'trailing-24h quote-side volume, quote base units' },
  trades24h: Type.Integer({ minimum: 0, description: 'trades in the trailing 24h' }),
});

/** GET /tokens/{address}/venue: venue resolution per quote (or for the named quote). */
export const tokenVenueRoute = singleRoute({
  id: 'tokens.venue',
  path: '/tokens/{address}/venue',
  scope: 'read',
  group: 'Tokens',
  summary: `Venue resolution: for each quote (or the named one) the default pool and every candidate with its 24h quote volume. Rule: ${VENUE_RULE}.${AS_OF_TOKEN}`,
  params: Params,
  query: QuoteQuery,
  data: Obj({
    token: { ...Address, description: 'the token' },
    rule: Type.String({ description: 'the default-venue rule' }),
    quotes: Type.Array(
      Obj({
        quote: { ...Address, description: 'a quote of the token' },
        venue: Obj({ pool: PoolKey, protocol: Protocol }, { description: 'the default venue of this quote' }),
        candidates: Type.Array(Candidate, { description: 'every pool against this quote, in venue order' }),
      }),
    ),
    ...membershipProps,
  }),
  errors: ['not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  asOf: true,
  read(ctx) {
    const r = ctx.readers.markets.tokenVenues(...quoted(ctx));
    return {
      token: r.token,
      rule: r.rule,
      quotes: r.quotes.map((q) => ({
        quote: q.quote,
        venue: { pool: q.venue.pool.key, protocol: q.venue.pool.protocol },
        candidates: q.venue.candidates,
      })),
      ...membershipJson(r.membership),
    };
  },
});
