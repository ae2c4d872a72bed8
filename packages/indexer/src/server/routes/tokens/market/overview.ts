import { Type } from '@sinclair/typebox';
import {
  membershipJson,
  OVERVIEW_POOLS,
  poolIdentity,
  type RankedPool,
  ratJsonOrNull,
  venueJson,
  windowsJson,
} from '../../../../markets/index.js';
import { TOKEN_POOLS_RANKED } from '../../../../schema/cursors.js';
import { tokenIdentity } from '../../../../tokens/index.js';
import { mintCursor } from '../../../page.js';
import { singleRoute } from '../../../route-shapes.js';
import { Address, Amount, Nullable, Obj, QuoteQuery, ReasonOf } from '../../../schemas.js';

import { Price, poolIdentityProps } from '../../pools/schemas.js';
import { BalanceFidelity, OverviewHolderCount, TokenIdentity } from '../schemas.js';
import { AS_OF_TOKEN, quoted, TOKEN_MARKET } from './common.js';
import {
  Candidates,
  membershipProps,
  QuoteResolution,
  rankedPoolProps,
  TOKEN_PRICE_UNIT,
  TokenWindows,
  Venue,
} from './schemas.js';

const listingRow = (r: RankedPool) => ({
  rank: r.rank,
  ...poolIdentity(r.pool),
  quoteAsset: r.quoteAsset,
  rankedVolume24hQuote: r.volume24hQuote.toString(),
});

export const tokenOverviewRoute = singleRoute({
  id: 'tokens.overview',
  cached: true,
  path: '/tokens/{address}/overview',
  scope: 'read',
  group: 'Tokens',
  summary: `First-paint composite at one anchor: identity, price and market cap on the default venue, window stats, pool listing (${OVERVIEW_POOLS} rows by quote-native 24h volume; poolsTruncated, poolsListedBound, poolsFanoutExceeded, poolsNextCursor/poolsNextRoute continue on /pools/ranked when a quote resolved), and holderCount {status, count, retainedListSize, retainedListCap, asOfBlock, burnSinkHolders}. Quote: named, single counter currency, or the one with the largest USD-markable volume; otherwise market fields are null with reason quote_ambiguous and the candidates.${AS_OF_TOKEN}`,
  params: { address: Address },
  query: QuoteQuery,
  data: Obj({
    ...TokenIdentity,
    supplyFromTransfers: {
      ...Amount,
      description: 'supply from transfers at the anchor, token base units',
    },
    market: Obj(
      {
        quote: Nullable(Address, 'the resolved quote; null: see reason'),
        quoteResolution: Nullable(QuoteResolution, 'null when no quote resolved'),
        candidates: Candidates,
        venue: Nullable(Venue, 'null when no quote resolved'),
        price: Nullable(Price(TOKEN_PRICE_UNIT), 'see reason'),
        marketCap: Nullable(
          Price('quote base units', 'market cap = price × supplyFromTransfers'),
          'see reason',
        ),
        reason: ReasonOf(['quote_ambiguous', 'no_registered_pools', 'venue_has_no_price_yet']),
        stats: Nullable(TokenWindows, 'window stats on the default venue; null when no quote resolved'),
      },
      { description: 'price, market cap and window stats on the default venue' },
    ),
    pools: Type.Array(Obj({ ...rankedPoolProps, ...poolIdentityProps }), {
      description: `the first ${OVERVIEW_POOLS} pools of /pools/ranked (sort=volume_24h, the resolved quote)`,
    }),
    poolsListedBound: Type.Literal(OVERVIEW_POOLS, { description: 'rows of the listing at most' }),
    ...membershipProps,
    poolsNextCursor: Nullable(
      Type.String(),
      'cursor of /pools/ranked at the listing’s end; null when complete',
    ),
    poolsNextRoute: Nullable(Type.String(), 'the route the cursor continues; null when complete'),
    holderCount: OverviewHolderCount,
    reconciliation: BalanceFidelity,
  }),
  errors: ['bad_request', 'not_found', 'quote_not_admitted'],
  requires: TOKEN_MARKET,
  asOf: true,
  read(ctx) {
    const o = ctx.readers.queries.tokenOverview(...quoted(ctx));
    const m = o.market;
    const address = o.token.address;
    // The listing continues on the ranked-pools route: that route's declared cursor at rank 32.
    const C = TOKEN_POOLS_RANKED;
    const next = o.poolsMore
      ? mintCursor(
          ctx,
          C.tag('tokens.poolsRanked', address, 'volume_24h', ctx.query.quote ?? ''),
          'desc',
          ctx.anchor,
          C.encode(OVERVIEW_POOLS),
        )
      : null;
    const body = {
      ...tokenIdentity(o.token),
      supplyFromTransfers: o.supplyFromTransfers.toString(),
      market: {
        quote: m.quote,
        quoteResolution: m.quoteResolution,
        candidates: m.candidates,
        venue: m.venue ? venueJson(m.venue) : null,
        price: ratJsonOrNull(m.price),
        marketCap: ratJsonOrNull(m.marketCap),
        reason: m.reason,
        stats: m.windows ? windowsJson(m.windows) : null,
      },
      pools: o.pools.map(listingRow),
      poolsListedBound: OVERVIEW_POOLS,
      ...membershipJson(o.membership),
      poolsTruncated: o.membership.truncated || next !== null,
      poolsNextCursor: next,
      poolsNextRoute: next
        ? `/tokens/${address}/pools/ranked${ctx.query.quote ? `?quote=${ctx.query.quote}` : ''}`
        : null,
      holderCount: o.holderCount,
      reconciliation: o.reconciliation,
    };
    return body;
  },
});
