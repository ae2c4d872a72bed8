/**
 * @chain-indexer/proofs: canonical encodings of EVM JSON-RPC records, their ordered tries, and
 * verification of served records against a trusted block hash. Used by the indexer (roots check
 * at ingest, proofs on the chain routes) and by the typed client (verifiers).
 */
export {
  encodeHeader,
  encodeReceipt,
  encodeTransaction,
  encodeTransactionLeaf,
  type Json,
  KNOWN_RECEIPT_TYPES,
  KNOWN_TX_TYPES,
  typeName,
  typeOf,
  unknownHeaderFields,
} from './encode.js';
export { keccak, useWasmKeccak } from './hash.js';
export { bytesToHex, equalBytes, HexError, hexToBytes } from './hex.js';
export {
  EMPTY_TRIE_ROOT,
  indexKey,
  type OrderedTrie,
  orderedTrie,
  orderedTrieProof,
  orderedTrieRoot,
} from './trie.js';
export {
  type Failure,
  proofKey,
  provedValue,
  type RecordProof,
  type Verification,
  verifyLogsProof,
  verifyReceiptProof,
  verifyTransactionProof,
} from './verify.js';
