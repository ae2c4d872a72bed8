import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Hash, Paged, pageQuery } from '../../schemas.js';
import { LogRecord } from './schemas.js';

const raw = (json: string) => json;

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
  response: Paged(LogRecord),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(
      ctx,
      `${this.id}:${ctx.params.hash.toLowerCase()}`,
      (q, sink) => {
        ctx.readers.chain.transactionLogs(ctx.view, ctx.params.hash, q, sink);
      },
      raw,
    );
  },
});
