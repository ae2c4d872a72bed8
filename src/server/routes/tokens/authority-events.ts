import { Type } from '@sinclair/typebox';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/**
 * GET /tokens/{address}/authority-events (PAGE, coordinate order): privileged-action log shapes —
 * `ownership_transferred` (OwnershipTransferred) and `post_creation_mint` (Transfer from 0x0
 * outside the creation transaction). Evidence only, no verdict.
 */
export const tokenAuthorityEventsRoute = defineRoute({
  id: 'tokens.authorityEvents',
  method: 'GET',
  path: '/tokens/{address}/authority-events',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Coordinate-ordered privileged-action evidence: ownership_transferred, post_creation_mint (mints outside the creation transaction). No verdict.',
  params: { address: Address },
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`);
    const t = tokenOr404(ctx, req.anchor.number);
    const p = tokenPrefix(TokenTable.AUTHORITY, t.address);
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k, v) =>
      readU64(k, 21) > req.anchor.number ? null : [v.toString(), k.subarray(21)],
    ).finish();
  },
});
