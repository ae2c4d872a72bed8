import { TOKEN_CREATOR_TOKENS } from '../../../schema/cursors.js';
import { pagedRoute } from '../../route-shapes.js';
import { Address, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TokenListRow } from './schemas.js';

/** GET /creators/{address}/tokens: tokens one deployer created, newest first by default. */
export const creatorTokensRoute = pagedRoute({
  id: 'tokens.creatorTokens',
  cursor: TOKEN_CREATOR_TOKENS,
  path: '/creators/{address}/tokens',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Tokens one deployer created (top-level creations and launches), newest first (order=desc default; asc allowed).',
  params: { address: Address },
  query: pageQuery({ orders: ['desc', 'asc'] }),
  row: TokenListRow,
  errors: [],
  requires: [TOKENS],
  subject: (ctx) => ctx.params.address.toLowerCase(),
  walk: (ctx, q, sink) => ctx.readers.tokens.creatorTokens(ctx.view, ctx.params.address, q, sink),
  page: { order: 'desc' },
});
