import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../route.js';
import { Anchor } from '../../schemas.js';

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
  summary: 'Durable ingest checkpoints per lane (blocks, receipts, traces, projections).',
  response: Type.Object({
    anchor: Type.Union([Anchor, Type.Null()]),
    lanes: Type.Array(
      Type.Object({
        lane: Type.String(),
        block: Type.Union([Type.Integer(), Type.Null()]),
        hash: Type.Union([Type.String(), Type.Null()]),
        reason: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
  errors: [],
  handler(ctx) {
    const head = ctx.chain.store.head();
    const at = head
      ? { block: head.number, hash: head.hash, reason: null }
      : { block: null, hash: null, reason: 'nothing_indexed_yet' };
    const lanes = [
      { lane: 'blocks', ...at },
      { lane: 'receipts', ...at },
      (() => {
        const t = ctx.chain.traces.status();
        const n = t.checkpoint;
        return t.state === 'following' && n !== null
          ? { lane: 'traces', block: n, hash: ctx.chain.store.canonicalHash(n) ?? null, reason: null }
          : {
              lane: 'traces',
              block: n,
              hash: null,
              reason: t.state === 'following' ? 'nothing_traced_yet' : (t.reason ?? t.state),
            };
      })(),
      ...ctx.chain.registry.projections.map((p) => {
        const n = ctx.chain.registry.state(p.name).checkpoint;
        return {
          lane: `projection:${p.name}`,
          block: n,
          hash: n !== null ? (ctx.chain.store.canonicalHash(n) ?? null) : null,
          reason: n === null ? 'nothing_applied_yet' : null,
        };
      }),
    ];
    return { json: JSON.stringify({ anchor: head ? { block: head.number, hash: head.hash } : null, lanes }) };
  },
});
