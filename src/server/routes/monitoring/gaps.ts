import { Type } from '@sinclair/typebox';
import { prefixEnd } from '../../../storage/keys.js';
import { gapPrefix } from '../../../storage/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Paged, pageQuery } from '../../schemas.js';

/** GET /index/v1/{chain}/gaps (PAGE): open and resolved ingest gaps, by lane then first block. */
export const gapsRoute = defineRoute({
  id: 'monitoring.gaps',
  method: 'GET',
  path: '/gaps',
  scope: 'monitoring',
  group: 'Monitoring',
  summary: 'Open and resolved ingest gaps per lane (PAGE, by lane and first block).',
  query: pageQuery(),
  response: Paged(
    Type.Object({
      lane: Type.String(),
      fromBlock: Type.Integer(),
      toBlock: Type.Integer(),
      status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
      reason: Type.String(),
      openedAt: Type.Integer(),
      resolvedAt: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
  errors: ['bad_cursor', 'stale_cursor'],
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, this.id);
    const p = gapPrefix();
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k, v) => [
      v.toString(),
      k.subarray(1),
    ]).finish();
  },
});
