import { pagedRoute } from '../../route-shapes.js';
import { BlockNumber } from '../../schemas.js';
import { TransactionEnvelope } from './schemas.js';

const raw = (json: string) => json;

/** GET /blocks/{number}/transactions (PAGE, key: transaction index): transactions as the node sent them. */
export const blockTransactionsRoute = pagedRoute({
  id: 'chain.blockTransactions',
  path: '/blocks/{number}/transactions',
  scope: 'read',
  group: 'Chain',
  summary:
    'Transactions of a canonical block in index order (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { number: BlockNumber },
  row: TransactionEnvelope,
  errors: ['not_found'],
  subject: (ctx) => ctx.params.number,
  walk: (ctx, q, sink) => ctx.readers.chain.blockTransactions(ctx.view, Number(ctx.params.number), q, sink),
  render: raw,
});
