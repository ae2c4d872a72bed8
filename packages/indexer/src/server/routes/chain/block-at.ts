import { Type } from '@sinclair/typebox';
import { singleRoute } from '../../route-shapes.js';
import { Hash, Nullable, Obj, ReasonOf, UnixSeconds } from '../../schemas.js';

const Bound = Obj({
  number: Type.Integer({ minimum: 0, description: 'block number' }),
  hash: Hash,
  timestamp: UnixSeconds('block timestamp, unix seconds'),
});

/**
 * GET /blocks/at?timestamp=T: both named bounds of T against one snapshot — the last block with
 * timestamp ≤ T and the first block with timestamp ≥ T. A missing bound is null with a reason.
 */
export const blockAtRoute = singleRoute({
  id: 'chain.blockAt',
  path: '/blocks/at',
  scope: 'read',
  group: 'Chain',
  summary:
    'Both named bounds of a timestamp, read at one anchor: lastAtOrBefore (the highest block with timestamp ≤ T) and firstAtOrAfter (the lowest block with timestamp ≥ T); each null with a reason when no indexed block qualifies.',
  query: {
    timestamp: Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1, description: 'unix seconds (required)' }),
  },
  data: Obj({
    timestamp: UnixSeconds('the timestamp asked for'),
    lastAtOrBefore: Nullable(Bound),
    lastAtOrBeforeReason: ReasonOf(
      ['before_first_indexed_block'],
      'before_first_indexed_block: every indexed block is later than T; null when lastAtOrBefore is set',
    ),
    firstAtOrAfter: Nullable(Bound),
    firstAtOrAfterReason: ReasonOf(
      ['after_anchor_block'],
      'after_anchor_block: T is later than the anchor block; null when firstAtOrAfter is set',
    ),
  }),
  errors: ['bad_request'],
  read: (ctx) => ctx.readers.chain.timestampBounds(ctx.view, ctx.anchor.number, ctx.query.timestamp),
});
