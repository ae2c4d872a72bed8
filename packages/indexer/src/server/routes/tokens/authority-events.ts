import { pagedRoute } from '../../route-shapes.js';
import { Address } from '../../schemas.js';
import { TOKENS } from './common.js';
import { AuthorityEvent } from './schemas.js';

/** GET /tokens/{address}/authority-events: coordinate-ordered privileged-action evidence. */
export const tokenAuthorityEventsRoute = pagedRoute({
  id: 'tokens.authorityEvents',
  path: '/tokens/{address}/authority-events',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Coordinate-ordered privileged-action evidence: ownership_transferred, post_creation_mint (mints outside the creation transaction). No verdict.',
  params: { address: Address },
  row: AuthorityEvent,
  errors: ['not_found'],
  requires: [TOKENS],
  subject: (ctx) => ctx.params.address.toLowerCase(),
  walk: (ctx, q, sink) => ctx.readers.tokens.authorityPage(ctx.view, ctx.params.address, q, sink),
});
