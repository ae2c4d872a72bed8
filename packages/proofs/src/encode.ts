/**
 * Canonical consensus encodings of the records a JSON-RPC node serves, rebuilt from their JSON:
 *
 *  - the block header RLP (keccak of it is the block hash): the London, Shanghai, Cancun and
 *    Prague fields are appended when the header carries them;
 *  - transaction envelopes (EIP-2718): legacy, 0x1 (EIP-2930), 0x2 (EIP-1559), 0x3 (EIP-4844),
 *    0x4 (EIP-7702), the OP Stack deposit 0x7e, and Arbitrum's 0x64 deposit, 0x68 retry,
 *    0x69 submit-retryable, 0x6a internal and 0x78 classic legacy;
 *  - receipts: `type ‖ rlp([status or post-state root, cumulativeGasUsed, logsBloom, logs])`
 *    (no type byte for legacy), OP deposit receipts with their `depositNonce` and
 *    `depositReceiptVersion`.
 *
 * Sources: go-ethereum core/types (header, tx_*.go, receipt.go), op-geth core/types/deposit_tx.go
 * and receipt.go, Arbitrum nitro's go-ethereum core/types/arb_types.go. Every type listed above
 * is checked against real blocks in the tests (recorded mainnet fixtures and a devnet block);
 * a type not listed is reported as unknown, never guessed.
 */
import { RLP } from '@ethereumjs/rlp';
import { hexToBytes, quantityToBytes } from './hex.js';
import { encodeRlp } from './rlp.js';

/** A JSON record as the node sent it. */
export type Json = Record<string, unknown>;
type Item = Uint8Array | Item[];

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

const q = (r: Json, k: string): Uint8Array => quantityToBytes(r[k], k);
const d = (r: Json, k: string): Uint8Array => hexToBytes(r[k], k);
/** An optional address (`to` of a creation is null or absent): empty bytes when absent. */
const optAddr = (r: Json, k: string): Uint8Array => (r[k] == null ? EMPTY : hexToBytes(r[k], k));
/** A quantity the node may send as null (OP deposits' `mint`): 0 when absent. */
const optQ = (r: Json, k: string): Uint8Array => (r[k] == null ? EMPTY : quantityToBytes(r[k], k));
/** Signature parity of a typed transaction: `yParity`, else `v` (0 or 1 there). */
const yParity = (r: Json): Uint8Array => quantityToBytes(r.yParity ?? r.v, 'yParity');

function accessList(r: Json): Item[] {
  const list = (r.accessList as Json[] | undefined) ?? [];
  return list.map((e) => [
    hexToBytes(e.address, 'accessList.address'),
    ((e.storageKeys as string[]) ?? []).map((k) => hexToBytes(k, 'accessList.storageKeys')),
  ]);
}

function authorizationList(r: Json): Item[] {
  return ((r.authorizationList as Json[] | undefined) ?? []).map((a) => [
    q(a, 'chainId'),
    d(a, 'address'),
    q(a, 'nonce'),
    quantityToBytes(a.yParity ?? a.v, 'authorizationList.yParity'),
    q(a, 'r'),
    q(a, 's'),
  ]);
}

/** An EIP-2718 envelope: `type ‖ rlp(fields)`, in one buffer. */
const typed = (type: number, fields: Item[]): Uint8Array => encodeRlp(fields, type);

const legacyFields = (t: Json): Item[] => [
  q(t, 'nonce'),
  q(t, 'gasPrice'),
  q(t, 'gas'),
  optAddr(t, 'to'),
  q(t, 'value'),
  d(t, 'input'),
  q(t, 'v'),
  q(t, 'r'),
  q(t, 's'),
];

/** Encoder of each transaction type, by type number. */
/** The quantities `keys` of `t`, in order. */
const qs = (t: Json, ...keys: string[]): Item[] => keys.map((k) => q(t, k));

/** The signature of a typed transaction: y parity, r, s. */
const signature = (t: Json): Item[] => [yParity(t), q(t, 'r'), q(t, 's')];

/**
 * The leading fields of the EIP-1559 family (types 2, 3 and 4): chain id, nonce, the two fee caps,
 * gas, the recipient (read by `to`: required by default), value, input and access list.
 */
const feeMarketFields = (t: Json, to = d): Item[] => [
  ...qs(t, 'chainId', 'nonce', 'maxPriorityFeePerGas', 'maxFeePerGas', 'gas'),
  to(t, 'to'),
  q(t, 'value'),
  d(t, 'input'),
  accessList(t),
];

