import { CHAIN_LOGS } from '../../../schema/cursors.js';
import { decodedLogJson, transactionPage } from './record-pages.js';
import { DecodedLogRow } from './schemas.js';

/** GET /transactions/{hash}/logs/decoded (PAGE, key: log index): the transaction's logs with decodings. */
export const transactionLogsDecodedRoute = transactionPage({
  id: 'chain.transactionLogsDecoded',
  cursor: CHAIN_LOGS,
  path: '/transactions/{hash}/logs/decoded',
  summary:
    'Logs of one transaction with decodings {log, decoded}; unknown logs typed, never omitted. PAGE by log index.',
  row: DecodedLogRow,
  requires: ['decoded_views'],
  walk: (ctx, hash, q, sink) => ctx.readers.chain.transactionLogsDecoded(ctx.view, hash, q, sink),
  render: decodedLogJson,
});
