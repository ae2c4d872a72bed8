import { Type } from '@sinclair/typebox';
import { frameKey } from '../../../ingest/traces.js';
import { pageRequest, walkRange } from '../../page.js';
import { anchorJson, defineRoute } from '../../route.js';
import { Hash } from '../../schemas.js';
import { txAt } from './lookup.js';
import { coverageOf } from './trace-common.js';

/**
 * GET /transactions/{hash}/calls/decoded: the call tree as frames in depth-first pre-order
 * {ordinal, parent, depth, kind, from, to, value, movesValue, input, decoded, output, gasUsed,
 * reverted, revertedByAncestor, error, revertReason}; `limit` 1..64 (default 32) frames per page.
 * A delegate frame's value is the tracer quantity, not value moved (`movesValue: false`). Without
 * a retained tree the answer is `coverage: not_available` with a reason, not an empty list.
 */
export const transactionCallsRoute = defineRoute({
  id: 'chain.transactionCalls',
  method: 'GET',
  path: '/transactions/{hash}/calls/decoded',
  scope: 'read',
  group: 'Chain',
  summary:
    'Decoded call tree, frames in pre-order (ordinal, parent, depth, kind, from, to, value, movesValue, decoded calldata, output, revert state); limit 1..64 default 32; coverage not_available with a reason when no tree is retained.',
  params: { hash: Hash },
  query: {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 32 })),
  },
  response: Type.Object({}, { additionalProperties: true }),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.hash.toLowerCase()}`, { limit: 32 });
    const loc = txAt(ctx.chain.store, req.anchor, ctx.params.hash);
    const cov = coverageOf(ctx.chain, loc);
    if (cov.coverage === 'not_available') {
      return {
        json: `{"anchor":${anchorJson(req.anchor)},"coverage":"not_available","reason":${JSON.stringify(cov.reason)},"data":null}`,
      };
    }
    const lo = frameKey(loc.number, loc.txIndex, 0).subarray(0, 13);
    const hi = frameKey(loc.number, loc.txIndex + 1, 0).subarray(0, 13);
    return walkRange(ctx, req, { prefix: lo, gte: lo, lt: hi }, (k, v) => [
      v.toString(),
      k.subarray(13),
    ]).finish(
      `"coverage":"retained","reason":null,"frames":${cov.status.frames},"source":"${cov.status.source}"`,
    );
  },
});
