import { Type } from '@sinclair/typebox';
import { ratJson, ratParse } from '../../../../markets/rational.js';
import { stateAt } from '../../../../markets/read.js';
import { counterOf, orient, volume24h } from '../../../../markets/venue.js';
import { statsAt } from '../../../../tokens/read.js';
import { tokenIdentity } from '../../../../tokens/render.js';
import { defineRoute, single } from '../../../route.js';
import { Address, QuoteQuery, Single } from '../../../schemas.js';
import { poolIdentity } from '../../pools/common.js';
import { marketOf, marketQuoteOf, membershipJson, venueJson, venueOf } from './common.js';
import { tokenStats } from './stats.js';

/** Rows of the overview's pool listing (Limits). */
export const OVERVIEW_POOLS = 32;

export const tokenOverviewRoute = defineRoute({
  id: 'tokens.overview',
  method: 'GET',
  path: '/tokens/{address}/overview',
  scope: 'read',
  group: 'Tokens',
  summary: `First-paint composite at one anchor: identity, price and market cap on the default venue, window stats, pool listing (${OVERVIEW_POOLS} rows by quote-native 24h volume; poolsTruncated, poolsListedBound, poolsFanoutExceeded, poolsNextCursor/poolsNextRoute continue on /pools/ranked when a quote resolved), and holderCount {status, count, retainedListSize, retainedListCap, asOfBlock, burnSinkHolders}. Quote: named, single counter currency, or the one with the largest USD-markable volume; otherwise market fields are null with reason quote_ambiguous and the candidates.`,
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const m = marketOf(ctx);
    const rocks = ctx.chain.store.rocks;
    const A = ctx.anchor.number;
    const { quote, how, candidates } = marketQuoteOf(ctx, m, ctx.query.quote);
    const stats = statsAt(ctx.view, m.address, A);
    let market: Record<string, unknown> = {
      price: null,
      marketCap: null,
      stats: null,
      venue: null,
      reason: candidates.length ? 'quote_ambiguous' : 'no_registered_pools',
      candidates,
    };
    let listing: unknown[] = [];
    let next: string | null = null;
    if (quote) {
      const v = venueOf(ctx, m, quote);
      const st = stateAt(ctx.view, v.pool.key, A);
      const price = st?.price ? orient(v.pool, m.address, ratParse(st.price)) : null;
      const supply = BigInt(stats?.supplyFromTransfers ?? '0');
      market = {
        quote,
        quoteResolution: how,
        candidates,
        venue: venueJson(v),
        price: price ? ratJson(price) : null,
        marketCap: price ? ratJson({ n: price.n * supply, d: price.d }) : null,
        reason: price ? null : 'venue_has_no_price_yet',
        stats: tokenStats(ctx, m, quote).windows,
      };
      const ranked = m.pools.pools
        .filter((p) => counterOf(p, m.address) === quote)
        .map((p) => ({ p, v: volume24h(ctx.view, p, m.address, m.at) }))
        .sort((a, b) =>
          b.v.quote > a.v.quote ? 1 : b.v.quote < a.v.quote ? -1 : a.p.key < b.p.key ? -1 : 1,
        );
      listing = ranked.slice(0, OVERVIEW_POOLS).map((r, i) => ({
        rank: i + 1,
        ...poolIdentity(r.p),
        quoteAsset: quote,
        rankedVolume24hQuote: r.v.quote.toString(),
      }));
      if (ranked.length > OVERVIEW_POOLS) {
        const key = Buffer.alloc(4);
        key.writeUInt32BE(OVERVIEW_POOLS);
        next = ctx.chain.cursors.encode({
          chainId: ctx.chain.chainId,
          route: `tokens.poolsRanked:${m.address}:volume_24h:${ctx.query.quote ?? ''}`,
          order: 'desc',
          anchor: ctx.anchor,
          key,
        });
      }
    }
    const holders = stats?.holders ?? 0;
    const body = {
      ...tokenIdentity(m.token),
      supplyFromTransfers: stats?.supplyFromTransfers ?? '0',
      market,
      pools: listing,
      poolsListedBound: OVERVIEW_POOLS,
      ...membershipJson(m),
      poolsTruncated:
        m.pools.truncated || (quote !== null && listing.length === OVERVIEW_POOLS && next !== null),
      poolsNextCursor: next,
      poolsNextRoute: next
        ? `/tokens/${m.address}/pools/ranked${ctx.query.quote ? `?quote=${ctx.query.quote}` : ''}`
        : null,
      holderCount: ctx.readers.tokens.overviewHolderCount(ctx.view, m.token, A),
      reconciliation: ctx.readers.tokens.fidelityOf(ctx.view, m.address),
    };
    return single(ctx.anchor, JSON.stringify(body));
  },
});
