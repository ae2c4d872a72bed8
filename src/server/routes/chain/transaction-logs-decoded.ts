import { Type } from '@sinclair/typebox';
import { logKey } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { defineRoute } from '../../route.js';
import { Hash, Paged, pageQuery } from '../../schemas.js';
import { DECODED, decodedLogRow } from './decoded-common.js';
import { txAt } from './lookup.js';

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
    const req = pageRequest(ctx, `${this.id}:${ctx.params.hash.toLowerCase()}`);
    const loc = txAt(ctx.chain.store, req.anchor, ctx.params.hash);
    const bounds = {
      prefix: logKey(loc.number, 0).subarray(0, 9),
      gte: logKey(loc.number, loc.firstLogIndex),
      lt: logKey(loc.number, loc.firstLogIndex + loc.logCount),
    };
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, bounds, (k, v) => [
      decodedLogRow(rocks, loc.number, k.readUInt32BE(9), v),
      k.subarray(9),
    ]).finish();
  },
});
