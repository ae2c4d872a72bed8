import { Type } from '@sinclair/typebox';
import { liquidityJson, ratJson, usdJson } from '../../../markets/index.js';
import type { Route } from '../../route.js';
import { extremeHead, singleRoute } from '../../route-shapes.js';
import { Address, Nullable, Obj } from '../../schemas.js';
import { ByAddress, poolRouteOf, refOf, type Variant } from './common.js';
import {
  AS_OF_POOL,
  LiquidityUsdAmounts,
  liquidityUsdProps,
  MARKETS,
  NativeLiquidity,
  POOL_PRICE_UNIT,
  PoolKey,
  Price,
  Protocol,
  UsdMarks,
} from './schemas.js';

const make = (variant: Variant): Route =>
  singleRoute({
    ...poolRouteOf(variant, 'liquidity', '/liquidity'),
    summary:
      'Exact protocol-native liquidity at the anchor (V2/curve reserves in base units; V3/V4 sqrtPriceX96, tick and active liquidity L), never merged across kinds; liquidityUsd (exact rational USD through a documented stablecoin route, or null with a reason) with its stated liquidityUsdBasis: reserves for V2/curves, in_range_virtual_reserves for V3/V4 (L·2^96/sqrtPriceX96 and L·sqrtPriceX96/2^96, not the pool balance) and the valued amounts liquidityUsdAmounts; usdMarks provenance.' +
      AS_OF_POOL,
    data: Obj({
      pool: PoolKey,
      protocol: Protocol,
      liquidity: NativeLiquidity,
      ...liquidityUsdProps,
      liquidityUsdAmounts: LiquidityUsdAmounts,
      usdMarks: UsdMarks,
    }),
    errors: ['not_found'],
    requires: [MARKETS],
    asOf: true,
    read(ctx) {
      const l = ctx.readers.markets.poolLiquidity(ctx.view, refOf(variant, ctx.params), ctx.anchor.number);
      return {
        pool: l.pool.key,
        protocol: l.pool.protocol,
        liquidity: liquidityJson(l.pool, l.state),
        ...usdJson(l.usd),
      };
    },
  });

export const poolLiquidityRoute = make('address');
export const v4PoolLiquidityRoute = make('v4');

const extremeRoute = (which: 'high' | 'low'): Route =>
  singleRoute({
    ...extremeHead('pools', which),
    summary: `All-time ${which === 'high' ? 'high' : 'low'} of the pool price (rational, currency1 per currency0 base units) over every indexed trade, with the day bucket where it happened. As of a block: atBlock / atBlockHash (trades at or below N only: the day candle holding later trades is recomputed from the pool's swaps up to N).`,
    params: ByAddress,
    data: Obj({
      pool: PoolKey,
      base: { ...Address, description: 'currency0' },
      quote: { ...Address, description: 'currency1' },
      kind: Type.Literal(which === 'high' ? 'ath' : 'atl', { description: 'all-time high or low' }),
      price: Nullable(Price(POOL_PRICE_UNIT, 'all-time extreme price'), 'see priceReason'),
      priceReason: Type.Union([Type.Literal('no_trades'), Type.Null()], {
        description: 'no_trades: the pool has no trade at the anchor; null when price is set',
      }),
      dayBucket: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description: 'start of the UTC day (unix seconds) of the extreme; null without trades',
      }),
      provenance: Type.Literal('max/min over the pool’s 1d candles (highs/lows of every trade price)', {
        description: 'how the extreme is found',
      }),
    }),
    errors: ['not_found'],
    requires: [MARKETS],
    asOf: true,
    read(ctx) {
      const r = ctx.readers.markets.poolExtreme(
        ctx.view,
        refOf('address', ctx.params),
        ctx.anchor.number,
        which,
      );
      return {
        pool: r.pool.key,
        base: r.pool.currency0,
        quote: r.pool.currency1,
        kind: which === 'high' ? 'ath' : 'atl',
        price: r.extreme ? ratJson(r.extreme.price) : null,
        priceReason: r.extreme ? null : 'no_trades',
        dayBucket: r.extreme?.bucket ?? null,
        provenance: 'max/min over the pool’s 1d candles (highs/lows of every trade price)',
      };
    },
  });

export const poolAthRoute = extremeRoute('high');
export const poolAtlRoute = extremeRoute('low');
