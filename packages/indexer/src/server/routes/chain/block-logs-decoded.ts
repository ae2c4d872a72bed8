import type { DecodedLogRow as Row } from '../../../chain/index.js';
import { pagedRoute } from '../../route-shapes.js';
import { BlockNumber } from '../../schemas.js';
import { DecodedLogRow } from './schemas.js';

/** `{log, decoded}` from two stored JSON texts, embedded as they are. */
export const decodedLogJson = (r: Row) => `{"log":${r.log},"decoded":${r.decoded}}`;

/**
 * GET /blocks/{number}/logs/decoded (PAGE, key: log index): each log as the node sent it with its
 * decoding — `{status: decoded, event, standard, signature, args}` (integers as decimal strings)
 * or `{status: unknown, reason, topic0}`; nothing omitted (R10).
 */
export const blockLogsDecodedRoute = pagedRoute({
  id: 'chain.blockLogsDecoded',
  path: '/blocks/{number}/logs/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs of a block with decodings {log, decoded}; unresolved logs are {status: unknown, reason, topic0}, never omitted. PAGE by log index.',
  params: { number: BlockNumber },
  row: DecodedLogRow,
  requires: ['decoded_views'],
  errors: ['not_found'],
  subject: (ctx) => ctx.params.number,
  walk: (ctx, q, sink) => ctx.readers.chain.blockLogsDecoded(ctx.view, Number(ctx.params.number), q, sink),
  render: decodedLogJson,
});
