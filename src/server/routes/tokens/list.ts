import { Type } from '@sinclair/typebox';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { tokenAt } from '../../../tokens/read.js';
import { tokenListRow } from '../../../tokens/render.js';
import { TokenTable } from '../../../tokens/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';

/**
 * GET /tokens (PAGE, first-seen coordinate order): every token observed, including creation-only
 * candidates never confirmed as ERC-20 (`kind: candidate`, `confirmedErc20: false`).
 */
export const tokensListRoute = defineRoute({
  id: 'tokens.list',
  method: 'GET',
  path: '/tokens',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Every token observed, in first-seen coordinate order, including creation-only candidates never confirmed as ERC-20 (kind=candidate).',
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, TOKENS);
    const req = pageRequest(ctx, this.id);
    const p = Buffer.from([TokenTable.TOKEN_BY_COORD]);
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k) => {
      if (readU64(k, 1) > req.anchor.number) return null;
      const t = tokenAt(ctx.view, `0x${k.toString('hex', 17, 37)}`, req.anchor.number);
      return t ? [JSON.stringify(tokenListRow(t)), k.subarray(1)] : null;
    }).finish();
  },
});
