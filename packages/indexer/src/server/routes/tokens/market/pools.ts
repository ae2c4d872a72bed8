/** A token's pools: pair liquidity, pools grouped by counter currency, ranked pools, pools by currency. */

import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../../errors/index.js';
import {
  AGGREGATE_POOLS,
  fracJson,
  liquidityJson,
  membershipJson,
  type PoolRow,
  poolIdentity,
  type RankedPool,
} from '../../../../markets/index.js';
import { POOLS_BY_CURRENCY, TOKEN_POOLS_RANKED } from '../../../../schema/cursors.js';
import { paged } from '../../../page.js';
import { defineRoute } from '../../../route.js';
import { pagedRoute, singleRoute } from '../../../route-shapes.js';
import {
  Address,
  Amount,
  Count,
  Enum,
  Nullable,
  Obj,
  Paged,
  pageQuery,
  QuoteQuery,
  ReasonOf,
} from '../../../schemas.js';

import {
  concentratedProps,
  Fraction,
  liquidityUsdProps,
  PoolIdentity,
  PoolKey,
  Protocol,
  poolIdentityProps,
} from '../../pools/schemas.js';
import { AS_OF_TOKEN, PAGED_MARKET_ERRORS, quoted, TOKEN_MARKET } from './common.js';
import { membershipProps, rankedPoolProps } from './schemas.js';

const Params = { address: Address };

