import { Type } from '@sinclair/typebox';
import { MONITORING_GAPS } from '../../../schema/cursors.js';
import { pagedRoute } from '../../route-shapes.js';
import { Enum, Nullable, Obj, Paged, pageQuery, UnixSeconds } from '../../schemas.js';

/** GET /index/v1/{chain}/gaps (PAGE): open and resolved ingest gaps, by lane then first block. */
export const gapsRoute = pagedRoute({
  id: 'monitoring.gaps',
  cursor: MONITORING_GAPS,
  path: '/gaps',
  scope: 'monitoring',
  batchable: false,
  group: 'Monitoring',
  summary: 'Open and resolved ingest gaps per lane (PAGE, by lane and first block).',
  query: pageQuery(),
  response: Paged(
    Obj({
      lane: Type.String({
        description:
          'the lane that could not fill the range: blocks (a reorg deeper than the window), traces',
      }),
      fromBlock: Type.Integer({ minimum: 0, description: 'first block of the gap' }),
      toBlock: Type.Integer({ minimum: 0, description: 'last block of the gap (inclusive)' }),
      status: Enum(['open', 'resolved'], 'open: retried (traces) or halting (blocks); resolved: healed'),
      reason: Type.String({ description: 'what could not be filled' }),
      openedAt: UnixSeconds('when the gap was recorded'),
      resolvedAt: Nullable(UnixSeconds(), 'when it was healed; null while open'),
    }),
  ),
  errors: [],
  walk: (ctx, q, sink) => ctx.readers.chain.gaps(ctx.view, q, sink),
});
