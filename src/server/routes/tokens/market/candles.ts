import { Type } from '@sinclair/typebox';
import type { Frame } from '../../../../markets/model.js';
import type { Rational } from '../../../../markets/rational.js';
import { statsAt } from '../../../../tokens/read.js';
import { PageBuilder, pageRequest } from '../../../page.js';
import { defineRoute, type Route } from '../../../route.js';
import { Address, FrameQuery, OpenPaged, Paged, pageQuery, QuoteQuery } from '../../../schemas.js';
import { alignRange } from '../../pools/ohlcv.js';
import { marketOf, PAGED_MARKET_ERRORS, poolsWithQuote, quoteOf, venueJson, venueOf } from './common.js';
import { mergedCandles, orientedJson } from './series.js';

type Kind = 'candles' | 'ohlcv' | 'mcap';

const make = (kind: Kind): Route =>
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
          : 'Market-cap series: each candle price × exact supply (supplyFromTransfers at the bucket’s last trade block), quote base units as rationals; behaves like pool OHLCV. PAGE.',
    params: { address: Address },
    query: { ...FrameQuery, ...QuoteQuery, ...pageQuery() },
    response: OpenPaged(),
    errors: [...PAGED_MARKET_ERRORS],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const frame = ctx.query.frame as Frame;
      const { from, to } = alignRange(frame, ctx.query.from, ctx.query.to);
      const address = ctx.params.address.toLowerCase();
      const req = pageRequest(ctx, `${this.id}:${address}:${ctx.query.quote ?? ''}:${frame}:${from}:${to}`);
      const m = marketOf(ctx, req.anchor.number);
      const q = quoteOf(m, ctx.query.quote);
      const v = venueOf(ctx, m, q.quote);
      const pools = kind === 'ohlcv' ? poolsWithQuote(m, q.quote) : [v.pool];
      let rows = mergedCandles(ctx, pools, address, frame, from, to, req.anchor.number, m.anchorTs);
      if (req.order === 'desc') rows = rows.reverse();
      if (req.after) {
        const t = Number(req.after.readBigUInt64BE(0));
        rows = rows.filter((c) => (req.order === 'asc' ? c.t > t : c.t < t));
      }
      const rocks = ctx.chain.store.rocks;
      const scale =
        kind === 'mcap'
          ? (r: Rational, c: (typeof rows)[number]) => {
              const supply = BigInt(statsAt(ctx.view, address, c.last[0])?.supplyFromTransfers ?? '0');
              return { n: r.n * supply, d: r.d };
            }
          : undefined;
      const b = new PageBuilder(ctx, req);
      for (const c of rows) {
        const key = Buffer.alloc(8);
        key.writeBigUInt64BE(BigInt(c.t));
        if (!b.push(JSON.stringify(orientedJson(c, scale)), key)) break;
      }
      return b.finish(
        `"token":"${address}","quote":"${q.quote}","quoteResolution":"${q.how}","venue":${JSON.stringify(kind === 'candles' ? venueJson(v) : null)},"poolsAggregated":${pools.length},"frame":"${frame}","from":${from},"to":${to},"priceUnit":"${kind === 'mcap' ? 'quote base units (market cap = price × supplyFromTransfers)' : 'quote base units per token base unit'}","fineSeriesAvailable":true,"fineSeriesColdPools":[],"finePoolsSkipped":0`,
      );
    },
  });

export const tokenCandlesRoute = make('candles');
export const tokenOhlcvRoute = make('ohlcv');
export const tokenMcapSeriesRoute = make('mcap');
