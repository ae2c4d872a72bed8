import { Type } from '@sinclair/typebox';
import type { PoolRow } from '../../../../markets/model.js';
import { cmp, type Rational } from '../../../../markets/rational.js';
import { stateAt } from '../../../../markets/read.js';
import { MarketTable } from '../../../../markets/tables.js';
import { counterOf, tokenIsBase, volume24h } from '../../../../markets/venue.js';
import { KeyBuilder, prefixEnd } from '../../../../storage/keys.js';
import { ApiError } from '../../../errors.js';
import { PageBuilder, pageRequest, walkRange } from '../../../page.js';
import { defineRoute, single } from '../../../route.js';
import { Address, OpenPaged, Paged, pageQuery, QuoteQuery, Single } from '../../../schemas.js';
import { liquidityJson, poolIdentity } from '../../pools/common.js';
import { type PoolLiquidityUsd, poolLiquidityUsd } from '../../pools/usd.js';
import { marketOf, membershipJson, PAGED_MARKET_ERRORS, poolsWithQuote, quoteOf } from './common.js';

/** Pools grouped in one aggregate response at most (Limits). */
export const AGGREGATE_POOLS = 200;

export const tokenLiquidityRoute = defineRoute({
  id: 'tokens.liquidity',
  method: 'GET',
  path: '/tokens/{address}/liquidity',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Protocol-native liquidity of the (token, quote) pair over its bounded pool set: reserves pools summed per side (token and quote base units), concentrated pools listed one by one (sqrtPriceX96, tick, L) and never merged with reserves.',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    const q = quoteOf(m, ctx.query.quote);
    let token = 0n;
    let quote = 0n;
    const reservesPools: string[] = [];
    const concentrated: unknown[] = [];
    for (const p of poolsWithQuote(m, q.quote)) {
      const st = stateAt(ctx.view, p.key, ctx.anchor.number);
      if (p.protocol === 'v2' || p.protocol === 'launchpad') {
        if (!st?.reserve0 || !st.reserve1) continue;
        const base = tokenIsBase(p, m.address);
        token += BigInt(base ? st.reserve0 : st.reserve1);
        quote += BigInt(base ? st.reserve1 : st.reserve0);
        reservesPools.push(p.key);
      } else {
        concentrated.push({
          pool: p.key,
          protocol: p.protocol,
          tokenIsCurrency0: tokenIsBase(p, m.address),
          ...liquidityJson(p, st),
        });
      }
    }
    return single(
      ctx.anchor,
      JSON.stringify({
        token: m.address,
        quote: q.quote,
        reserves: { tokenReserve: token.toString(), quoteReserve: quote.toString(), pools: reservesPools },
        concentrated,
        note: 'V2/curve reserves and concentrated liquidity are different quantities and are never merged',
        ...membershipJson(m),
      }),
    );
  },
});

export const tokenPoolsAggregateRoute = defineRoute({
  id: 'tokens.poolsAggregate',
  method: 'GET',
  path: '/tokens/{address}/pools/aggregate',
  scope: 'read',
  group: 'Tokens',
  summary: `Registered pools grouped by counter-currency (V4 rows keep contract + poolId); beyond ${AGGREGATE_POOLS} pools the busiest ${AGGREGATE_POOLS} by trailing-24h volume (in each pool's own quote units) are grouped, with poolsTruncated and poolsConsidered.`,
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    let pools = m.pools.pools;
    if (ctx.query.quote) pools = poolsWithQuote(m, quoteOf(m, ctx.query.quote).quote);
    const withVol = pools.map((p) => ({ p, v: volume24h(ctx.view, p, m.address, m.at) }));
    const truncated = withVol.length > AGGREGATE_POOLS;
    if (truncated) withVol.sort((a, b) => (b.v.quote > a.v.quote ? 1 : b.v.quote < a.v.quote ? -1 : 0));
    const groups = new Map<string, unknown[]>();
    for (const { p, v } of withVol.slice(0, AGGREGATE_POOLS)) {
      const c = counterOf(p, m.address);
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c)!.push({ ...poolIdentity(p), volume24hQuote: v.quote.toString(), trades24h: v.trades });
    }
    return single(
      ctx.anchor,
      JSON.stringify({
        token: m.address,
        groups: [...groups.entries()].map(([counter, rows]) => ({ counterCurrency: counter, pools: rows })),
        poolsTruncated: truncated || m.pools.truncated,
        poolsConsidered: withVol.length,
      }),
    );
  },
});

