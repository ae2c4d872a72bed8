import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Hash, Paged, pageQuery } from '../../schemas.js';
import { decodedLogJson } from './block-logs-decoded.js';
import { DecodedLogRow } from './schemas.js';

/** GET /transactions/{hash}/logs/decoded (PAGE, key: log index): the transaction's logs with decodings. */
export const transactionLogsDecodedRoute = defineRoute({
  id: 'chain.transactionLogsDecoded',
  method: 'GET',
  path: '/transactions/{hash}/logs/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs of one transaction with decodings {log, decoded}; unknown logs typed, never omitted. PAGE by log index.',
  params: { hash: Hash },
  query: pageQuery(),
  response: Paged(DecodedLogRow),
  requires: ['decoded_views'],
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(
      ctx,
      `${this.id}:${ctx.params.hash.toLowerCase()}`,
      (q, sink) => {
        ctx.readers.chain.transactionLogsDecoded(ctx.view, ctx.params.hash, q, sink);
      },
      decodedLogJson,
    );
  },
});
