import type { DecodedLogRow as Row } from '../../../chain/index.js';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery } from '../../schemas.js';
import { DecodedLogRow } from './schemas.js';

/** `{log, decoded}` from two stored JSON texts, embedded as they are. */
export const decodedLogJson = (r: Row) => `{"log":${r.log},"decoded":${r.decoded}}`;

/**
 * GET /blocks/{number}/logs/decoded (PAGE, key: log index): each log as the node sent it with its
 * decoding — `{status: decoded, event, standard, signature, args}` (integers as decimal strings)
 * or `{status: unknown, reason, topic0}`; nothing omitted (R10).
 */
export const blockLogsDecodedRoute = defineRoute({
  id: 'chain.blockLogsDecoded',
  method: 'GET',
  path: '/blocks/{number}/logs/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Logs of a block with decodings {log, decoded}; unresolved logs are {status: unknown, reason, topic0}, never omitted. PAGE by log index.',
  params: { number: BlockNumber },
  query: pageQuery(),
  response: Paged(DecodedLogRow),
  requires: ['decoded_views'],
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const n = Number(ctx.params.number);
    return paged(
      ctx,
      `${this.id}:${n}`,
      (q, sink) => {
        ctx.readers.chain.blockLogsDecoded(ctx.view, n, q, sink);
      },
      decodedLogJson,
    );
  },
});
