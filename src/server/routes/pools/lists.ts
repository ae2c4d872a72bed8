/** Pool lists: the new-pools feed, pools by currency, and bounded pool search. */
import { Type } from '@sinclair/typebox';
import { poolAt } from '../../../markets/read.js';
import { MarketTable } from '../../../markets/tables.js';
import { KeyBuilder, prefixEnd, readU64 } from '../../../storage/keys.js';
import { ApiError } from '../../errors.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { Address, OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { MARKETS, poolIdentity } from './common.js';

const rowOf = (rocks: Parameters<typeof poolAt>[0], key: string, anchor: number) => {
  const p = poolAt(rocks, key, anchor);
  return p ? JSON.stringify(poolIdentity(p)) : null;
};

export const newPoolsRoute = defineRoute({
  id: 'pools.new',
  method: 'GET',
  path: '/pools/new',
  scope: 'read',
  group: 'Pools',
  summary:
    'Newest-first feed of registered pools (V2, V3, V4 with contract+poolId, launchpad curves) by creation coordinate. PAGE, desc default.',
  query: pageQuery({ orders: ['desc', 'asc'] }),
  response: OpenPaged(),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, MARKETS);
    const req = pageRequest(ctx, this.id, { order: 'desc' });
    const pre = Buffer.from([MarketTable.POOL_BY_COORD]);
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k) => {
      if (readU64(k, 1) > req.anchor.number) return null;
      const r = rowOf(ctx.view, `0x${k.toString('hex', 13)}`, req.anchor.number);
      return r ? [r, k.subarray(1)] : null;
    }).finish();
  },
});

export const currencyPoolsRoute = defineRoute({
  id: 'pools.byCurrency',
  method: 'GET',
  path: '/currencies/{currency}/pools',
  scope: 'read',
  group: 'Pools',
  summary:
    'Pools holding the currency on either side (native currency = 0x0000…0000 for V4 and curves), in pool-key order. PAGE.',
  params: { currency: Address },
  query: pageQuery(),
  response: OpenPaged(),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, MARKETS);
    const c = ctx.params.currency.toLowerCase();
    const req = pageRequest(ctx, `${this.id}:${c}`);
    const pre = new KeyBuilder(21).u8(MarketTable.POOL_BY_CURRENCY).hex(c).done();
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k) => {
      const r = rowOf(ctx.view, `0x${k.toString('hex', 21)}`, req.anchor.number);
      return r ? [r, k.subarray(21)] : null;
    }).finish();
  },
});

/** Pools examined by one search walk without allowScan... and with it. */
const SCAN_CEILING = 5_000;

export const poolSearchRoute = defineRoute({
  id: 'pools.search',
  method: 'GET',
  path: '/pools/search',
  scope: 'read',
  group: 'Pools',
  summary:
    'Bounded pool discovery anchored on token and/or quote (at least one required), in pool-identity order (sort=pool_identity). Refinements fee_tier, protocol, created_from, created_to (block numbers) filter the anchored walk and need allowScan=true. factory is always refused (400); sort=liquidity is refused (400); sort=volume_24h is not available in this build (503, needs the market window index).',
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
  response: OpenPaged(),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable', 'query_too_broad'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const q = ctx.query;
    if (q.factory !== undefined)
      throw new ApiError(
        'bad_request',
        'factory is not a search parameter (pools are registered per configured factory)',
      );
    const sort = q.sort ?? 'pool_identity';
    if (sort === 'liquidity')
      throw new ApiError(
        'bad_request',
        'sort=liquidity is refused: V2 and concentrated liquidity are not comparable',
      );
    if (sort === 'volume_24h') {
      if (!q.token) throw new ApiError('bad_request', 'sort=volume_24h requires token');
      throw new ApiError(
        'projection_unavailable',
        'sort=volume_24h needs the market window index, not built in this version',
        { projection: 'market_windows', status: 'disabled' },
      );
    }
    if (sort !== 'pool_identity')
      throw new ApiError('bad_request', `unknown sort "${sort}" (pool_identity, volume_24h)`);
    if (!q.token && !q.quote)
      throw new ApiError('bad_request', 'token or quote is required as the search anchor');
    const refined =
      q.fee_tier !== undefined ||
      q.protocol !== undefined ||
      q.created_from !== undefined ||
      q.created_to !== undefined;
    if (refined && !q.allowScan) {
      throw new ApiError(
        'bad_request',
        'refinements filter the anchored walk and examine rows they do not return: pass allowScan=true',
      );
    }
    requireProjection(ctx.chain, MARKETS);
    const anchorCur = (q.token ?? q.quote)!.toLowerCase();
    const other = q.token && q.quote ? q.quote.toLowerCase() : null;
    const req = pageRequest(
      ctx,
      `${this.id}:${JSON.stringify([anchorCur, other, q.fee_tier, q.protocol, q.created_from, q.created_to])}`,
    );
    const pre = new KeyBuilder(21).u8(MarketTable.POOL_BY_CURRENCY).hex(anchorCur).done();
    const rocks = ctx.chain.store.rocks;
    let scanned = 0;
    const b = walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k) => {
      if (++scanned > SCAN_CEILING)
        throw new ApiError(
          'query_too_broad',
          `the search examined more than ${SCAN_CEILING} pools; add token and quote`,
        );
      const p = poolAt(ctx.view, `0x${k.toString('hex', 21)}`, req.anchor.number);
      if (!p) return null;
      if (other && p.currency0 !== other && p.currency1 !== other) return null;
      if (q.fee_tier !== undefined && p.fee !== q.fee_tier) return null;
      if (q.protocol && p.protocol !== q.protocol) return null;
      if (q.created_from !== undefined && p.created.block < q.created_from) return null;
      if (q.created_to !== undefined && p.created.block > q.created_to) return null;
      return [JSON.stringify(poolIdentity(p)), k.subarray(21)];
    });
    return b.finish(
      `"sort":"pool_identity","anchorCurrency":"${anchorCur}","scanned":${scanned},"allowScan":${q.allowScan === true}`,
    );
  },
});
