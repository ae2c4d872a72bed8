import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TransferRow } from './schemas.js';

/** GET /tokens/{address}/transfers: decoded transfers in chain-coordinate order. */
export const tokenTransfersRoute = defineRoute({
  id: 'tokens.transfers',
  method: 'GET',
  path: '/tokens/{address}/transfers',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Decoded transfers of the token in chain-coordinate order: {block, txIndex, logIndex, txHash, from, to, value (token base units), kind}. WETH deposits/withdrawals appear as mint/burn.',
  params: { address: Address },
  query: pageQuery(),
  response: Paged(TransferRow),
  errors: ['not_found'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`, (q, sink) => {
      ctx.readers.tokens.transferPage(ctx.view, ctx.params.address, q, sink);
    });
  },
});
