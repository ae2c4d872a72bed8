import { Type } from '@sinclair/typebox';
import { CHAIN_INTERNAL } from '../../../schema/cursors.js';
import { paged, Unpaged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Anchor, Count, Hash, Obj, PageInfo, pageQuery } from '../../schemas.js';
import { InternalTransfer, TraceNotAvailable, TraceSource } from './schemas.js';

const Reconciliation = Obj(
  {
    rootMatchesEnvelope: Type.Boolean({
      description:
        "the replayed root frame's from, to and value equal the envelope's (the re-execution matches the record)",
    }),
    verifiableAgainstBlockRoot: Type.Literal(false, {
      description:
        'always false: internal transfers come from node re-execution, not from a block root (R10)',
    }),
    internalTransfers: Count('internal value transfers of the transaction (every page)'),
    creations: Count('contracts created by the transaction, its top-level creation included'),
  },
  { description: 'how the replay reconciles with the canonical record' },
);

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
    'Internal value transfers and creations of a transaction from callTracer replay: rows {ordinal, from, to, value (wei), kind, effective, type}; retention {coverage: retained|not_available, reason} and reconciliation {rootMatchesEnvelope, verifiableAgainstBlockRoot: false}. Not verifiable against a block root (R10). PAGE by frame ordinal.',
  params: { hash: Hash },
  query: pageQuery(),
  response: Type.Union([
    Obj(
      {
        anchor: Anchor,
        data: Type.Array(InternalTransfer),
        page: PageInfo,
        retention: Obj({
          coverage: Type.Literal('retained'),
          reason: Type.Null({ description: 'null: retained' }),
          source: TraceSource,
        }),
        reconciliation: Reconciliation,
      },
      { description: 'retained: one page of internal transfers and creations' },
    ),
    Obj(
      {
        anchor: Anchor,
        data: Type.Null({
          description: 'null: nothing is retained (see retention.reason), never an empty list',
        }),
        dataReason: Type.Literal('not_available'),
        retention: Obj({ coverage: Type.Literal('not_available'), ...TraceNotAvailable }),
      },
      { description: 'no trace is retained for this transaction' },
    ),
  ]),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    return paged(ctx, CHAIN_INTERNAL.tag(this.id, ctx.params.hash.toLowerCase()), (q, sink) => {
      const { coverage: c } = ctx.readers.chain.internalTransfers(ctx.view, ctx.params.hash, q, sink);
      if (c.coverage === 'not_available') {
        const { coverage, reason, detail, retryable } = c;
        const retention = { coverage, reason, detail, retryable };
        return new Unpaged({ data: null, dataReason: 'not_available', retention });
      }
      return {
        retention: { coverage: 'retained', reason: null, source: c.source },
        reconciliation: {
          rootMatchesEnvelope: c.rootMatchesEnvelope,
          verifiableAgainstBlockRoot: false,
          internalTransfers: c.internalTransfers,
          creations: c.creations,
        },
      };
    });
  },
});
