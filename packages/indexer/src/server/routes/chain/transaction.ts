import { Type } from '@sinclair/typebox';
import { recordSingle } from '../../record-cache.js';
import { defineRoute } from '../../route.js';
import { Address, Amount, Enum, Hash, Nullable, Obj, ReasonOf, Single } from '../../schemas.js';
import { proofFields } from './proof.js';
import { ProofReason, proofQuery, RecordProof, TransactionEnvelope } from './schemas.js';

/**
 * GET /transactions/{hash}: the envelope byte-exact as the node sent it, plus its coordinate and
 * the origin fields `from`, `to`, `value`. Origin comes from the envelope itself (the node
 * recovers `from` from the signature), so coverage is every indexed block. With `?proof=true`,
 * the envelope's Merkle proof against its block header (proof.ts).
 */
export const transactionRoute = defineRoute({
  id: 'chain.transaction',
  cached: true,
  method: 'GET',
  path: '/transactions/{hash}',
  scope: 'read',
  group: 'Chain',
  summary:
    'Transaction envelope (byte-exact) with block coordinate and origin fields from, to, value; ?proof=true adds its Merkle proof against the block header.',
  params: { hash: Hash },
  query: proofQuery,
  response: Single(
    Obj({
      transaction: TransactionEnvelope,
      blockNumber: Type.Integer({ minimum: 0 }),
      transactionIndex: Type.Integer({ minimum: 0 }),
      from: Nullable(Address, 'sender (lowercase), as the node recovered it from the signature'),
      fromReason: ReasonOf(
        ['coverage_unavailable', 'outside_coverage', 'unrecoverable'],
        "why from is null: unrecoverable (the envelope carries no valid sender); coverage_unavailable and outside_coverage are reserved for an origin source with a coverage window (this build reads origin from the node's envelope, which covers every indexed block); null when from is set",
      ),
      to: Nullable(Address, 'callee (lowercase); null for a contract creation'),
      toReason: ReasonOf(['contract_creation']),
      value: Amount,
      originCoverage: Enum(
        ['full', 'partial'],
        'full: from, to and value are all answered from the envelope; partial: from is null (see fromReason)',
      ),
      proof: Type.Optional(
        Nullable(RecordProof, 'with ?proof=true: the envelope proved in the transactions trie of its block'),
      ),
      proofReason: Type.Optional(ProofReason),
    }),
  ),
  errors: ['not_found'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const { raw, ...origin } = ctx.readers.chain.transaction(ctx.view, ctx.anchor.number, ctx.params.hash);
    const rest = ctx.query.proof ? { ...origin, ...proofFields(ctx, 'transactions') } : origin;
    return recordSingle(
      ctx.anchor,
      `{"transaction":${raw},${JSON.stringify(rest).slice(1)}`,
      origin.blockNumber,
    );
  },
});
