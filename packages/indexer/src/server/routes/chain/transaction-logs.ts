import { pagedRoute } from '../../route-shapes.js';
import { Hash } from '../../schemas.js';
import { LogRecord } from './schemas.js';

const raw = (json: string) => json;

/** GET /transactions/{hash}/logs (PAGE, key: log index): the transaction's logs as the node sent them. */
export const transactionLogsRoute = pagedRoute({
  id: 'chain.transactionLogs',
  path: '/transactions/{hash}/logs',
  scope: 'read',
  group: 'Chain',
  summary: 'Logs of one transaction by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { hash: Hash },
  row: LogRecord,
  errors: ['not_found'],
  subject: (ctx) => ctx.params.hash.toLowerCase(),
  walk: (ctx, q, sink) => ctx.readers.chain.transactionLogs(ctx.view, ctx.params.hash, q, sink),
  render: raw,
});
