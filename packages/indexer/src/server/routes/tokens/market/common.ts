/** Shared by the token market routes: renderings of the markets reader's objects. */

import type {
  OrientedCandle,
  PoolRow,
  Rational,
  TokenTrade,
  TokenWindow,
  VenueChoice,
  WindowName,
} from '../../../../markets/index.js';
import { orientedCandleJson } from '../../../../markets/index.js';
import type { ErrorCode } from '../../../errors.js';
import { priceFieldsJson, ratJson } from '../../pools/common.js';

/** Projections the token market routes read. */
export const TOKEN_MARKET = ['tokens', 'markets'] as const;

/** Typed errors of the token market PAGE routes (quote rule, cursors). */
export const PAGED_MARKET_ERRORS: readonly ErrorCode[] = [
  'bad_request',
  'not_found',
  'quote_not_admitted',
  'bad_cursor',
  'stale_cursor',
];

export const venueJson = (v: VenueChoice) => ({
  pool: v.pool.key,
  protocol: v.pool.protocol,
  contract: v.pool.contract,
  poolId: v.pool.poolId,
  rule: v.rule,
});

/** Membership fields of the Token resource (bounded at 2,048 pools). */
export const membershipJson = (m: { pools: PoolRow[]; truncated: boolean }) => ({
  poolsConsidered: m.pools.length,
  poolsTruncated: m.truncated,
  poolsFanoutExceeded: m.truncated,
  poolFanoutExceeded: m.truncated,
});

/** The windows of the token stats body. */
export function windowsJson(ws: Record<WindowName, TokenWindow>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [w, x] of Object.entries(ws)) {
    out[w] = {
      volumeBase: x.volumeBase,
      volumeQuote: x.volumeQuote,
      trades: x.trades,
      buys: x.buys,
      sells: x.sells,
      distinctTraders: x.distinctTraders,
      open: x.open ? ratJson(x.open) : null,
      close: x.close ? ratJson(x.close) : null,
      priceChange: x.priceChange ? ratJson(x.priceChange) : null,
      priceChangeReason: x.priceChangeReason,
    };
  }
  return out;
}

/** The /tokens/{address}/stats body. */
export const statsBodyJson = (s: {
  token: string;
  quote: string;
  quoteResolution: string;
  candidates: string[];
  venue: VenueChoice;
  windows: Record<WindowName, TokenWindow>;
}) => ({
  token: s.token,
  quote: s.quote,
  quoteResolution: s.quoteResolution,
  candidates: s.candidates,
  venue: venueJson(s.venue),
  windows: windowsJson(s.windows),
  windowAlignment: 'windows cover 1-minute buckets (t − window, t]',
  distinctTradersBasis: 'transaction origin',
});

export const tradeJson = (t: TokenTrade): string => {
  const { price, ...rest } = t;
  return JSON.stringify({ ...rest, ...priceFieldsJson(price) });
};

export const orientedJson = (c: OrientedCandle): string => orientedCandleJson(c);
