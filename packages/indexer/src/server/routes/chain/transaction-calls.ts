import { Type } from '@sinclair/typebox';
import type { CallFrameRow } from '../../../chain/index.js';
import { CHAIN_CALL_FRAMES } from '../../../schema/cursors.js';
import { paged, Unpaged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Anchor, Count, Hash, Obj, PageInfo } from '../../schemas.js';
import { CallFrame, TraceNotAvailable, TraceSource } from './schemas.js';

/** Call-tree frames per page (spec Limits: 1..64, default 32). */
const MAX_FRAMES_PER_PAGE = 64;
const DEFAULT_FRAMES_PER_PAGE = 32;

const frameJson = (f: CallFrameRow) => JSON.stringify(f);

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
    'Decoded call tree, frames in pre-order (ordinal, parent, depth, kind, from, to, value, movesValue, decoded calldata, output, revert state); limit 1..64 default 32; coverage not_available with a reason when no tree is retained. From node re-execution: not verifiable against a block root (R10).',
  params: { hash: Hash },
  query: {
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'opaque cursor from page.nextCursor' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_FRAMES_PER_PAGE, default: DEFAULT_FRAMES_PER_PAGE }),
    ),
  },
  response: Type.Union([
    Obj(
      {
        anchor: Anchor,
        data: Type.Array(CallFrame),
        page: PageInfo,
        coverage: Type.Literal('retained'),
        reason: Type.Null({ description: 'null: the tree is retained' }),
        source: TraceSource,
        frames: Count('frames in the whole tree (every page)'),
      },
      { description: 'a retained call tree: one page of frames' },
    ),
    Obj(
      {
        anchor: Anchor,
        coverage: Type.Literal('not_available'),
        ...TraceNotAvailable,
        data: Type.Null({ description: 'null: no tree is retained (see reason), never an empty list' }),
      },
      { description: 'no call tree is retained for this transaction' },
    ),
  ]),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const route = CHAIN_CALL_FRAMES.tag(this.id, ctx.params.hash.toLowerCase());
    return paged(
      ctx,
      route,
      (q, sink) => {
        const { coverage: c } = ctx.readers.chain.callFrames(ctx.view, ctx.params.hash, q, sink);
        if (c.coverage === 'retained')
          return { coverage: 'retained', reason: null, source: c.source, frames: c.frames };
        const { coverage, reason, detail, retryable } = c;
        return new Unpaged({ coverage, reason, detail, retryable, data: null });
      },
      frameJson,
      { limit: DEFAULT_FRAMES_PER_PAGE },
    );
  },
});
