import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TokenListRow } from './schemas.js';

/** GET /creators/{address}/tokens: tokens one deployer created, newest first by default. */
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
  response: Paged(TokenListRow),
  errors: [],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const route = `${this.id}:${ctx.params.address.toLowerCase()}`;
    return paged(
      ctx,
      route,
      (q, sink) => {
        ctx.readers.tokens.creatorTokens(ctx.view, ctx.params.address, q, sink);
      },
      JSON.stringify,
      { order: 'desc' },
    );
  },
});