/** One pool of a liquidity ranking: its USD liquidity, or for unpriced pools the quote-side amount. */
interface LiquidityRanked {
  p: PoolRow;
  q: string;
  l: PoolLiquidityUsd;
  /** Quote-side amount of the liquidity basis (quote base units), null without amounts. */
  quoteSide: Rational | null;
}

/**
 * Order of sort=liquidity: pools with a liquidityUsd first, by liquidityUsd descending; then the
 * unpriced pools grouped by quote (ascending address), each group by quote-side amount descending
 * (pools without amounts last); ties by pool key.
 */
function byLiquidity(a: LiquidityRanked, b: LiquidityRanked): number {
  if ((a.l.usd === null) !== (b.l.usd === null)) return a.l.usd === null ? 1 : -1;
  let c = 0;
  if (a.l.usd && b.l.usd) c = cmp(b.l.usd, a.l.usd);
  else if (a.q !== b.q) return a.q < b.q ? -1 : 1;
  else if ((a.quoteSide === null) !== (b.quoteSide === null)) return a.quoteSide === null ? 1 : -1;
  else if (a.quoteSide && b.quoteSide) c = cmp(b.quoteSide, a.quoteSide);
  return c || (a.p.key < b.p.key ? -1 : 1);
}

const ratFields = (x: Rational) => ({ numerator: x.n.toString(), denominator: x.d.toString() });

