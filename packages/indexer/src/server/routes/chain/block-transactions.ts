import { CHAIN_BLOCK_TRANSACTIONS } from '../../../schema/cursors.js';
import { blockPage, raw } from './record-pages.js';
import { TransactionEnvelope } from './schemas.js';

/** GET /blocks/{number}/transactions (PAGE, key: transaction index): transactions as the node sent them. */
export const blockTransactionsRoute = blockPage({
  id: 'chain.blockTransactions',
  cursor: CHAIN_BLOCK_TRANSACTIONS,
  path: '/blocks/{number}/transactions',
  summary:
    'Transactions of a canonical block in index order (byte-exact node records). PAGE, limit 1..1000 default 100.',
  row: TransactionEnvelope,
  walk: (ctx, n, q, sink) => ctx.readers.chain.blockTransactions(ctx.view, n, q, sink),
  render: raw,
});
