/** Pool routes (20) — issue E. Typed 503 until the markets projection lands. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { Address, AmountQuery, FrameQuery, PoolId, pageQuery } from '../../schemas.js';

const page = pageQuery();
const a = { address: Address };
const v4 = { manager: Address, pool_id: PoolId };
const bars = { rule: Type.Union([Type.Literal('trade'), Type.Literal('volume')]), size: AmountQuery, ...page };
const P = (id: string, path: string, summary: string, params: object, query: object = {}) =>
  pendingRoute({ id: `pools.${id}`, path, group: 'Pools', scope: 'read', summary, projection: 'markets', params: params as never, query: query as never, batchable: true });

export const poolRoutes = [
  P('byCurrency', '/currencies/{currency}/pools', 'Pools holding the currency on either side (PAGE).', { currency: Address }, page),
  P('detail', '/pools/{address}', 'Pool identity with embedded stats.', a),
  P('ath', '/pools/{address}/ath', 'All-time high price (rational).', a),
  P('atl', '/pools/{address}/atl', 'All-time low price (rational).', a),
  P('liquidity', '/pools/{address}/liquidity', 'Exact protocol-native liquidity, liquidityUsd, usdMarks.', a),
  P('liquidityEvents', '/pools/{address}/liquidity-events', 'Liquidity adds and removes (V2 Mint/Burn, V3 Mint/Burn/Collect) with coordinates (PAGE).', a, page),
  P('ohlcv', '/pools/{address}/ohlcv', 'Candles with two-sided volume and rational OHLC.', a, { ...FrameQuery, ...page }),
  P('stats', '/pools/{address}/stats', 'Rolling 5m/1h/4h/24h statistics.', a),
  P('swaps', '/pools/{address}/swaps', 'Exact swaps with block, transaction and log coordinates (PAGE).', a, page),
  P('ticks', '/pools/{address}/ticks', 'Per-trade tick rows with transaction context (PAGE).', a, page),
  P('bars', '/pools/{address}/ticks/bars', 'N-trade or N-volume bars folded over the tick sequence.', a, bars),
  P('new', '/pools/new', 'Newest-first feed of registered pools by creation coordinate (PAGE).', {}, pageQuery({ orders: ['desc'] })),
  P('search', '/pools/search', 'Bounded filtered pool discovery (anchors token/quote; refinements need allowScan when they filter).', {}, {
    token: Type.Optional(Address),
    quote: Type.Optional(Address),
    fee_tier: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    protocol: Type.Optional(Type.Union([Type.Literal('v2'), Type.Literal('v3'), Type.Literal('v4'), Type.Literal('launchpad')])),
    created_from: Type.Optional(Type.Integer({ minimum: 0 })),
    created_to: Type.Optional(Type.Integer({ minimum: 0 })),
    allowScan: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.String({ maxLength: 32 })),
    factory: Type.Optional(Type.String({ maxLength: 64 })),
    ...page,
  }),
  P('v4Detail', '/pools/v4/{manager}/{pool_id}', 'V4 pool identity (manager + poolId; hooks recorded).', v4),
  P('v4Liquidity', '/pools/v4/{manager}/{pool_id}/liquidity', 'V4 liquidity plus liquidityUsd.', v4),
  P('v4Ohlcv', '/pools/v4/{manager}/{pool_id}/ohlcv', 'V4 candles.', v4, { ...FrameQuery, ...page }),
  P('v4Stats', '/pools/v4/{manager}/{pool_id}/stats', 'V4 rolling statistics.', v4),
  P('v4Swaps', '/pools/v4/{manager}/{pool_id}/swaps', 'V4 swaps (PAGE).', v4, page),
  P('v4Ticks', '/pools/v4/{manager}/{pool_id}/ticks', 'V4 per-trade ticks (PAGE).', v4, page),
  P('v4Bars', '/pools/v4/{manager}/{pool_id}/ticks/bars', 'V4 trade or volume bars.', v4, bars),
];
