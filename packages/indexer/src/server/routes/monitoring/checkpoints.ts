import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.js';
import { Anchor, Hash, Nullable, Obj, ReasonOf } from '../../schemas.js';
import { checkpointsRecord } from './status.js';

/**
 * GET /index/v1/{chain}/checkpoints: the durable checkpoint of each ingest lane. Blocks and
 * receipts commit in the same batch, so they share one checkpoint.
 */
export const checkpointsRoute = defineRoute({
  id: 'monitoring.checkpoints',
  method: 'GET',
  path: '/checkpoints',
  scope: 'monitoring',
  group: 'Monitoring',
  summary:
    'Durable ingest checkpoints per lane: blocks, receipts (one batch with blocks), traces, and projection:<name> for each projection.',
  response: Obj({
    anchor: Nullable(Anchor, 'the committed head; null before the first block'),
    anchorReason: ReasonOf(['nothing_indexed_yet']),
    lanes: Type.Array(
      Obj({
        lane: Type.String({ description: 'blocks, receipts, traces, or projection:<name>' }),
        block: Nullable(
          Type.Integer({ minimum: 0 }),
          'last block the lane committed (for a traces lane that stopped: the block it reached)',
        ),
        hash: Nullable(Hash, 'canonical hash of `block`; null when block is null or the lane stopped'),
        reason: ReasonOf(
          ['nothing_indexed_yet', 'nothing_traced_yet', 'nothing_applied_yet', 'disabled', 'not_supported'],
          'why hash is null: nothing committed yet on this lane, or the traces lane is disabled (TRACES=off) or not supported by the node; null when hash is set',
        ),
      }),
    ),
  }),
  errors: [],
  handler(ctx) {
    return { json: JSON.stringify(checkpointsRecord(ctx)) };
  },
});
