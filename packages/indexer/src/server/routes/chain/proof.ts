/**
 * The `proof` and `proofReason` fields the record routes add with `?proof=true` (the chain
 * reader's proofs, src/chain/proofs.ts).
 */
import type { Ctx } from '../../route.js';

/**
 * `{proof, proofReason}` for transaction `ctx.params.hash` in `trie`, read through the request's
 * view at its anchor.
 * @throws DomainError not_found when the transaction is not canonical at the anchor.
 */
export function proofFields(
  ctx: Ctx<{ hash: string }, unknown>,
  trie: 'transactions' | 'receipts',
): { proof: unknown; proofReason: string | null } {
  const a = ctx.readers.chain.proof(ctx.view, ctx.anchor.number, ctx.params.hash, trie);
  return { proof: a.proof, proofReason: a.proofReason };
}
