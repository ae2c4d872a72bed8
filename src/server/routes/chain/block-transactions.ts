import { KeyBuilder } from '../../../storage/keys.js';
import { Table } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery, RawRecord } from '../../schemas.js';
import { headerAt } from './lookup.js';

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
  response: Paged(RawRecord('transaction as returned by eth_getBlockByNumber(n, true)')),
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.number}`);
    const n = Number(ctx.params.number);
    headerAt(ctx.chain.store, req.anchor, n);
    const lo = new KeyBuilder(9).u8(Table.TX).u64(n).done();
    const hi = new KeyBuilder(9)
      .u8(Table.TX)
      .u64(n + 1)
      .done();
    return walkRange(ctx, req, { prefix: lo, gte: lo, lt: hi }, (k, v) => [
      v.toString(),
      k.subarray(9),
    ]).finish();
  },
});
