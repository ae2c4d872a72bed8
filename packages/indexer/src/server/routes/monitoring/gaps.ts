import { Type } from '@sinclair/typebox';
import type { GapRow } from '../../../chain/index.js';
import { PageBuilder, pageQueryOf, pageRequest } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Enum, Nullable, Obj, Paged, pageQuery, UnixSeconds } from '../../schemas.js';

const gapJson = (g: GapRow) => JSON.stringify(g);

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
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, this.id);
    const page = new PageBuilder(ctx, req);
    ctx.readers.chain.gaps(ctx.view, pageQueryOf(req), page.sink(gapJson));
    return page.finish();
  },
});
