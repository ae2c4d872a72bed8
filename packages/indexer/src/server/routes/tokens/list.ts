import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TokenListRow } from './schemas.js';

/** GET /tokens: every token observed, in first-seen coordinate order. */
export const tokensListRoute = defineRoute({
  id: 'tokens.list',
  method: 'GET',
  path: '/tokens',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Every token observed, in first-seen coordinate order, including creation-only candidates never confirmed as ERC-20 (kind=candidate).',
  query: pageQuery(),
  response: Paged(TokenListRow),
  errors: [],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(ctx, this.id, (q, sink) => {
      ctx.readers.tokens.catalogue(ctx.view, q, sink);
    });
  },
});
