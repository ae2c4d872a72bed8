import { pagedRoute } from '../../route-shapes.js';
import { Hash } from '../../schemas.js';
import { decodedLogJson } from './block-logs-decoded.js';
import { DecodedLogRow } from './schemas.js';

/** GET /transactions/{hash}/logs/decoded (PAGE, key: log index): the transaction's logs with decodings. */
export const transactionLogsDecodedRoute = pagedRoute({
  id: 'chain.transactionLogsDecoded',
  path: '/transactions/{hash}/logs/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs of one transaction with decodings {log, decoded}; unknown logs typed, never omitted. PAGE by log index.',
  params: { hash: Hash },
  row: DecodedLogRow,
  requires: ['decoded_views'],
  errors: ['not_found'],
  subject: (ctx) => ctx.params.hash.toLowerCase(),
  walk: (ctx, q, sink) => ctx.readers.chain.transactionLogsDecoded(ctx.view, ctx.params.hash, q, sink),
  render: decodedLogJson,
});
