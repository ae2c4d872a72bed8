import { Type } from '@sinclair/typebox';
import { KeyBuilder, readU64 } from '../../../storage/keys.js';
import { Table } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { BlockNumber, Paged, pageQuery } from '../../schemas.js';
import { DECODED, decodedLogRow } from './decoded-common.js';
import { headerAt } from './lookup.js';

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
  response: Paged(
    Type.Object({
      log: Type.Object({}, { additionalProperties: true }),
      decoded: Type.Object({}, { additionalProperties: true }),
    }),
  ),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, DECODED);
    const req = pageRequest(ctx, `${this.id}:${ctx.params.number}`);
    const n = Number(ctx.params.number);
    headerAt(ctx.chain.store, req.anchor, n);
    const lo = new KeyBuilder(9).u8(Table.LOG).u64(n).done();
    const hi = new KeyBuilder(9)
      .u8(Table.LOG)
      .u64(n + 1)
      .done();
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: lo, gte: lo, lt: hi }, (k, v) => [
      decodedLogRow(rocks, readU64(k, 1), k.readUInt32BE(9), v),
      k.subarray(9),
    ]).finish();
  },
});
