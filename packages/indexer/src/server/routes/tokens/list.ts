import { TOKEN_CATALOGUE } from '../../../schema/cursors.js';
import { pagedRoute } from '../../route-shapes.js';
import { pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TokenListRow } from './schemas.js';

/** GET /tokens: every token observed, in first-seen coordinate order. */
export const tokensListRoute = pagedRoute({
  id: 'tokens.list',
  cursor: TOKEN_CATALOGUE,
  path: '/tokens',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Every token observed, in first-seen coordinate order, including creation-only candidates never confirmed as ERC-20 (kind=candidate).',
  query: pageQuery(),
  row: TokenListRow,
  errors: [],
  requires: [TOKENS],
  walk: (ctx, q, sink) => ctx.readers.tokens.catalogue(ctx.view, q, sink),
});
