import { Type } from '@sinclair/typebox';
import { recordSingle } from '../../record-cache.js';
import { defineRoute } from '../../route.js';
import { Hash, Nullable, Obj, ReasonOf, Single } from '../../schemas.js';
import { proofFields } from './proof.js';
import { L1Gas, ProofReason, proofQuery, ReceiptRecord, RecordProof } from './schemas.js';

/**
 * GET /transactions/{hash}/receipt: the receipt byte-exact as the node sent it
 * (eth_getBlockReceipts), plus the chain-specific L1 gas accounting normalised to decimal strings.
 * With `?proof=true`, the receipt's Merkle proof against its block header (proof.ts).
 */
export const receiptRoute = defineRoute({
  id: 'chain.receipt',
  cached: true,
  method: 'GET',
  path: '/transactions/{hash}/receipt',
  scope: 'read',
  group: 'Chain',
  summary:
    'Receipt (byte-exact) with normalised L1 gas accounting (OP Stack, Arbitrum; null with a reason elsewhere); ?proof=true adds its Merkle proof against the block header.',
  params: { hash: Hash },
  query: proofQuery,
  response: Single(
    Obj({
      receipt: ReceiptRecord,
      l1Gas: Nullable(L1Gas, 'L1 gas accounting of an L2 receipt, wei and gas units as decimal strings'),
      l1GasReason: ReasonOf(
        ['not_an_l2_receipt', 'op_stack_deposit_transaction'],
        'not_an_l2_receipt: the receipt carries no L1 accounting (an L1 chain); op_stack_deposit_transaction: deposits pay no L1 fee; null when l1Gas is set',
      ),
      proof: Type.Optional(
        Nullable(RecordProof, 'with ?proof=true: the receipt proved in the receipts trie of its block'),
      ),
      proofReason: Type.Optional(ProofReason),
    }),
  ),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const r = ctx.readers.chain.receipt(ctx.view, ctx.anchor.number, ctx.params.hash);
    const proof = ctx.query.proof ? `,${JSON.stringify(proofFields(ctx, 'receipts')).slice(1, -1)}` : '';
    return recordSingle(
      ctx.anchor,
      `{"receipt":${r.raw},"l1Gas":${JSON.stringify(r.l1Gas)},"l1GasReason":${JSON.stringify(r.l1GasReason)}${proof}}`,
      r.blockNumber,
    );
  },
});
