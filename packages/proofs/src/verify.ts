/**
 * Checks a record against a block hash the caller trusts, with the proof the indexer serves
 * beside it (`?proof=true`):
 *
 *  1. keccak256(headerRlp) must equal the trusted block hash — the header, and so its
 *     `transactionsRoot` and `receiptsRoot`, are then the block's own;
 *  2. the proof nodes must lead from that root, along the key rlp(transactionIndex), to a value —
 *     each node is found by its hash in its parent (`@ethereumjs/mpt` verifyMerkleProof);
 *  3. that value must be the canonical encoding of the record served (encode.ts), byte for byte.
 *
 * Nothing here trusts the indexer: only the caller's block hash and keccak.
 */
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { encodeReceipt, encodeTransaction, encodeTransactionLeaf, type Json } from './encode.js';
import { bytesToHex, equalBytes, hexToBytes } from './hex.js';
import { indexKey } from './trie.js';

/** The proof of one record, as served (hex strings). */
export interface RecordProof {
  /** Hash of the block the proof is for. */
  blockHash: string;
  /** RLP of the block header (keccak256 of it is `blockHash`). */
  headerRlp: string;
  /** Which root of the header the proof leads from. */
  trie: 'transactions' | 'receipts';
  /** Trie key: rlp(transactionIndex). */
  key: string;
  /** Trie nodes from the root to the record's leaf, each node's RLP. */
  nodes: string[];
}

/** The outcome of a verification: what was proved, or why not. */
export type Verification =
  | { ok: true; blockNumber: number; blockHash: string; transactionIndex: number }
  | Failure;

/** A failed step, with a reason code and its detail (`code: detail`). */
export interface Failure {
  ok: false;
  reason: string;
}

const fail = (reason: string): Failure => ({ ok: false, reason });

/** Header RLP fields used here: transactionsRoot (4), receiptsRoot (5), number (8). */
function headerRoots(headerRlp: Uint8Array): {
  transactions: Uint8Array;
  receipts: Uint8Array;
  number: number;
} {
  const f = RLP.decode(headerRlp) as Uint8Array[];
  if (!Array.isArray(f) || f.length < 15) throw new Error('header RLP is not a header');
  let n = 0;
  for (const b of f[8]) n = n * 256 + b;
  return { transactions: f[4], receipts: f[5], number: n };
}

/**
 * Steps 1 and 2: the proved value at `proof.key` under the trusted block's root.
 * @returns the value and the block facts, or the failed step.
 */
export async function provedValue(
  proof: RecordProof,
  trustedBlockHash: string,
): Promise<{ ok: true; value: Uint8Array; blockNumber: number; transactionIndex: number } | Failure> {
  try {
    const header = hexToBytes(proof.headerRlp, 'headerRlp');
    const trusted = trustedBlockHash.toLowerCase();
    if (bytesToHex(keccak_256(header)) !== trusted)
      return fail('header_hash_mismatch: keccak256(headerRlp) is not the trusted block hash');
    if (proof.blockHash.toLowerCase() !== trusted)
      return fail('block_hash_mismatch: the proof is for another block');
    const roots = headerRoots(header);
    const root = proof.trie === 'transactions' ? roots.transactions : roots.receipts;
    const key = hexToBytes(proof.key, 'key');
    const index = RLP.decode(key) as Uint8Array;
    let transactionIndex = 0;
    for (const b of index) transactionIndex = transactionIndex * 256 + b;
    const nodes = proof.nodes.map((n) => hexToBytes(n, 'nodes'));
    let value: Uint8Array | null;
    try {
      value = await verifyMerkleProof(key, nodes, { root });
    } catch {
      return fail(`proof_invalid: the nodes do not lead from the ${proof.trie} root to the key`);
    }
    if (!value) return fail('proof_of_absence: the key is not in the trie');
    return { ok: true, value, blockNumber: roots.number, transactionIndex };
  } catch (err) {
    return fail(`malformed_proof: ${(err as Error).message}`);
  }
}

const idx = (v: unknown) => (typeof v === 'string' ? Number(BigInt(v)) : Number.NaN);

/** The success of a check of the record proved by `p` under the trusted block `trustedBlockHash`. */
const verified = (
  p: { blockNumber: number; transactionIndex: number },
  trustedBlockHash: string,
): Verification => ({
  ok: true,
  blockNumber: p.blockNumber,
  blockHash: trustedBlockHash.toLowerCase(),
  transactionIndex: p.transactionIndex,
});

/** Why a proof of another trie fails, by the trie a record must be proved in. */
const WRONG_TRIE: Partial<Record<RecordProof['trie'], string>> = {
  transactions: 'a transaction is proved in the transactions trie',
  receipts: 'logs are proved by their receipt in the receipts trie',
};

/**
 * {@link provedValue} of a proof that must be of `trie`; a proof of another trie fails
 * `wrong_trie: <why>` ({@link WRONG_TRIE}).
 */
async function provedIn(
  trie: RecordProof['trie'],
  proof: RecordProof,
  trustedBlockHash: string,
): ReturnType<typeof provedValue> {
  if (proof.trie !== trie) return fail(`wrong_trie: ${WRONG_TRIE[trie]}`);
  return provedValue(proof, trustedBlockHash);
}

