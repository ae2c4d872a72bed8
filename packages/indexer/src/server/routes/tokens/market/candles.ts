import { Type } from '@sinclair/typebox';
import {
  alignRange,
  type Frame,
  orientedCandleJson,
  type TokenSeriesKind,
  venueJson,
} from '../../../../markets/index.js';
import { CANDLE_BUCKETS } from '../../../../schema/cursors.js';
import { paged } from '../../../page.js';
import { defineRoute, type Route } from '../../../route.js';
import {
  Address,
  Count,
  FrameQuery,
  Nullable,
  Paged,
  pageQuery,
  QuoteQuery,
  UnixSeconds,
} from '../../../schemas.js';
import { candleSchema } from '../../pools/schemas.js';
import { PAGED_MARKET_ERRORS, TOKEN_MARKET } from './common.js';
import { QuoteResolution, TOKEN_PRICE_UNIT, Venue } from './schemas.js';

const MCAP_UNIT = 'quote base units (market cap = price × supplyFromTransfers)';

const make = (kind: TokenSeriesKind): Route =>
  defineRoute({
    id: kind === 'candles' ? 'tokens.candles' : kind === 'ohlcv' ? 'tokens.ohlcv' : 'tokens.mcapSeries',
    method: 'GET',
    path:
      kind === 'candles'
        ? '/tokens/{address}/candles'
        : kind === 'ohlcv'
          ? '/tokens/{address}/ohlcv'
          : '/tokens/{address}/mcap/series',
    scope: 'read',
    group: 'Tokens',
    summary:
      kind === 'candles'
        ? 'Candles of the default venue only (one pool, one quote, named): rational OHLC in quote base units per token base unit, volumeBase (token), volumeQuote. Quote rule applies. PAGE by bucket start.'
        : kind === 'ohlcv'
          ? 'Token-grain candles over the token’s pools against one quote (bounded membership ≤ 2048): open = first trade by chain coordinate across pools, close = last, high/low extremes, volumes summed; never blends quotes; naming no quote when several exist is 400 with candidates. All pools keep fine series (fineSeriesAvailable true, no cold pools). PAGE.'
          : 'Market-cap series of the default venue: each candle price × exact supply (supplyFromTransfers at the bucket’s last trade block), quote base units as rationals; behaves like pool OHLCV. PAGE.',
    params: { address: Address },
    query: { ...FrameQuery, ...QuoteQuery, ...pageQuery() },
    response: Paged(candleSchema(kind === 'mcap' ? MCAP_UNIT : TOKEN_PRICE_UNIT, 'the token', 'the quote'), {
      token: { ...Address, description: 'the token' },
      quote: { ...Address, description: 'the resolved quote' },
      quoteResolution: QuoteResolution,
      venue: Nullable(Venue, 'the default venue (candles); null for ohlcv and mcap/series'),
      poolsAggregated: Count('pools whose candles are merged'),
      frame: Type.Union(
        ['1s', '30s', '1m', '1h', '1d'].map((f) => Type.Literal(f)),
        { description: 'bucket width' },
      ),
      from: UnixSeconds('first bucket start (aligned down)'),
      to: UnixSeconds('last bucket start (aligned down)'),
      priceUnit: Type.Literal(kind === 'mcap' ? MCAP_UNIT : TOKEN_PRICE_UNIT, {
        description: 'unit of the prices',
      }),
      fineSeriesAvailable: Type.Boolean({ description: 'true: every pool keeps 1s and 30s series' }),
      fineSeriesColdPools: Type.Array(Type.String(), {
        maxItems: 0,
        description: 'always empty: no pool is cold',
      }),
      finePoolsSkipped: Type.Literal(0, { description: 'always 0: no pool is skipped' }),
    }),
    errors: [...PAGED_MARKET_ERRORS],
    requires: TOKEN_MARKET,
    batchable: true,
    anchored: true,
    handler(ctx) {
      const frame = ctx.query.frame as Frame;
      const r = alignRange(frame, ctx.query.from, ctx.query.to);
      const address = ctx.params.address.toLowerCase();
      const route = CANDLE_BUCKETS.tag(this.id, address, ctx.query.quote ?? '', frame, r.from, r.to);
      const series = { quote: ctx.query.quote, frame, from: r.from, to: r.to };
      return paged(
        ctx,
        route,
        (q, sink) => {
          const s = ctx.readers.markets.tokenSeries(ctx.view, address, kind, series, q, sink);
          return {
            token: address,
            quote: s.quote.quote,
            quoteResolution: s.quote.how,
            venue: kind === 'candles' ? venueJson(s.venue) : null,
            poolsAggregated: s.pools,
            frame,
            from: r.from,
            to: r.to,
            priceUnit: kind === 'mcap' ? MCAP_UNIT : TOKEN_PRICE_UNIT,
            fineSeriesAvailable: true,
            fineSeriesColdPools: [],
            finePoolsSkipped: 0,
          };
        },
        orientedCandleJson,
      );
    },
  });

export const tokenCandlesRoute = make('candles');
export const tokenOhlcvRoute = make('ohlcv');
export const tokenMcapSeriesRoute = make('mcap');
