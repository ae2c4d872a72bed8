/** Pool lists: the new-pools feed, pools by currency, and bounded pool search. */

import { Type } from '@sinclair/typebox';
import { type PoolRow, poolIdentity, SEARCH_SCAN_CEILING } from '../../../markets/index.js';
import { POOLS_BY_CURRENCY, POOLS_NEW } from '../../../schema/cursors.js';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { pagedRoute } from '../../route-shapes.js';
import { Address, Count, Paged, pageQuery } from '../../schemas.js';

import { MARKETS, PoolIdentity } from './schemas.js';

const row = (p: PoolRow) => JSON.stringify(poolIdentity(p));

export const newPoolsRoute = pagedRoute({
  id: 'pools.new',
  cursor: POOLS_NEW,
  path: '/pools/new',
  scope: 'read',
  group: 'Pools',
  summary:
    'Newest-first feed of registered pools (V2, V3, V4 with contract+poolId, launchpad curves) by creation coordinate. PAGE, desc default.',
  query: pageQuery({ orders: ['desc', 'asc'] }),
  row: PoolIdentity,
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [MARKETS],
  walk: (ctx, q, sink) => ctx.readers.markets.newPools(ctx.view, q, sink),
  render: row,
  page: { order: 'desc' },
});

export const currencyPoolsRoute = pagedRoute({
  id: 'pools.byCurrency',
  cursor: POOLS_BY_CURRENCY,
  path: '/currencies/{currency}/pools',
  scope: 'read',
  group: 'Pools',
  summary:
    'Pools holding the currency on either side (native currency = 0x0000…0000 for V4 and curves), in pool-key order. PAGE.',
  params: { currency: Address },
  query: pageQuery(),
  row: PoolIdentity,
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [MARKETS],
  subject: (ctx) => ctx.params.currency.toLowerCase(),
  walk: (ctx, q, sink) =>
    ctx.readers.markets.currencyPools(ctx.view, ctx.params.currency.toLowerCase(), q, sink),
  render: row,
});

export const poolSearchRoute = defineRoute({
  id: 'pools.search',
  method: 'GET',
  cached: true,
  path: '/pools/search',
  scope: 'read',
  group: 'Pools',
  summary: `Bounded pool discovery anchored on token and/or quote (at least one required), in pool-identity order (sort=pool_identity). Refinements fee_tier, protocol, created_from, created_to (block numbers) filter the anchored walk and need allowScan=true; at most ${SEARCH_SCAN_CEILING} pools are examined (422 query_too_broad beyond). factory is always refused (400); sort=liquidity is refused (400); sort=volume_24h is not available in this build (503, needs the market window index).`,
  query: {
    token: Type.Optional(Address),
    quote: Type.Optional(Address),
    fee_tier: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    protocol: Type.Optional(
      Type.Union([Type.Literal('v2'), Type.Literal('v3'), Type.Literal('v4'), Type.Literal('launchpad')]),
    ),
    created_from: Type.Optional(Type.Integer({ minimum: 0 })),
    created_to: Type.Optional(Type.Integer({ minimum: 0 })),
    allowScan: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.String({ maxLength: 32 })),
    factory: Type.Optional(Type.String({ maxLength: 64 })),
    ...pageQuery({ orders: ['asc'] }),
  },
  response: Paged(PoolIdentity, {
    sort: Type.Literal('pool_identity', { description: 'the order of the rows' }),
    anchorCurrency: { ...Address, description: 'the currency whose pools were walked (token, else quote)' },
    scanned: Count('pools examined by this page’s walk'),
    allowScan: Type.Boolean({ description: 'whether refinements were allowed to scan' }),
  }),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable', 'query_too_broad'],
  requires: [MARKETS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const q = ctx.query;
    const tag = [(q.token ?? q.quote)?.toLowerCase(), q.token && q.quote ? q.quote.toLowerCase() : null];
    const route = POOLS_BY_CURRENCY.tag(
      this.id,
      JSON.stringify([...tag, q.fee_tier, q.protocol, q.created_from, q.created_to]),
    );
    return paged(
      ctx,
      route,
      (page, sink) => {
        const s = ctx.readers.markets.searchPools(ctx.view, q, page, sink);
        return {
          sort: 'pool_identity',
          anchorCurrency: s.anchorCurrency,
          scanned: s.scanned,
          allowScan: q.allowScan === true,
        };
      },
      row,
    );
  },
});
