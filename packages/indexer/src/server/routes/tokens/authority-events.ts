import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { AuthorityEvent } from './schemas.js';

/** GET /tokens/{address}/authority-events: coordinate-ordered privileged-action evidence. */
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
  response: Paged(AuthorityEvent),
  errors: ['not_found'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`, (q, sink) => {
      ctx.readers.tokens.authorityPage(ctx.view, ctx.params.address, q, sink);
    });
  },
});
