import { logKey } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Hash, Paged, pageQuery, RawRecord } from '../../schemas.js';
import { txAt } from './lookup.js';

/** GET /transactions/{hash}/logs (PAGE, key: log index): the transaction's logs as the node sent them. */
export const transactionLogsRoute = defineRoute({
  id: 'chain.transactionLogs',
  method: 'GET',
  path: '/transactions/{hash}/logs',
  scope: 'read',
  group: 'Chain',
  summary: 'Logs of one transaction by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { hash: Hash },
  query: pageQuery(),
  response: Paged(RawRecord('log as returned in eth_getTransactionReceipt')),
  errors: ['not_found', 'bad_cursor', 'stale_cursor'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.hash.toLowerCase()}`);
    const loc = txAt(ctx.chain.store, req.anchor, ctx.params.hash);
    const bounds = {
      prefix: logKey(loc.number, 0).subarray(0, 9),
      gte: logKey(loc.number, loc.firstLogIndex),
      lt: logKey(loc.number, loc.firstLogIndex + loc.logCount),
    };
    return walkRange(ctx, req, bounds, (k, v) => [v.toString(), k.subarray(9)]).finish();
  },
});