const TX_ENCODERS = new Map<number, (t: Json) => Uint8Array>([
  [0x00, (t) => encodeRlp(legacyFields(t))],
  [
    0x01,
    (t) =>
      typed(0x01, [
        ...qs(t, 'chainId', 'nonce', 'gasPrice', 'gas'),
        optAddr(t, 'to'),
        q(t, 'value'),
        d(t, 'input'),
        accessList(t),
        ...signature(t),
      ]),
  ],
  [0x02, (t) => typed(0x02, [...feeMarketFields(t, optAddr), ...signature(t)])],
  [
    0x03,
    (t) =>
      typed(0x03, [
        ...feeMarketFields(t),
        q(t, 'maxFeePerBlobGas'),
        ((t.blobVersionedHashes as string[]) ?? []).map((h) => hexToBytes(h, 'blobVersionedHashes')),
        ...signature(t),
      ]),
  ],
  [0x04, (t) => typed(0x04, [...feeMarketFields(t), authorizationList(t), ...signature(t)])],
  // OP Stack deposit (op-geth DepositTx): no signature; isSystemTx is a boolean (false after Regolith).
  [
    0x7e,
    (t) =>
      typed(0x7e, [
        d(t, 'sourceHash'),
        d(t, 'from'),
        optAddr(t, 'to'),
        optQ(t, 'mint'),
        q(t, 'value'),
        q(t, 'gas'),
        t.isSystemTx === true ? ONE : EMPTY,
        d(t, 'input'),
      ]),
  ],
  // Arbitrum ArbitrumDepositTx: [chainId, l1RequestId, from, to, value].
  [0x64, (t) => typed(0x64, [q(t, 'chainId'), d(t, 'requestId'), d(t, 'from'), d(t, 'to'), q(t, 'value')])],
  // Arbitrum ArbitrumRetryTx.
  [
    0x68,
    (t) =>
      typed(0x68, [
        q(t, 'chainId'),
        q(t, 'nonce'),
        d(t, 'from'),
        quantityToBytes(t.maxFeePerGas ?? t.gasPrice, 'maxFeePerGas'),
        q(t, 'gas'),
        optAddr(t, 'to'),
        q(t, 'value'),
        d(t, 'input'),
        d(t, 'ticketId'),
        d(t, 'refundTo'),
        q(t, 'maxRefund'),
        q(t, 'submissionFeeRefund'),
      ]),
  ],
  // Arbitrum ArbitrumSubmitRetryableTx (`retryTo` null: a creation).
  [
    0x69,
    (t) =>
      typed(0x69, [
        q(t, 'chainId'),
        d(t, 'requestId'),
        d(t, 'from'),
        q(t, 'l1BaseFee'),
        q(t, 'depositValue'),
        quantityToBytes(t.maxFeePerGas ?? t.gasPrice, 'maxFeePerGas'),
        q(t, 'gas'),
        optAddr(t, 'retryTo'),
        q(t, 'retryValue'),
        d(t, 'beneficiary'),
        q(t, 'maxSubmissionFee'),
        d(t, 'refundTo'),
        d(t, 'retryData'),
      ]),
  ],
  // Arbitrum ArbitrumInternalTx: [chainId, data].
  [0x6a, (t) => typed(0x6a, [q(t, 'chainId'), d(t, 'input')])],
  // Arbitrum classic (pre-Nitro) transactions: the legacy encoding, no type byte.
  [0x78, (t) => encodeRlp(legacyFields(t))],
]);

/** Transaction types this module encodes (numbers). */
export const KNOWN_TX_TYPES: readonly number[] = [...TX_ENCODERS.keys()];

/**
 * The transaction type of a JSON transaction or receipt (`type`, absent → 0 legacy).
 * @throws HexError when `type` is not a hex quantity.
 */
export function typeOf(r: Json): number {
  if (r.type === undefined || r.type === null) return 0;
  const b = quantityToBytes(r.type, 'type');
  return b.length === 0 ? 0 : b.length === 1 ? b[0] : 0x100;
}

/** `0x`-hex name of a type number, as nodes write it (`0x7e`). */
export const typeName = (type: number): string => `0x${type.toString(16)}`;

/**
 * The canonical envelope of a transaction from its JSON (eth_getBlockByNumber(n, true)):
 * the bytes whose keccak is the transaction hash and that the transactions trie holds.
 * @returns null when the type is not one this module encodes (see {@link KNOWN_TX_TYPES}).
 * @throws HexError when a field the type needs is missing or not hex.
 */
export function encodeTransaction(tx: Json): Uint8Array | null {
  const enc = TX_ENCODERS.get(typeOf(tx));
  return enc ? enc(tx) : null;
}

/**
 * The transactions-trie leaf of a transaction: its canonical envelope ({@link encodeTransaction}),
 * except for an EIP-4844 transaction served with its blob sidecar in the block JSON (`blobs`,
 * `commitments`, `proofs`, as anvil serves them): anvil commits such a transaction in its network
 * form, `0x03 ‖ rlp([fields, blobs, commitments, proofs])` (recorded in devnet/tx-types). Nodes
 * that serve no sidecar commit the envelope (EIP-4844). The transaction hash is keccak256 of the
 * envelope either way.
 * @returns null when the type is not one this module encodes.
 * @throws HexError when a field is missing or not hex.
 */
