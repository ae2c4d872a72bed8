import { Type } from '@sinclair/typebox';
import { internalKey } from '../../../ingest/traces.js';
import { pageRequest, walkRange } from '../../page.js';
import { anchorJson, defineRoute } from '../../route.js';
import { Hash, pageQuery } from '../../schemas.js';
import { txAt } from './lookup.js';
import { coverageOf } from './trace-common.js';

/**
 * GET /transactions/{hash}/internal (PAGE, key: frame ordinal): internal native-value transfers
 * and contract creations from call-trace replay (R10: node re-execution, not verifiable against a
 * block root), with the transaction's retention and reconciliation state. `effective: false` marks
 * value that did not move because the frame or an ancestor reverted.
 */
export const transactionInternalRoute = defineRoute({
  id: 'chain.transactionInternal',
  method: 'GET',
  path: '/transactions/{hash}/internal',
  scope: 'read',
  group: 'Chain',
  summary:
    'Internal value transfers and creations of a transaction from callTracer replay: rows {ordinal, from, to, value (wei), kind, effective, type}; retention {coverage: retained|not_available, reason} and reconciliation {rootMatchesEnvelope}. Not verifiable against a block root (R10). PAGE by frame ordinal.',
  params: { hash: Hash },
  query: pageQuery(),
  response: Type.Object({}, { additionalProperties: true }),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.hash.toLowerCase()}`);
    const loc = txAt(ctx.chain.store, req.anchor, ctx.params.hash);
    const cov = coverageOf(ctx.chain, loc);
    if (cov.coverage === 'not_available') {
      return {
        json: `{"anchor":${anchorJson(req.anchor)},"retention":{"coverage":"not_available","reason":${JSON.stringify(cov.reason)}},"data":null,"dataReason":"not_available"}`,
      };
    }
    const lo = internalKey(loc.number, loc.txIndex, 0).subarray(0, 13);
    const hi = internalKey(loc.number, loc.txIndex + 1, 0).subarray(0, 13);
    const s = cov.status;
    return walkRange(ctx, req, { prefix: lo, gte: lo, lt: hi }, (k, v) => [
      v.toString(),
      k.subarray(13),
    ]).finish(
      `"retention":{"coverage":"retained","reason":null,"source":"${s.source}"},"reconciliation":{"rootMatchesEnvelope":${s.rootMatchesEnvelope},"verifiableAgainstBlockRoot":false}`,
    );
  },
});