/**
 * Verifies a transaction (the node's JSON, as `/transactions/{hash}` serves it) with its proof:
 * the proved leaf of the transactions trie is its canonical envelope, at its index, and
 * keccak256 of that envelope is its hash.
 */
export async function verifyTransactionProof(
  tx: Json,
  proof: RecordProof,
  trustedBlockHash: string,
): Promise<Verification> {
  const p = await provedIn('transactions', proof, trustedBlockHash);
  if (!p.ok) return p;
  let enc: Uint8Array | null;
  let leaf: Uint8Array | null;
  try {
    enc = encodeTransaction(tx);
    leaf = encodeTransactionLeaf(tx);
  } catch (err) {
    return fail(`record_malformed: ${(err as Error).message}`);
  }
  if (!enc || !leaf) return fail(`type_not_encodable: transaction type ${tx.type}`);
  if (!equalBytes(leaf, p.value))
    return fail('record_mismatch: the served transaction is not the proved one');
  if (bytesToHex(keccak_256(enc)) !== String(tx.hash).toLowerCase())
    return fail('hash_mismatch: keccak256 of the envelope is not the served hash');
  if (idx(tx.transactionIndex) !== p.transactionIndex)
    return fail('index_mismatch: transactionIndex is not the proved key');
  return verified(p, trustedBlockHash);
}

/**
 * Verifies a receipt (the node's JSON, as `/transactions/{hash}/receipt` serves it) with its
 * proof: the proved leaf of the receipts trie is its consensus encoding (status, cumulative gas,
 * bloom, logs) at its index. Fields outside that encoding (gasUsed, effectiveGasPrice, L1 fees…)
 * are not proved.
 */
export async function verifyReceiptProof(
  receipt: Json,
  proof: RecordProof,
  trustedBlockHash: string,
): Promise<Verification> {
  if (proof.trie !== 'receipts') return fail('wrong_trie: a receipt is proved in the receipts trie');
  const p = await provedValue(proof, trustedBlockHash);
  if (!p.ok) return p;
  let enc: Uint8Array | null;
  try {
    enc = encodeReceipt(receipt);
  } catch (err) {
    return fail(`record_malformed: ${(err as Error).message}`);
  }
  if (!enc) return fail(`type_not_encodable: receipt type ${receipt.type}`);
  if (!equalBytes(enc, p.value)) return fail('record_mismatch: the served receipt is not the proved one');
  if (idx(receipt.transactionIndex) !== p.transactionIndex)
    return fail('index_mismatch: transactionIndex is not the proved key');
  return verified(p, trustedBlockHash);
}

/** The logs of a receipt's consensus encoding: [address, topics, data] each. */
function logsOf(receiptValue: Uint8Array): Uint8Array[][] {
  const body = receiptValue[0] < 0x80 ? receiptValue.subarray(1) : receiptValue;
  const fields = RLP.decode(body) as unknown as Uint8Array[][][];
  return fields[3] as unknown as Uint8Array[][];
}

/**
 * Verifies logs of one transaction (as `/transactions/{hash}/logs` serves them) with the proof
 * of their receipt: each log's address, topics and data are the `logIndex − firstLogIndex`-th
 * log of the proved receipt, whose index is the logs' `transactionIndex`. `firstLogIndex` is the
 * block-wide index of the receipt's first log, as served with the proof: the position of a log
 * within its receipt is proved, its block-wide `logIndex` is not (that would need every earlier
 * receipt of the block).
 */
export async function verifyLogsProof(
  logs: Json[],
  proof: RecordProof,
  firstLogIndex: number,
  trustedBlockHash: string,
): Promise<Verification> {
  const p = await provedIn('receipts', proof, trustedBlockHash);
  if (!p.ok) return p;
  let proved: Uint8Array[][];
  try {
    proved = logsOf(p.value);
  } catch (err) {
    return fail(`proof_value_malformed: ${(err as Error).message}`);
  }
  for (const log of logs) {
    if (idx(log.transactionIndex) !== p.transactionIndex)
      return fail('index_mismatch: a log is of another transaction than the proved receipt');
    if (typeof log.blockHash === 'string' && log.blockHash.toLowerCase() !== trustedBlockHash.toLowerCase())
      return fail('block_hash_mismatch: a log names another block');
    const at = idx(log.logIndex) - firstLogIndex;
    const l = proved[at];
    if (!l) return fail(`log_absent: the receipt has no log at position ${at}`);
    try {
      const topics = (log.topics as string[]).map((t) => hexToBytes(t, 'topics'));
      const same =
        equalBytes(l[0] as unknown as Uint8Array, hexToBytes(log.address, 'address')) &&
        (l[1] as unknown as Uint8Array[]).length === topics.length &&
        topics.every((t, i) => equalBytes((l[1] as unknown as Uint8Array[])[i], t)) &&
        equalBytes(l[2] as unknown as Uint8Array, hexToBytes(log.data, 'data'));
      if (!same) return fail(`record_mismatch: log ${log.logIndex} is not the proved receipt's log ${at}`);
    } catch (err) {
      return fail(`record_malformed: ${(err as Error).message}`);
    }
  }
  return verified(p, trustedBlockHash);
}

/** The proof key of transaction index `i` as served (hex of rlp(i)). */
export const proofKey = (i: number): string => bytesToHex(indexKey(i));
