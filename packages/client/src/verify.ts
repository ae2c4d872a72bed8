/**
 * Verifiers of the records the indexer serves with `?proof=true`, against a block hash the
 * caller trusts (e.g. `eth_getBlockByNumber` on its own node): nothing the indexer says is
 * trusted but the bytes it proves. Each checks keccak256(headerRlp) = the trusted hash, walks the
 * proof nodes from the header's root along rlp(transactionIndex), and compares the leaf with the
 * canonical encoding of the record served (@chain-indexer/proofs).
 *
 * ```ts
 * const { data } = await api.GET('/index/v1/{chain}/transactions/{hash}/receipt', {
 *   params: { path: { chain: api.chain, hash }, query: { proof: true } },
 * });
 * const v = await verifyReceipt(data!.data, trustedBlockHash);
 * if (!v.ok) throw new Error(v.reason);
 * ```
 */
import {
  type RecordProof,
  type Verification,
  verifyLogsProof,
  verifyReceiptProof,
  verifyTransactionProof,
} from '@chain-indexer/proofs';

export type { RecordProof, Verification } from '@chain-indexer/proofs';

type Json = Record<string, unknown>;

/** The proof fields a record route adds with `?proof=true`. */
interface WithProof {
  proof?: (RecordProof & Json) | null;
  proofReason?: string | null;
}

const missing = (r: WithProof): Verification => ({
  ok: false,
  reason: r.proofReason
    ? `no_proof: ${r.proofReason}`
    : 'no_proof: the response carries no proof (request it with ?proof=true)',
});

/** `check(proof)` when the response carries its proof, else the `no_proof` failure. */
const withProof = (
  r: WithProof,
  check: (proof: RecordProof & Json) => Promise<Verification>,
): Promise<Verification> => (r.proof ? check(r.proof) : Promise.resolve(missing(r)));

/**
 * Verifies the `data` of GET /transactions/{hash}?proof=true: the envelope is the transactions
 * trie's leaf at its index in the block whose hash is `trustedBlockHash`, and its hash is
 * keccak256 of that envelope.
 * @returns `{ok: true, blockNumber, blockHash, transactionIndex}` or `{ok: false, reason}`
 *   (reason codes: no_proof, header_hash_mismatch, block_hash_mismatch, proof_invalid,
 *   proof_of_absence, record_mismatch, hash_mismatch, index_mismatch, type_not_encodable, …).
 */
export function verifyTransaction(
  data: { transaction: Json } & WithProof,
  trustedBlockHash: string,
): Promise<Verification> {
  return withProof(data, (proof) => verifyTransactionProof(data.transaction, proof, trustedBlockHash));
}

/**
 * Verifies the `data` of GET /transactions/{hash}/receipt?proof=true: status, cumulative gas,
 * bloom and logs are the receipts trie's leaf at its index in the trusted block (fields outside
 * the consensus encoding — gasUsed, effectiveGasPrice, L1 fees — are not covered).
 * @returns as {@link verifyTransaction}.
 */
export function verifyReceipt(
  data: { receipt: Json } & WithProof,
  trustedBlockHash: string,
): Promise<Verification> {
  return withProof(data, (proof) => verifyReceiptProof(data.receipt, proof, trustedBlockHash));
}

/**
 * Verifies a page of GET /transactions/{hash}/logs?proof=true: each log's address, topics and
 * data are the proved receipt's log at position logIndex − firstLogIndex, and the receipt is the
 * receipts trie's leaf at the logs' transactionIndex in the trusted block. The position within
 * the receipt is proved; the block-wide logIndex is not.
 * @returns as {@link verifyTransaction}.
 */
export function verifyLog(
  page: {
    data: Json[];
    proof?: (RecordProof & { firstLogIndex: number } & Json) | null;
    proofReason?: string | null;
  },
  trustedBlockHash: string,
): Promise<Verification> {
  if (!page.proof) return Promise.resolve(missing(page));
  return verifyLogsProof(page.data, page.proof, page.proof.firstLogIndex, trustedBlockHash);
}
