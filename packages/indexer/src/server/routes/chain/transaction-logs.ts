import { raw, transactionPage } from './record-pages.js';
import { LogRecord } from './schemas.js';

/** GET /transactions/{hash}/logs (PAGE, key: log index): the transaction's logs as the node sent them. */
export const transactionLogsRoute = transactionPage({
  id: 'chain.transactionLogs',
  path: '/transactions/{hash}/logs',
  summary: 'Logs of one transaction by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  row: LogRecord,
  walk: (ctx, hash, q, sink) => ctx.readers.chain.transactionLogs(ctx.view, hash, q, sink),
  render: raw,
});
