import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery } from '../../schemas.js';
import { TransactionEnvelope } from './schemas.js';

const raw = (json: string) => json;

/** GET /blocks/{number}/transactions (PAGE, key: transaction index): transactions as the node sent them. */
export const blockTransactionsRoute = defineRoute({
  id: 'chain.blockTransactions',
  method: 'GET',
  path: '/blocks/{number}/transactions',
  scope: 'read',
  group: 'Chain',
  summary:
    'Transactions of a canonical block in index order (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { number: BlockNumber },
  query: pageQuery(),
  response: Paged(TransactionEnvelope),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const n = Number(ctx.params.number);
    return paged(
      ctx,
      `${this.id}:${n}`,
      (q, sink) => {
        ctx.readers.chain.blockTransactions(ctx.view, n, q, sink);
      },
      raw,
    );
  },
});
