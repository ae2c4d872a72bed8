/**
 * Response schemas of the token market routes (price, market cap, extremes, venue, stats,
 * overview, liquidity, pools, trades, traders, candles). Prices are quote base units per token
 * base unit as exact rationals `{priceNumerator, priceDenominator}`; amounts base units as decimal
 * strings (R6); null fields carry a sibling reason (R7).
 */
// biome-ignore lint/correctness/noUnusedImports: named so the emitted .d.ts can name TypeBox's symbol keys (TS4023)
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { Address, Amount, Count, Enum, Nullable, Obj, ReasonOf } from '../../../schemas.js';
import {
  DistinctCount,
  PoolKey,
  Price,
  Protocol,
  priceFields,
  swapPositionProps,
} from '../../pools/schemas.js';

export const TOKEN_PRICE_UNIT = 'quote base units per token base unit';

/** The default venue as named on responses. */
export const Venue = Obj(
  {
    pool: PoolKey,
    protocol: Protocol,
    contract: { ...Address, description: 'pool contract, PoolManager (v4) or curve' },
    poolId: Nullable(Type.String({ pattern: '^0x[0-9a-f]{64}$' }), 'V4 pool id; null otherwise'),
    rule: Type.String({ description: 'the default-venue rule' }),
  },
  { description: 'the default venue of (token, quote)' },
);

export const QuoteResolution = Enum(
  ['named', 'only_counter_currency', 'largest_usd_markable_volume'],
  'named: the quote parameter; only_counter_currency: the single quote of the token; largest_usd_markable_volume: first-paint fallback among USD stablecoin quotes',
);
export const Candidates = Type.Array(Address, {
  description: 'every counter currency of the token (quote candidates)',
});

/** Membership fields of the token's bounded pool set (≤ 2,048). */
export const membershipProps = {
  poolsConsidered: Count('pools of the token considered (bounded at 2,048)'),
  poolsTruncated: Type.Boolean({ description: 'more pools exist than were considered' }),
  poolsFanoutExceeded: Type.Boolean({ description: 'the 2,048 membership bound was reached' }),
  poolFanoutExceeded: Type.Boolean({ description: 'alias of poolsFanoutExceeded' }),
};

/** One window of token statistics on the default venue (oriented: base = token). */
export const TokenWindow = Obj({
  volumeBase: { ...Amount, description: 'token base units, both sides of each trade' },
  volumeQuote: { ...Amount, description: 'quote base units' },
  trades: Count('swaps in the window'),
  buys: Count('swaps where the trader received the token'),
  sells: Count('swaps where the trader gave the token'),
  distinctTraders: DistinctCount,
  open: Nullable(Price(TOKEN_PRICE_UNIT, 'first price of the window'), 'null without trades'),
  close: Nullable(Price(TOKEN_PRICE_UNIT, 'last price of the window'), 'null without trades'),
  priceChange: Nullable(Price('(close − open) / open, unitless', 'price change'), 'see priceChangeReason'),
  priceChangeReason: ReasonOf(['no_trades_in_window']),
});
export const TokenWindows = Obj(
  { '5m': TokenWindow, '1h': TokenWindow, '4h': TokenWindow, '24h': TokenWindow },
  { description: 'rolling windows of whole 1-minute buckets ending at the anchor' },
);

/** The /tokens/{address}/stats body (also embedded in the token detail). */
export const tokenStatsProps = {
  token: { ...Address, description: 'the token' },
  quote: { ...Address, description: 'the resolved quote' },
  quoteResolution: QuoteResolution,
  candidates: Candidates,
  venue: Venue,
  windows: TokenWindows,
  windowAlignment: Type.Literal('windows cover 1-minute buckets (t − window, t]', {
    description: 'window rule',
  }),
  distinctTradersBasis: Type.Literal('transaction origin', { description: 'who counts as a trader' }),
};
export const TokenStats = Obj(tokenStatsProps, { description: 'token statistics on the default venue' });

/** A pool row of the overview listing and the ranked pools. */
export const rankedPoolProps = {
  rank: Type.Integer({ minimum: 1, description: 'position in the ranking' }),
  quoteAsset: { ...Address, description: 'the pool’s counter currency (its quote)' },
  rankedVolume24hQuote: { ...Amount, description: 'trailing-24h quote-side volume, quote base units' },
};

/** A trade in token perspective. */
export const TokenTradeSchema = Obj({
  ...swapPositionProps(),
  pool: PoolKey,
  protocol: Protocol,
  executor: { ...Address, description: 'the transaction origin' },
  side: Enum(['buy', 'sell'], 'buy: the trader received the token'),
  amountToken: { ...Amount, description: 'token base units moved' },
  amountQuote: { ...Amount, description: 'quote base units moved' },
  ...priceFields(TOKEN_PRICE_UNIT, 'price after the trade'),
});
