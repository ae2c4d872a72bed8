/**
 * Merkle proofs of stored records (`?proof=true` on the transaction, receipt and transaction-logs
 * routes): the block's header RLP, the trie key rlp(transactionIndex) and the nodes from the
 * header's root down to the record, rebuilt from the stored records of its block (byte-exact node
 * JSON, src/ingest/apply.ts) with @chain-indexer/proofs — synchronously, within the request's
 * view. A client checks keccak256(headerRlp) against a block hash it trusts, then the nodes
 * against the root (docs/guide.md, "Verifiable records"; the typed client's verifiers).
 */
import {
  bytesToHex,
  encodeHeader,
  encodeReceipt,
  encodeTransactionLeaf,
  indexKey,
  type Json,
  orderedTrieProof,
  typeName,
  typeOf,
  unknownHeaderFields,
} from '@chain-indexer/proofs';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { RootsCheck } from '../schema/rows/chain.js';
import { RECEIPT, ROOTS, TX } from '../schema/tables/chain.js';
import type { View } from '../storage/index.js';
import { header, txLocation } from './records.js';

/** The proof of one record, as served. */
export interface RecordProofJson {
  blockHash: string;
  blockNumber: number;
  /** RLP of the block header, hex: keccak256 of it is `blockHash`. */
  headerRlp: string;
  /** The header root the nodes lead from. */
  trie: 'transactions' | 'receipts';
  /** rlp(transactionIndex), hex. */
  key: string;
  /** Trie nodes, root first, each node's RLP in hex. */
  nodes: string[];
  /** How ingest checked the block's roots; null for a block stored before the check existed. */
  rootsCheck: RootsCheck | null;
}

/** Why a record has no proof. */
export type ProofReason = 'type_not_encodable' | 'header_not_encodable';

/** A proof, or the reason there is none. */
export type ProofAnswer =
  | { proof: RecordProofJson; proofReason: null }
  | { proof: null; proofReason: ProofReason; detail: string };

/**
 * The proof of the transaction (trie `transactions`) or of the receipt (trie `receipts`) of
 * transaction `hash`, as of the anchor `at`.
 * @returns the proof, or `type_not_encodable` (its block holds a transaction type the encoder
 *   does not know: the trie cannot be rebuilt) / `header_not_encodable` (a header field it does
 *   not know: the header RLP would not hash to the block hash).
 * @throws DomainError not_found when the transaction is not canonical at `at`.
 */
export function recordProof(
  view: View,
  at: number,
  hash: string,
  trie: 'transactions' | 'receipts',
): ProofAnswer {
  const loc = txLocation(view, at, hash);
  const n = loc.number;
  const h = JSON.parse(header(view, at, n)) as Json;
  const unknown = unknownHeaderFields(h);
  const headerRlp = encodeHeader(h);
  const blockHash = bytesToHex(keccak_256(headerRlp));
  if (unknown.length || blockHash !== String(h.hash).toLowerCase())
    return {
      proof: null,
      proofReason: 'header_not_encodable',
      detail: unknown.length
        ? `header fields ${unknown.join(', ')}`
        : 'header RLP does not hash to the block hash',
    };
  const table = trie === 'transactions' ? TX : RECEIPT;
  const items: Uint8Array[] = [];
  let bad: string | null = null;
  view.eachValue(table, { prefix: [n] }, (raw) => {
    const rec = JSON.parse(raw) as Json;
    const enc = trie === 'transactions' ? encodeTransactionLeaf(rec) : encodeReceipt(rec);
    if (!enc) {
      bad = typeName(typeOf(rec));
      return false;
    }
    items.push(enc);
  });
  if (bad !== null) return { proof: null, proofReason: 'type_not_encodable', detail: `type ${bad}` };
  const p = orderedTrieProof(items, loc.txIndex);
  return {
    proof: {
      blockHash,
      blockNumber: n,
      headerRlp: bytesToHex(headerRlp),
      trie,
      key: bytesToHex(indexKey(loc.txIndex)),
      nodes: p.nodes.map(bytesToHex),
      rootsCheck: view.get(ROOTS, n) ?? null,
    },
    proofReason: null,
  };
}
