import { Type } from '@sinclair/typebox';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { tokenAt } from '../../../tokens/read.js';
import { tokenListRow } from '../../../tokens/render.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';

/** GET /creators/{address}/tokens (PAGE): tokens one deployer created, newest first by default. */
export const creatorTokensRoute = defineRoute({
  id: 'tokens.creatorTokens',
  method: 'GET',
  path: '/creators/{address}/tokens',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Tokens one deployer created (top-level creations and launches), newest first (order=desc default; asc allowed).',
  params: { address: Address },
  query: pageQuery({ orders: ['desc', 'asc'] }),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, TOKENS);
    const req = pageRequest(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`, { order: 'desc' });
    const p = tokenPrefix(TokenTable.CREATOR_TOKEN, ctx.params.address.toLowerCase());
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k) => {
      if (readU64(k, 21) > req.anchor.number) return null;
      const t = tokenAt(ctx.view, `0x${k.toString('hex', 33, 53)}`, req.anchor.number);
      return t ? [JSON.stringify(tokenListRow(t)), k.subarray(21)] : null;
    }).finish();
  },
});
