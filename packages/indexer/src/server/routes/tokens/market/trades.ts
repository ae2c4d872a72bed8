/** A token's trades across its pools, ticks on the default venue, and traders ranked in a window. */

import { Type } from '@sinclair/typebox';
import { TRADERS_SCAN_LIMIT, type TraderRow, tradeJson, venueJson } from '../../../../markets/index.js';
import { POOL_SWAPS, TOKEN_SWAPS, TOKEN_TRADERS } from '../../../../schema/cursors.js';
import { type PageSink, paged } from '../../../page.js';
import { defineRoute, type Route } from '../../../route.js';
import { pagedRoute } from '../../../route-shapes.js';
import { Address, Amount, Count, Enum, Obj, Paged, pageQuery, QuoteQuery, Window } from '../../../schemas.js';
import { DistinctCount } from '../../pools/schemas.js';
import { PAGED_MARKET_ERRORS, TOKEN_MARKET } from './common.js';
import { QuoteResolution, TokenTradeSchema, Venue } from './schemas.js';

const Params = { address: Address };
const Quote = { ...Address, description: 'the resolved quote' };

/** What the token trade pages share: path parameters, quote and PAGE query, trade rows, errors. */
const tradePage = {
  scope: 'read' as const,
  group: 'Tokens',
  params: Params,
  query: { ...QuoteQuery, ...pageQuery() },
  row: TokenTradeSchema,
  errors: [...PAGED_MARKET_ERRORS],
  requires: TOKEN_MARKET,
  render: tradeJson,
  /** The cursor is bound to the token and the asked quote. */
  subject: (ctx: { params: { address: string }; query: { quote?: string } }) =>
    `${ctx.params.address.toLowerCase()}:${ctx.query.quote ?? ''}`,
};

export const tokenSwapsRoute = pagedRoute({
  id: 'tokens.swaps',
  cursor: TOKEN_SWAPS,
  path: '/tokens/{address}/swaps',
  ...tradePage,
  summary:
    'Compact quote-policy trades of the token across its pools against the resolved quote (quote rule): side (token perspective), amountToken, amountQuote (base units), price (quote per token, rational), pool, executor (transaction origin), chain coordinates. Not the complete exact pool universe: other quotes are excluded by policy. PAGE.',
  extra: { token: Address, quote: Quote, quoteResolution: QuoteResolution },
  walk(ctx, page, sink) {
    const token = ctx.params.address.toLowerCase();
    const q = ctx.readers.markets.tokenSwaps(ctx.view, token, ctx.query.quote, page, sink);
    return { token, quote: q.quote, quoteResolution: q.how };
  },
});

export const tokenTicksRoute = pagedRoute({
  id: 'tokens.ticks',
  cursor: POOL_SWAPS,
  path: '/tokens/{address}/ticks',
  ...tradePage,
  summary:
    'Per-trade ticks on the default venue (named), oriented quote per token, with transaction context. PAGE by (block, log index).',
  extra: { token: Address, quote: Quote, venue: Venue },
  walk(ctx, q, sink) {
    const token = ctx.params.address.toLowerCase();
    const r = ctx.readers.markets.tokenTicks(ctx.view, token, ctx.query.quote, q, sink);
    return { token, quote: r.quote.quote, venue: venueJson(r.venue) };
  },
});

const Trader = Obj({
  rank: Type.Integer({ minimum: 1, description: 'position by quote volume' }),
  trader: { ...Address, description: 'transaction origin' },
  trades: Count('trades in the window'),
  buys: Count('trades where the trader received the token'),
  sells: Count('trades where the trader gave the token'),
  volumeToken: { ...Amount, description: 'Σ token base units traded' },
  volumeQuote: { ...Amount, description: 'Σ quote base units traded' },
});

export const tokenTradersRoute: Route = defineRoute({
  id: 'tokens.traders',
  method: 'GET',
  path: '/tokens/{address}/traders',
  scope: 'read',
  group: 'Tokens',
  summary: `Distinct traders (transaction origins) of the token against the resolved quote in a window (default 24h; whole 1-minute buckets, as every stats window), ranked by quote volume desc: {trader, trades, buys, sells, volumeToken, volumeQuote}. Bounded: at most ${TRADERS_SCAN_LIMIT} swaps scanned (distinctTraders.exact false beyond). PAGE by rank. As of a block: atBlock / atBlockHash (not_found before the token was first seen; the quote rule over the pools registered at or below N; the window ends at N's timestamp and the ranking aggregates the token's swap rows at or below N, newest first, under the same scan bound, so the answer is the one it gives with N at the head; a cursor minted at N stays at N).`,
  params: Params,
  query: { ...QuoteQuery, window: Type.Optional(Window), ...pageQuery({ orders: ['desc'] }) },
  response: Paged(Trader, {
    token: { ...Address, description: 'the token' },
    quote: Quote,
    window: Enum(['5m', '1h', '4h', '24h'], 'the window'),
    distinctTraders: DistinctCount,
    swapsScanned: Count(`index rows read (at most ${TRADERS_SCAN_LIMIT})`),
  }),
  errors: [...PAGED_MARKET_ERRORS],
  requires: TOKEN_MARKET,
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    const address = ctx.params.address.toLowerCase();
    const w = ctx.query.window ?? '24h';
    return paged(
      ctx,
      TOKEN_TRADERS.tag(this.id, address, ctx.query.quote ?? '', w),
      (q, sink: PageSink<TraderRow>) => {
        const s = ctx.readers.markets.tokenTraders(ctx.view, address, ctx.query.quote, w as '24h', q, sink);
        const { distinctTraders, swapsScanned } = s;
        return { token: address, quote: s.quote.quote, window: w, distinctTraders, swapsScanned };
      },
      JSON.stringify,
      { order: 'desc' },
    );
  },
});
