import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery } from '../../schemas.js';
import { LogRecord } from './schemas.js';

const raw = (json: string) => json;

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
  response: Paged(LogRecord),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const n = Number(ctx.params.number);
    return paged(
      ctx,
      `${this.id}:${n}`,
      (q, sink) => {
        ctx.readers.chain.blockLogs(ctx.view, n, q, sink);
      },
      raw,
    );
  },
});