export const tokenLiquidityRoute = singleRoute({
  id: 'tokens.liquidity',
  path: '/tokens/{address}/liquidity',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Protocol-native liquidity of the (token, quote) pair over its bounded pool set: reserves pools summed per side (token and quote base units), concentrated pools listed one by one (sqrtPriceX96, tick, L) and never merged with reserves.' +
    AS_OF_TOKEN,
  params: Params,
  query: QuoteQuery,
  data: Obj({
    token: { ...Address, description: 'the token' },
    quote: { ...Address, description: 'the resolved quote' },
    reserves: Obj({
      tokenReserve: {
        ...Amount,
        description: 'Σ token reserves of the reserves pools (V2, curves), base units',
      },
      quoteReserve: { ...Amount, description: 'Σ quote reserves of the reserves pools, base units' },
      pools: Type.Array(PoolKey, {
        description: 'the reserves pools summed (with reserves at the anchor)',
      }),
    }),
    concentrated: Type.Array(
      Obj({
        pool: PoolKey,
        protocol: Protocol,
        tokenIsCurrency0: Type.Boolean({ description: 'whether the token is currency0 of the pool' }),
        ...concentratedProps,
      }),
      { description: 'V3/V4 pools one by one: state as on the pool liquidity route' },
    ),
    note: Type.Literal(
      'V2/curve reserves and concentrated liquidity are different quantities and are never merged',
      {
        description: 'why the two lists are separate',
      },
    ),
    ...membershipProps,
  }),
  errors: ['bad_request', 'not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  asOf: true,
  read(ctx) {
    const r = ctx.readers.markets.tokenLiquidity(...quoted(ctx));
    const l = r.liquidity;
    return {
      token: r.token,
      quote: r.quote,
      reserves: {
        tokenReserve: l.tokenReserve.toString(),
        quoteReserve: l.quoteReserve.toString(),
        pools: l.reservesPools,
      },
      concentrated: l.concentrated.map((c) => ({
        pool: c.pool.key,
        protocol: c.pool.protocol,
        tokenIsCurrency0: c.tokenIsCurrency0,
        ...liquidityJson(c.pool, c.state),
      })),
      note: 'V2/curve reserves and concentrated liquidity are different quantities and are never merged',
      ...membershipJson(r.membership),
    };
  },
});

export const tokenPoolsAggregateRoute = singleRoute({
  id: 'tokens.poolsAggregate',
  path: '/tokens/{address}/pools/aggregate',
  scope: 'read',
  group: 'Tokens',
  summary: `Registered pools grouped by counter-currency (V4 rows keep contract + poolId); beyond ${AGGREGATE_POOLS} pools the busiest ${AGGREGATE_POOLS} by trailing-24h volume (in each pool's own quote units) are grouped, with poolsTruncated and poolsConsidered.${AS_OF_TOKEN}`,
  params: Params,
  query: QuoteQuery,
  data: Obj({
    token: { ...Address, description: 'the token' },
    groups: Type.Array(
      Obj({
        counterCurrency: { ...Address, description: 'the counter currency of the group' },
        pools: Type.Array(
          Obj({
            ...poolIdentityProps,
            volume24hQuote: {
              ...Amount,
              description: 'trailing-24h volume on the pool’s quote side, quote base units',
            },
            trades24h: Count('trades in the trailing 24h'),
          }),
        ),
      }),
    ),
    poolsTruncated: Type.Boolean({
      description: `more than ${AGGREGATE_POOLS} pools, or the membership bound was reached`,
    }),
    poolsConsidered: Count('pools considered before the cut'),
  }),
  errors: ['bad_request', 'not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  asOf: true,
  read(ctx) {
    const r = ctx.readers.markets.tokenPoolsAggregate(...quoted(ctx));
    return {
      token: r.token,
      groups: r.groups.map((g) => ({
        counterCurrency: g.counterCurrency,
        pools: g.pools.map((x) => ({
          ...poolIdentity(x.pool),
          volume24hQuote: x.volume24hQuote.toString(),
          trades24h: x.trades24h,
        })),
      })),
      poolsTruncated: r.truncated,
      poolsConsidered: r.considered,
    };
  },
});

const volumeFields = (r: RankedPool) => ({
  rankedVolume24hQuote: r.volume24hQuote.toString(),
  rankedVolume24hUsd: r.volume24hUsd === null ? null : r.volume24hUsd.toString(),
  rankedVolume24hUsdReason: r.volume24hUsd === null ? 'no_stablecoin_route' : null,
  rankedVolume24hUsdUnit: 'stablecoin base units at par',
});

const rankedJson = (r: RankedPool): string => {
  const liq = r.liquidity;
  return JSON.stringify({
    rank: r.rank,
    ...poolIdentity(r.pool),
    quoteAsset: r.quoteAsset,
    ...volumeFields(r),
    ...(liq
      ? {
          liquidityUsd: liq.l.usd ? fracJson(liq.l.usd) : null,
          liquidityUsdReason: liq.l.usdReason,
          liquidityUsdMethod: liq.l.usdMethod,
          liquidityUsdBasis: liq.l.basis,
          quoteSideAmount: liq.quoteSide ? fracJson(liq.quoteSide) : null,
          quoteSideAmountUnit: 'quote base units on the liquidityUsdBasis, exact rational',
          rankedBy: liq.l.usd ? 'liquidity_usd' : 'quote_side_amount',
        }
      : {}),
  });
};

const rankedVolumeProps = {
  ...rankedPoolProps,
  ...poolIdentityProps,
  rankedVolume24hUsd: Nullable(
    { ...Amount, description: 'the same volume in USD stablecoin base units at par' },
    'see rankedVolume24hUsdReason',
  ),
  rankedVolume24hUsdReason: ReasonOf(['no_stablecoin_route']),
  rankedVolume24hUsdUnit: Type.Literal('stablecoin base units at par', {
    description: 'unit of rankedVolume24hUsd',
  }),
};
const RankedRow = Type.Union([
  Obj(rankedVolumeProps, { description: 'sort=volume_24h row' }),
  Obj(
    {
      ...rankedVolumeProps,
      ...liquidityUsdProps,
      quoteSideAmount: Nullable(Fraction('quote base units'), 'null when the pool has no liquidity amounts'),
      quoteSideAmountUnit: Type.Literal('quote base units on the liquidityUsdBasis, exact rational', {
        description: 'unit of quoteSideAmount',
      }),
      rankedBy: Enum(['liquidity_usd', 'quote_side_amount'], 'which figure ranked the row'),
    },
    { description: 'sort=liquidity row' },
  ),
]);

export const tokenPoolsRankedRoute = defineRoute({
  id: 'tokens.poolsRanked',
  method: 'GET',
  path: '/tokens/{address}/pools/ranked',
  scope: 'read',
  group: 'Tokens',
  summary:
    "Token's markets over the bounded pool membership (≤ 2,048, the set used by overview, mcap and ohlcv), desc only (order=asc → 400), limit 1..100 default 32. sort=volume_24h (default) ranks by trailing-24h volume: with quote, that quote's pools by quote-native volume (the overview listing order); without quote, by USD volume (configured stablecoin quotes at par) with pools of quotes without a USD stablecoin route last, grouped by quote, then by quote-native volume. sort=liquidity ranks by liquidityUsd (exact rational USD; basis reserves for V2/curves, in_range_virtual_reserves for V3/V4, as on the pool liquidity routes) descending; unpriced pools last, grouped by quote, then by quote-side amount (quoteSideAmount, quote base units) descending. A cursor is bound to its sort and quote: a liquidity cursor never resumes a volume ranking (400 bad_cursor). A cursor keeps the block it was minted at." +
    AS_OF_TOKEN,
  params: Params,
  query: {
    sort: Type.Optional(Type.Union([Type.Literal('volume_24h'), Type.Literal('liquidity')])),
    ...QuoteQuery,
    ...pageQuery({ defaultLimit: 32, maxLimit: 100, orders: ['desc', 'asc'] }),
  },
  response: Paged(RankedRow, {
    sort: Enum(['volume_24h', 'liquidity'], 'the ranking'),
    quote: Nullable(Address, 'the named quote; null: every quote'),
    rankingBasis: Type.String({ description: 'the ranking rule in words' }),
    membershipSource: Type.String({ description: 'the pool set ranked' }),
    ...membershipProps,
  }),
  errors: [...PAGED_MARKET_ERRORS],
  requires: TOKEN_MARKET,
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    if (ctx.query.order === 'asc') throw new DomainError('bad_request', 'ranked pools are descending only');
    const sort = ctx.query.sort ?? 'volume_24h';
    const address = ctx.params.address.toLowerCase();
    // The cursor's route tag carries the sort and quote: a cursor of another sort is refused (bad_cursor).
    const route = TOKEN_POOLS_RANKED.tag(this.id, address, sort, ctx.query.quote ?? '');
    const basis =
      sort === 'liquidity'
        ? 'liquidityUsd desc (USD stablecoins at par; reserves for V2/curves, in_range_virtual_reserves for V3/V4); unpriced pools last, grouped by quote, then quoteSideAmount desc; ties by pool key'
        : 'trailing-24h quote-side volume desc (USD at par without quote, unpriced quotes last grouped by quote); ties by pool key';
    return paged(
      ctx,
      route,
      (q, sink) => {
        const r = ctx.readers.markets.tokenPoolsRanked(ctx.view, address, sort, ctx.query.quote, q, sink);
        return {
          sort,
          quote: r.quote,
          rankingBasis: basis,
          membershipSource: 'the bounded set of ≤ 2048 registered pools used by overview, mcap and ohlcv',
          ...membershipJson(r.membership),
        };
      },
      rankedJson,
      { order: 'desc', limit: 32 },
    );
  },
});

export const tokenPoolsByCurrencyRoute = pagedRoute({
  id: 'tokens.poolsByCurrency',
  cursor: POOLS_BY_CURRENCY,
  path: '/tokens/{address}/pools/by-currency/{currency}',
  scope: 'read',
  group: 'Tokens',
  summary: "The token's pools against one counter currency (PAGE, pool-key order).",
  params: { address: Address, currency: Address },
  row: PoolIdentity,
  extra: {
    token: { ...Address, description: 'the token' },
    currency: { ...Address, description: 'the counter currency' },
  },
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  requires: TOKEN_MARKET,
  subject: (ctx) => `${ctx.params.address.toLowerCase()}:${ctx.params.currency.toLowerCase()}`,
  walk(ctx, q, sink) {
    const [token, currency] = [ctx.params.address.toLowerCase(), ctx.params.currency.toLowerCase()];
    ctx.readers.markets.tokenPoolsByCurrency(ctx.view, token, currency, q, sink);
    return { token, currency };
  },
  render: (p: PoolRow) => JSON.stringify(poolIdentity(p)),
});