export const tokenPoolsRankedRoute = defineRoute({
  id: 'tokens.poolsRanked',
  method: 'GET',
  path: '/tokens/{address}/pools/ranked',
  scope: 'read',
  group: 'Tokens',
  summary:
    "Token's markets over the bounded pool membership (≤ 2,048, the set used by overview, mcap and ohlcv), desc only (order=asc → 400), limit 1..100 default 32. sort=volume_24h (default) ranks by trailing-24h volume: with quote, that quote's pools by quote-native volume (the overview listing order); without quote, by USD volume (configured stablecoin quotes at par) with pools of quotes without a USD stablecoin route last, grouped by quote, then by quote-native volume. sort=liquidity ranks by liquidityUsd (exact rational USD; basis reserves for V2/curves, in_range_virtual_reserves for V3/V4, as on the pool liquidity routes) descending; unpriced pools last, grouped by quote, then by quote-side amount (quoteSideAmount, quote base units) descending. A cursor is bound to its sort and quote: a liquidity cursor never resumes a volume ranking (400 bad_cursor).",
  params: { address: Address },
  query: {
    sort: Type.Optional(Type.Union([Type.Literal('volume_24h'), Type.Literal('liquidity')])),
    ...QuoteQuery,
    ...pageQuery({ defaultLimit: 32, maxLimit: 100, orders: ['desc', 'asc'] }),
  },
  response: OpenPaged({ membershipSource: Type.String() }),
  errors: [...PAGED_MARKET_ERRORS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    if (ctx.query.order === 'asc') throw new ApiError('bad_request', 'ranked pools are descending only');
    const sort = ctx.query.sort ?? 'volume_24h';
    const address = ctx.params.address.toLowerCase();
    // The cursor's route tag carries the sort and quote: a cursor of another sort is refused (bad_cursor).
    const req = pageRequest(ctx, `${this.id}:${address}:${sort}:${ctx.query.quote ?? ''}`, {
      order: 'desc',
      limit: 32,
    });
    const A = req.anchor.number;
    const rocks = ctx.chain.store.rocks;
    const m = marketOf(ctx, A);
    const quote = ctx.query.quote ? quoteOf(m, ctx.query.quote).quote : null;
    const stables = new Set(ctx.chain.markets.usdStablecoins);
    const pools = quote ? poolsWithQuote(m, quote) : m.pools.pools;
    const volumeOf = (p: PoolRow, q: string) => {
      const v = volume24h(ctx.view, p, m.address, m.at).quote;
      return { v, usd: stables.has(q) ? v : null };
    };
    const volumeFields = (v: { v: bigint; usd: bigint | null }) => ({
      rankedVolume24hQuote: v.v.toString(),
      rankedVolume24hUsd: v.usd === null ? null : v.usd.toString(),
      rankedVolume24hUsdReason: v.usd === null ? 'no_stablecoin_route' : null,
      rankedVolume24hUsdUnit: 'stablecoin base units at par',
    });
    let rows: Array<{ p: PoolRow; q: string; row: () => Record<string, unknown> }>;
    if (sort === 'liquidity') {
      const ranked: LiquidityRanked[] = pools.map((p) => {
        const l = poolLiquidityUsd(ctx, p, stateAt(ctx.view, p.key, A), A);
        const quoteSide = l.amounts ? l.amounts[tokenIsBase(p, m.address) ? 1 : 0] : null;
        return { p, q: counterOf(p, m.address), l, quoteSide };
      });
      ranked.sort(byLiquidity);
      rows = ranked.map((r) => ({
        p: r.p,
        q: r.q,
        row: () => ({
          ...volumeFields(volumeOf(r.p, r.q)),
          liquidityUsd: r.l.usd ? ratFields(r.l.usd) : null,
          liquidityUsdReason: r.l.usdReason,
          liquidityUsdMethod: r.l.usdMethod,
          liquidityUsdBasis: r.l.basis,
          quoteSideAmount: r.quoteSide ? ratFields(r.quoteSide) : null,
          quoteSideAmountUnit: 'quote base units on the liquidityUsdBasis, exact rational',
          rankedBy: r.l.usd ? 'liquidity_usd' : 'quote_side_amount',
        }),
      }));
    } else {
      const ranked = pools.map((p) => {
        const q = counterOf(p, m.address);
        return { p, q, ...volumeOf(p, q) };
      });
      ranked.sort((a, b) => {
        if (!quote && (a.usd === null) !== (b.usd === null)) return a.usd === null ? 1 : -1;
        if (!quote && a.usd === null && a.q !== b.q) return a.q < b.q ? -1 : 1;
        return b.v > a.v ? 1 : b.v < a.v ? -1 : a.p.key < b.p.key ? -1 : 1;
      });
      rows = ranked.map((r) => ({ p: r.p, q: r.q, row: () => volumeFields(r) }));
    }
    const start = req.after ? req.after.readUInt32BE(0) : 0;
    const b = new PageBuilder(ctx, req);
    for (let i = start; i < rows.length; i++) {
      const r = rows[i];
      const key = Buffer.alloc(4);
      key.writeUInt32BE(i + 1);
      const row = { rank: i + 1, ...poolIdentity(r.p), quoteAsset: r.q, ...r.row() };
      if (!b.push(JSON.stringify(row), key)) break;
    }
    const basis =
      sort === 'liquidity'
        ? ',"rankingBasis":"liquidityUsd desc (USD stablecoins at par; reserves for V2/curves, in_range_virtual_reserves for V3/V4); unpriced pools last, grouped by quote, then quoteSideAmount desc; ties by pool key"'
        : ',"rankingBasis":"trailing-24h quote-side volume desc (USD at par without quote, unpriced quotes last grouped by quote); ties by pool key"';
    return b.finish(
      `"sort":"${sort}","quote":${quote ? `"${quote}"` : 'null'}${basis},"membershipSource":"the bounded set of ≤ 2048 registered pools used by overview, mcap and ohlcv",${JSON.stringify(membershipJson(m)).slice(1, -1)}`,
    );
  },
});

export const tokenPoolsByCurrencyRoute = defineRoute({
  id: 'tokens.poolsByCurrency',
  method: 'GET',
  path: '/tokens/{address}/pools/by-currency/{currency}',
  scope: 'read',
  group: 'Tokens',
  summary: "The token's pools against one counter currency (PAGE, pool-key order).",
  params: { address: Address, currency: Address },
  query: pageQuery(),
  response: OpenPaged(),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const address = ctx.params.address.toLowerCase();
    const currency = ctx.params.currency.toLowerCase();
    const req = pageRequest(ctx, `${this.id}:${address}:${currency}`);
    const m = marketOf(ctx, req.anchor.number);
    const pre = new KeyBuilder(21).u8(MarketTable.POOL_BY_CURRENCY).hex(address).done();
    const keys = new Set(poolsWithQuote(m, currency).map((p) => p.key));
    const byKey = new Map(m.pools.pools.map((p) => [p.key, p]));
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k) => {
      const key = `0x${k.toString('hex', 21)}`;
      if (!keys.has(key)) return null;
      return [JSON.stringify(poolIdentity(byKey.get(key)!)), k.subarray(21)];
    }).finish(`"token":"${address}","currency":"${currency}"`);
  },
});
