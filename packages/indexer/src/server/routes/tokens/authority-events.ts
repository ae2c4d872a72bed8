import { TOKEN_AUTHORITY_EVENTS } from '../../../schema/cursors.js';
import { tokenPage } from './page.js';
import { AuthorityEvent } from './schemas.js';

/** GET /tokens/{address}/authority-events: coordinate-ordered privileged-action evidence. */
export const tokenAuthorityEventsRoute = tokenPage({
  id: 'tokens.authorityEvents',
  cursor: TOKEN_AUTHORITY_EVENTS,
  path: '/tokens/{address}/authority-events',
  summary:
    'Coordinate-ordered privileged-action evidence: ownership_transferred, post_creation_mint (mints outside the creation transaction). No verdict.',
  row: AuthorityEvent,
  walk: (ctx, token, q, sink) => ctx.readers.tokens.authorityPage(ctx.view, token, q, sink),
});
