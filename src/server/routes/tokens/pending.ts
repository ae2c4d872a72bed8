/**
 * Token routes (31) — issue D (registry, balances, holders, launchpads) and issue E (markets).
 * Until their projections land they answer a typed 503 naming the projection.
 */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { Address, AmountQuery, FrameQuery, QuoteQuery, pageQuery } from '../../schemas.js';

const a = { address: Address };
const page = pageQuery();
const T = (id: string, path: string, summary: string, projection: string, params: object = a, query: object = {}) =>
  pendingRoute({ id: `tokens.${id}`, path, group: 'Tokens', scope: 'read', summary, projection, params: params as never, query: query as never, batchable: true });

export const tokenPendingRoutes = [
  T('overview', '/tokens/{address}/overview', 'First-paint composite: identity, price, market cap, window stats, pool listing, holderCount.', 'markets', a, QuoteQuery),
  T('stats', '/tokens/{address}/stats', 'Rolling 5m/1h/4h/24h statistics on the default venue.', 'markets', a, QuoteQuery),
  T('ohlcv', '/tokens/{address}/ohlcv', 'Token-grain candles over a bounded pool set, rational OHLC.', 'markets', a, { ...FrameQuery, ...QuoteQuery, ...page }),
  T('candles', '/tokens/{address}/candles', 'Candles of the default venue only (one pool, one quote), named on the response.', 'markets', a, { ...FrameQuery, ...QuoteQuery, ...page }),
  T('mcap', '/tokens/{address}/mcap', 'Market cap at the anchored block from exact supply and the resolved price.', 'markets', a, QuoteQuery),
  T('mcapSeries', '/tokens/{address}/mcap/series', 'Market-cap series; behaves like pool OHLCV.', 'markets', a, { ...FrameQuery, ...QuoteQuery, ...page }),
  T('ath', '/tokens/{address}/ath', 'All-time high across the bounded pool fanout, with provenance.', 'markets', a, QuoteQuery),
  T('atl', '/tokens/{address}/atl', 'All-time low, same shape as ath.', 'markets', a, QuoteQuery),
  T('liquidity', '/tokens/{address}/liquidity', 'Protocol-native liquidity for one pair over a bounded pool set; V2 and concentrated kept separate.', 'markets', a, QuoteQuery),
  T('poolsAggregate', '/tokens/{address}/pools/aggregate', 'Registered pools grouped by counter-currency (≤ 200 pools).', 'markets', a, QuoteQuery),
  T('poolsRanked', '/tokens/{address}/pools/ranked', "Token's markets ranked by trailing-24h volume or liquidity (desc only).", 'markets', a, {
    sort: Type.Optional(Type.Union([Type.Literal('volume_24h'), Type.Literal('liquidity')])),
    ...QuoteQuery,
    ...pageQuery({ defaultLimit: 32, maxLimit: 100, orders: ['desc'] }),
  }),
  T('poolsByCurrency', '/tokens/{address}/pools/by-currency/{currency}', "The token's pools against one counter currency (PAGE, pool identity order).", 'markets', { address: Address, currency: Address }, page),
  T('venue', '/tokens/{address}/venue', 'Venue resolution: the default pool per quote, the rule that chose it, and the candidates.', 'markets', a, QuoteQuery),
  T('price', '/tokens/{address}/price', 'Spot price on the default venue at the anchored block, as a rational.', 'markets', a, QuoteQuery),
  T('swaps', '/tokens/{address}/swaps', 'Compact quote-policy trades with side, amounts, pool, executor.', 'markets', a, { ...QuoteQuery, ...page }),
  T('traders', '/tokens/{address}/traders', 'Distinct traders of the token in a window with volume and trade counts (bounded).', 'markets', a, {
    ...QuoteQuery,
    window: Type.Optional(Type.Union(['5m', '1h', '4h', '24h'].map((w) => Type.Literal(w)))),
    ...pageQuery({ defaultLimit: 100, orders: ['desc'] }),
  }),
  T('ticks', '/tokens/{address}/ticks', 'Per-trade ticks on the default venue with transaction context.', 'markets', a, { ...QuoteQuery, ...page }),
];
void AmountQuery;
