import { PageBuilder, pageQueryOf, pageRequest } from '../../page.js';
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
    const req = pageRequest(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`);
    const r = ctx.readers.tokens;
    const t = r.token(ctx.view, ctx.params.address, req.anchor.number);
    const b = new PageBuilder(ctx, req);
    r.authorityEvents(ctx.view, t.address, pageQueryOf(req), b.sink(JSON.stringify));
    return b.finish();
  },
});
