import { KeyBuilder } from '../../../storage/keys.js';
import { Table } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery, RawRecord } from '../../schemas.js';
import { headerAt } from './lookup.js';

/** GET /blocks/{number}/logs (PAGE, key: log index): logs as the node sent them (receipts' logs). */
export const blockLogsRoute = defineRoute({
  id: 'chain.blockLogs',
  method: 'GET',
  path: '/blocks/{number}/logs',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs emitted in a canonical block, by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { number: BlockNumber },
  query: pageQuery(),
  response: Paged(RawRecord('log as returned in eth_getBlockReceipts')),
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.number}`);
    const n = Number(ctx.params.number);
    headerAt(ctx.chain.store, req.anchor, n);
    const lo = new KeyBuilder(9).u8(Table.LOG).u64(n).done();
    const hi = new KeyBuilder(9)
      .u8(Table.LOG)
      .u64(n + 1)
      .done();
    return walkRange(ctx, req, { prefix: lo, gte: lo, lt: hi }, (k, v) => [
      v.toString(),
      k.subarray(9),
    ]).finish();
  },
});
