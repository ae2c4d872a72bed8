import { pagedRoute } from '../../route-shapes.js';
import { BlockNumber } from '../../schemas.js';
import { LogRecord } from './schemas.js';

const raw = (json: string) => json;

/** GET /blocks/{number}/logs (PAGE, key: log index): logs as the node sent them (receipts' logs). */
export const blockLogsRoute = pagedRoute({
  id: 'chain.blockLogs',
  path: '/blocks/{number}/logs',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs emitted in a canonical block, by log index (byte-exact node records). PAGE, limit 1..1000 default 100.',
  params: { number: BlockNumber },
  row: LogRecord,
  errors: ['not_found'],
  subject: (ctx) => ctx.params.number,
  walk: (ctx, q, sink) => ctx.readers.chain.blockLogs(ctx.view, Number(ctx.params.number), q, sink),
  render: raw,
});
