import { TOKEN_TRANSFERS } from '../../../schema/cursors.js';
import { tokenPage } from './page.js';
import { TransferRow } from './schemas.js';

/** GET /tokens/{address}/transfers: decoded transfers in chain-coordinate order. */
export const tokenTransfersRoute = tokenPage({
  id: 'tokens.transfers',
  cursor: TOKEN_TRANSFERS,
  path: '/tokens/{address}/transfers',
  summary:
    'Decoded transfers of the token in chain-coordinate order: {block, txIndex, logIndex, txHash, from, to, value (token base units), kind}. WETH deposits/withdrawals appear as mint/burn.',
  row: TransferRow,
  walk: (ctx, token, q, sink) => ctx.readers.tokens.transferPage(ctx.view, token, q, sink),
});
