import { CHAIN_LOGS } from '../../../schema/cursors.js';
import { blockPage, decodedLogJson } from './record-pages.js';
import { DecodedLogRow } from './schemas.js';

/**
 * GET /blocks/{number}/logs/decoded (PAGE, key: log index): each log as the node sent it with its
 * decoding — `{status: decoded, event, standard, signature, args}` (integers as decimal strings)
 * or `{status: unknown, reason, topic0}`; nothing omitted (R10).
 */
export const blockLogsDecodedRoute = blockPage({
  id: 'chain.blockLogsDecoded',
  cursor: CHAIN_LOGS,
  path: '/blocks/{number}/logs/decoded',
  summary:
    'Logs of a block with decodings {log, decoded}; unresolved logs are {status: unknown, reason, topic0}, never omitted. PAGE by log index.',
  row: DecodedLogRow,
  requires: ['decoded_views'],
  walk: (ctx, n, q, sink) => ctx.readers.chain.blockLogsDecoded(ctx.view, n, q, sink),
  render: decodedLogJson,
});
