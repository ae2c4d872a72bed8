import { CHAIN_LOGS } from '../../../schema/cursors.js';
import { blockPage, raw } from './record-pages.js';
import { LogRecord } from './schemas.js';

/** GET /blocks/{number}/logs (PAGE, key: log index): logs as the node sent them (receipts' logs). */
export const blockLogsRoute = blockPage({
  id: 'chain.blockLogs',
  cursor: CHAIN_LOGS,
  path: '/blocks/{number}/logs',
  summary:
    'Logs emitted in a canonical block, by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  row: LogRecord,
  walk: (ctx, n, q, sink) => ctx.readers.chain.blockLogs(ctx.view, n, q, sink),
  render: raw,
});