export function encodeTransactionLeaf(tx: Json): Uint8Array | null {
  const env = encodeTransaction(tx);
  if (!env || env[0] !== 0x03) return env;
  const { blobs, commitments, proofs } = tx as { blobs?: unknown; commitments?: unknown; proofs?: unknown };
  if (!Array.isArray(blobs) || !Array.isArray(commitments) || !Array.isArray(proofs)) return env;
  const list = (xs: unknown[], k: string) => xs.map((x) => hexToBytes(x, k));
  return typed(0x03, [
    RLP.decode(env.subarray(1)) as Item[],
    list(blobs, 'blobs'),
    list(commitments, 'commitments'),
    list(proofs, 'proofs'),
  ]);
}

/**
 * Receipt types whose consensus encoding is known: every encoded transaction type but Arbitrum
 * classic 0x78 (pre-Nitro receipts were committed by classic ArbOS in another form: the JSON's
 * `cumulativeGasUsed` is even below its `gasUsed`).
 */
export const KNOWN_RECEIPT_TYPES: readonly number[] = KNOWN_TX_TYPES.filter((t) => t !== 0x78);
const RECEIPT_TYPES = new Set(KNOWN_RECEIPT_TYPES);

/**
 * The consensus encoding of a receipt from its JSON (eth_getBlockReceipts): what the receipts
 * trie holds. Post-Byzantium receipts carry `status`, earlier ones the post-state `root`; OP
 * deposit receipts append `depositNonce` and `depositReceiptVersion` when the node sends them.
 * Fields outside the consensus encoding (gasUsed, effectiveGasPrice, contractAddress, L1 fee
 * fields…) are not covered.
 * @returns null when the receipt's type is not one this module encodes.
 * @throws HexError when a consensus field is missing or not hex.
 */
export function encodeReceipt(rc: Json): Uint8Array | null {
  const type = typeOf(rc);
  if (!RECEIPT_TYPES.has(type)) return null;
  const logs = ((rc.logs as Json[]) ?? []).map((l) => [
    hexToBytes(l.address, 'logs.address'),
    ((l.topics as string[]) ?? []).map((t) => hexToBytes(t, 'logs.topics')),
    hexToBytes(l.data, 'logs.data'),
  ]);
  const fields: Item[] = [
    rc.root != null && rc.status == null ? d(rc, 'root') : q(rc, 'status'),
    q(rc, 'cumulativeGasUsed'),
    d(rc, 'logsBloom'),
    logs,
  ];
  if (type === 0x7e) {
    if (rc.depositNonce != null) fields.push(q(rc, 'depositNonce'));
    if (rc.depositReceiptVersion != null) fields.push(q(rc, 'depositReceiptVersion'));
  }
  return type === 0 ? encodeRlp(fields) : typed(type, fields);
}

/**
 * Header JSON fields this module knows: in the header RLP, or known to be outside it (hash,
 * size, totalDifficulty, the transaction and uncle lists, withdrawals; Arbitrum's l1BlockNumber,
 * sendCount and sendRoot, which extraData and mixHash carry).
 */
const HEADER_FIELDS = new Set([
  'hash',
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
  'totalDifficulty',
  'size',
  'transactions',
  'uncles',
  'withdrawals',
  'l1BlockNumber',
  'sendCount',
  'sendRoot',
]);

/**
 * Fields of a header JSON this module does not know: a fork's new header field may be among
 * them, so {@link encodeHeader} of such a header may not hash to the block hash.
 */
export function unknownHeaderFields(h: Json): string[] {
  return Object.keys(h).filter((k) => !HEADER_FIELDS.has(k));
}

/** Header fields after `nonce`, in order: each is appended when present (fork by fork). */
const HEADER_TAIL: Array<[string, 'q' | 'd']> = [
  ['baseFeePerGas', 'q'],
  ['withdrawalsRoot', 'd'],
  ['blobGasUsed', 'q'],
  ['excessBlobGas', 'q'],
  ['parentBeaconBlockRoot', 'd'],
  ['requestsHash', 'd'],
];

/**
 * The RLP of a block header from its JSON (eth_getBlockByNumber): keccak of it is the block hash
 * on Ethereum, OP Stack and Arbitrum chains alike.
 * @throws HexError when a header field is missing or not hex.
 */
export function encodeHeader(h: Json): Uint8Array {
  const fields: Item[] = [
    d(h, 'parentHash'),
    d(h, 'sha3Uncles'),
    d(h, 'miner'),
    d(h, 'stateRoot'),
    d(h, 'transactionsRoot'),
    d(h, 'receiptsRoot'),
    d(h, 'logsBloom'),
    q(h, 'difficulty'),
    q(h, 'number'),
    q(h, 'gasLimit'),
    q(h, 'gasUsed'),
    q(h, 'timestamp'),
    d(h, 'extraData'),
    d(h, 'mixHash'),
    d(h, 'nonce'),
  ];
  for (const [k, kind] of HEADER_TAIL) {
    if (h[k] == null) break;
    fields.push(kind === 'q' ? q(h, k) : d(h, k));
  }
  return encodeRlp(fields);
}
