import { pagedRoute } from '../../route-shapes.js';
import { Address } from '../../schemas.js';
import { TOKENS } from './common.js';
import { TransferRow } from './schemas.js';

/** GET /tokens/{address}/transfers: decoded transfers in chain-coordinate order. */
export const tokenTransfersRoute = pagedRoute({
  id: 'tokens.transfers',
  path: '/tokens/{address}/transfers',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Decoded transfers of the token in chain-coordinate order: {block, txIndex, logIndex, txHash, from, to, value (token base units), kind}. WETH deposits/withdrawals appear as mint/burn.',
  params: { address: Address },
  row: TransferRow,
  errors: ['not_found'],
  requires: [TOKENS],
  subject: (ctx) => ctx.params.address.toLowerCase(),
  walk: (ctx, q, sink) => ctx.readers.tokens.transferPage(ctx.view, ctx.params.address, q, sink),
});
