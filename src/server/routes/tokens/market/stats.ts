import { Type } from '@sinclair/typebox';
import type { SwapRow } from '../../../../markets/model.js';
import { invert, type Rational, ratJson } from '../../../../markets/rational.js';
import { WINDOWS, windowFrom, windowStats } from '../../../../markets/read.js';
import { MarketTable } from '../../../../markets/tables.js';
import { tokenIsBase } from '../../../../markets/venue.js';
import { KeyBuilder, prefixEnd } from '../../../../storage/keys.js';
import { ApiError } from '../../../errors.js';
import type { Ctx } from '../../../route.js';
import { defineRoute, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { DISTINCT_SCAN_LIMIT } from '../../pools/stats.js';
import { type MarketCtx, marketOf, marketQuoteOf, venueJson, venueOf } from './common.js';

/** Token statistics on the default venue for one quote (oriented: base = token). */
export function tokenStats(ctx: Ctx<unknown, unknown>, m: MarketCtx, quote: string) {
  const v = venueOf(ctx, m, quote);
  const p = v.pool;
  const base = tokenIsBase(p, m.address);
  const ws = windowStats(ctx.view, p.key, m.at);
  // Window membership is the volumes' rule (whole 1-minute buckets, see windowFrom).
  const from = Object.fromEntries(WINDOWS.map(([w, secs]) => [w, windowFrom(m.anchorTs, secs)]));
  const sets: Record<string, Set<string>> = Object.fromEntries(WINDOWS.map(([w]) => [w, new Set<string>()]));
  let scanned = 0;
  let complete = true;
  const pre = new KeyBuilder(54).u8(MarketTable.SWAP).hex(p.key).done();
  ctx.chain.store.rocks.each({ gte: pre, lt: prefixEnd(pre), reverse: true }, (_k, val) => {
    const s = JSON.parse(val.toString()) as SwapRow;
    if (s.block > ctx.anchor.number) return true;
    if (s.timestamp < from['24h']) return false;
    if (++scanned > DISTINCT_SCAN_LIMIT) {
      complete = false;
      return false;
    }
    for (const [w, f] of Object.entries(from)) if (s.timestamp >= f) sets[w].add(s.origin);
    return true;
  });
  const o = (r: Rational | null) => (r ? (base ? r : invert(r)) : null);
  const windows: Record<string, unknown> = {};
  for (const w of ws) {
    const open = o(w.open);
    const close = o(w.close);
    windows[w.window] = {
      volumeBase: base ? w.volume0 : w.volume1,
      volumeQuote: base ? w.volume1 : w.volume0,
      trades: w.trades,
      buys: base ? w.buys : w.sells,
      sells: base ? w.sells : w.buys,
      distinctTraders: { lowerBound: sets[w.window].size, exact: complete },
      open: open ? ratJson(open) : null,
      close: close ? ratJson(close) : null,
      priceChange:
        open && close ? ratJson({ n: close.n * open.d - open.n * close.d, d: open.n * close.d }) : null,
      priceChangeReason: open ? null : 'no_trades_in_window',
    };
  }
  return {
    venue: venueJson(v),
    windows,
    windowAlignment: 'windows cover 1-minute buckets (t − window, t]',
    distinctTradersBasis: 'transaction origin',
  };
}

export const tokenStatsRoute = defineRoute({
  id: 'tokens.stats',
  method: 'GET',
  path: '/tokens/{address}/stats',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Rolling 5m/1h/4h/24h statistics on the default venue: two-sided volume (volumeBase token, volumeQuote), buys, sells, distinctTraders {lowerBound, exact}, exact price change. Without quote and several quotes: the quote with the largest USD-markable 24h volume (configured USD stablecoins) is used and every candidate is published; quote_ambiguous (400) only when no quote has USD-markable volume.',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'quote_ambiguous', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    const { quote, how, candidates } = marketQuoteOf(ctx, m, ctx.query.quote);
    if (!quote) {
      throw new ApiError('quote_ambiguous', 'several quotes and none has USD-markable 24h volume: name one', {
        candidates,
      });
    }
    return single(
      ctx.anchor,
      JSON.stringify({
        token: m.address,
        quote,
        quoteResolution: how,
        candidates,
        ...tokenStats(ctx, m, quote),
      }),
    );
  },
});
