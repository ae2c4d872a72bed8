/**
 * Response schemas of the chain routes. Raw records (headers, transactions, receipts, logs) are
 * served byte-exact as the node sent them: open objects marked `x-node-record` that name every
 * standard field of the Ethereum JSON-RPC specification (ethereum/execution-apis: Block,
 * TransactionInfo, ReceiptInfo, Log) with its type; a field a chain adds (OP Stack receipts'
 * l1Fee…, Arbitrum headers' l1BlockNumber…) may follow. Everything the service derives (origin
 * fields, L1 gas, decodings, call frames, internal transfers, coverage) is a closed object.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import {
  CALL_DECODERS,
  CALL_UNKNOWN_REASONS,
  LOG_STANDARDS,
  LOG_UNKNOWN_REASONS,
} from '../../../chain/index.js';
import {
  Address,
  Amount,
  Anchor,
  Count,
  Enum,
  Hash,
  Nullable,
  Obj,
  PageInfo,
  RawRecord,
  ReasonOf,
  UnixSeconds,
} from '../../schemas.js';

// Hex encodings of the JSON-RPC specification (execution-apis base types), case-insensitive.
const Quantity = (description: string) =>
  Type.String({ pattern: '^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$', description: `${description} (hex quantity)` });
const Data = (description: string) =>
  Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$', description: `${description} (hex bytes)` });
const Hash32 = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description });
const Addr = (description: string) => Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description });
const Bloom = Type.String({ pattern: '^0x[0-9a-fA-F]{512}$', description: '2048-bit logs bloom (hex)' });

const OPEN =
  'Open object: served byte-exact as the node sent it, and chains add fields to the standard record (OP Stack and Arbitrum receipts carry L1 fee fields, Arbitrum headers l1BlockNumber and sendRoot, OP deposits sourceHash and mint). The standard fields are named here.';
const NodeRecord = (what: string, props: Record<string, TSchema>) => RawRecord(`${what}. ${OPEN}`, props);

/** A withdrawal (EIP-4895) as the node sent it. */
const Withdrawal = NodeRecord('withdrawal (EIP-4895)', {
  index: Quantity('withdrawal index'),
  validatorIndex: Quantity('validator index'),
  address: Addr('recipient'),
  amount: Quantity('amount in gwei'),
});

/** Block header as returned by eth_getBlockByNumber(n, false): transactions as hashes. */
export const BlockHeader = NodeRecord('block header as returned by eth_getBlockByNumber(n, false)', {
  hash: Hash32('block hash'),
  parentHash: Hash32('parent block hash'),
  sha3Uncles: Hash32('ommers hash'),
  miner: Addr('coinbase'),
  stateRoot: Hash32('state root'),
  transactionsRoot: Hash32('transactions root'),
  receiptsRoot: Hash32('receipts root'),
  logsBloom: Bloom,
  difficulty: Type.Optional(Quantity('difficulty')),
  number: Quantity('block number'),
  gasLimit: Quantity('gas limit'),
  gasUsed: Quantity('gas used'),
  timestamp: Quantity('unix seconds'),
  extraData: Data('extra data'),
  mixHash: Hash32('mix hash (prevRandao after the merge)'),
  nonce: Type.String({ pattern: '^0x[0-9a-fA-F]{16}$', description: 'nonce (8 bytes hex)' }),
  totalDifficulty: Type.Optional(Quantity('total difficulty (pre-merge clients)')),
  baseFeePerGas: Type.Optional(Quantity('base fee per gas, wei (London+)')),
  withdrawalsRoot: Type.Optional(Hash32('withdrawals root (Shanghai+)')),
  blobGasUsed: Type.Optional(Quantity('blob gas used (Cancun+)')),
  excessBlobGas: Type.Optional(Quantity('excess blob gas (Cancun+)')),
  parentBeaconBlockRoot: Type.Optional(Hash32('parent beacon block root (Cancun+)')),
  requestsHash: Type.Optional(Hash32('execution requests hash (Prague+)')),
  size: Quantity('block size in bytes'),
  transactions: Type.Array(Hash32('transaction hash'), { description: 'transaction hashes in index order' }),
  withdrawals: Type.Optional(Type.Array(Withdrawal)),
  uncles: Type.Array(Hash32('ommer hash')),
});

const AccessListEntry = NodeRecord('access list entry (EIP-2930)', {
  address: Addr('accessed address'),
  storageKeys: Type.Array(Hash32('storage key')),
});
const Authorization = NodeRecord('set-code authorization (EIP-7702)', {
  chainId: Quantity('chain id'),
  address: Addr('delegate address'),
  nonce: Quantity('authority nonce'),
  yParity: Quantity('signature y parity'),
  r: Quantity('signature r'),
  s: Quantity('signature s'),
});

/** Transaction as returned by eth_getBlockByNumber(n, true) / eth_getTransactionByHash. */
export const TransactionEnvelope = NodeRecord(
  'transaction as returned by eth_getTransactionByHash (the same record as in eth_getBlockByNumber(n, true))',
  {
    blockHash: Hash32('block hash'),
    blockNumber: Quantity('block number'),
    from: Addr('sender, recovered by the node from the signature'),
    hash: Hash32('transaction hash'),
    transactionIndex: Quantity('index in the block'),
    type: Quantity('transaction type (0x0 legacy, 0x1 EIP-2930, 0x2 EIP-1559, 0x3 EIP-4844, 0x4 EIP-7702)'),
    nonce: Quantity('sender nonce'),
    to: Nullable(Addr('callee'), 'callee; null for a contract creation'),
    gas: Quantity('gas limit'),
    value: Quantity('value, wei'),
    input: Data('calldata or init code'),
    gasPrice: Type.Optional(
      Quantity('gas price, wei (legacy and EIP-2930; effective price on some clients)'),
    ),
    maxPriorityFeePerGas: Type.Optional(Quantity('max priority fee per gas, wei (EIP-1559+)')),
    maxFeePerGas: Type.Optional(Quantity('max fee per gas, wei (EIP-1559+)')),
    maxFeePerBlobGas: Type.Optional(Quantity('max fee per blob gas, wei (EIP-4844)')),
    accessList: Type.Optional(Type.Array(AccessListEntry)),
    blobVersionedHashes: Type.Optional(Type.Array(Hash32('versioned blob hash'))),
    authorizationList: Type.Optional(Type.Array(Authorization)),
    chainId: Type.Optional(Quantity('chain id (absent on pre-EIP-155 legacy transactions)')),
    v: Type.Optional(Quantity('signature v')),
    yParity: Type.Optional(Quantity('signature y parity (typed transactions)')),
    r: Type.Optional(Quantity('signature r')),
    s: Type.Optional(Quantity('signature s')),
  },
);

/** Log as found in receipts (eth_getBlockReceipts / eth_getTransactionReceipt). */
export const LogRecord = NodeRecord('log as returned in eth_getBlockReceipts', {
  address: Addr('emitting contract'),
  topics: Type.Array(Hash32('topic'), { maxItems: 4 }),
  data: Data('non-indexed data'),
  blockNumber: Quantity('block number'),
  blockHash: Hash32('block hash'),
  transactionHash: Hash32('transaction hash'),
  transactionIndex: Quantity('transaction index'),
  logIndex: Quantity('log index in the block'),
  removed: Type.Boolean({ description: 'always false for a canonical record' }),
  blockTimestamp: Type.Optional(Quantity('block timestamp, unix seconds (clients that add it)')),
});

/** Receipt as returned by eth_getTransactionReceipt. */
export const ReceiptRecord = NodeRecord('receipt as returned by eth_getTransactionReceipt', {
  transactionHash: Hash32('transaction hash'),
  transactionIndex: Quantity('transaction index'),
  blockHash: Hash32('block hash'),
  blockNumber: Quantity('block number'),
  from: Addr('sender'),
  to: Nullable(Addr('callee'), 'callee; null for a contract creation'),
  type: Type.Optional(Quantity('transaction type')),
  cumulativeGasUsed: Quantity('gas used by this and every earlier transaction of the block'),
  gasUsed: Quantity('gas used by this transaction'),
  effectiveGasPrice: Quantity('price per gas actually paid, wei'),
  blobGasUsed: Type.Optional(Quantity('blob gas used (EIP-4844)')),
  blobGasPrice: Type.Optional(Quantity('blob gas price, wei (EIP-4844)')),
  contractAddress: Nullable(Addr('created contract'), 'created contract; null unless a contract creation'),
  logs: Type.Array(LogRecord),
  logsBloom: Bloom,
  status: Type.Optional(Quantity('0x1 success, 0x0 failure (Byzantium+)')),
  root: Type.Optional(Hash32('post-transaction state root (pre-Byzantium)')),
});

/** A decoded ABI value: integers as decimal strings in raw base units, addresses and bytes lowercase hex. */
const AbiValue = Type.Union(
  [
    Type.String(),
    Type.Boolean(),
    Type.Array(Type.Unknown()),
    Type.Record(Type.String(), Type.Unknown(), { additionalProperties: false }),
  ],
  {
    description:
      'ABI value: integers as decimal strings in raw base units (never numbers), addresses and bytes lowercase hex, bool as boolean, arrays as arrays, tuples as objects keyed by component name; an indexed dynamic input is its topic (keccak256 of the value)',
  },
);
const Args = Type.Record(Type.String(), AbiValue, {
  additionalProperties: false,
  description: 'every input in ABI order, keyed by its name (arg<i> when unnamed)',
});

const VerifiedAbi = Type.String({ pattern: '^verified_abi:.+$', description: 'a verified ABI by name' });

/** src/decode DecodedLog: decoded, or unknown with a reason (never omitted, R10). */
export const DecodedLog = Type.Union([
  Obj(
    {
      status: Type.Literal('decoded'),
      event: Type.String({ description: 'event name, e.g. Transfer' }),
      standard: Type.Union([Enum(LOG_STANDARDS), VerifiedAbi], {
        description: 'the table that decoded it: a built-in family or verified_abi:<name>',
      }),
      signature: Type.String({ description: 'canonical signature, the preimage of topic0' }),
      args: Args,
    },
    { description: 'a decoded log' },
  ),
  Obj(
    {
      status: Type.Literal('unknown'),
      reason: Enum(LOG_UNKNOWN_REASONS, 'why it was not decoded'),
      topic0: Nullable(
        Hash,
        'topic0 when the log has one and no decoder matched it; null otherwise (see reason)',
      ),
    },
    {
      description:
        'an undecoded log: no_decoder_for_topic0, anonymous_or_no_topics, data_does_not_match_abi (events with this topic0 exist but none fits), not_decoded (no decoded row: cannot occur while decoded_views is ready)',
    },
  ),
]);

const Selector = Type.String({ pattern: '^0x[0-9a-fA-F]{8}$', description: '4-byte function selector' });

/** src/decode DecodedCall: decoded, or unknown with a reason. */
export const DecodedCall = Type.Union([
  Obj(
    {
      status: Type.Literal('decoded'),
      function: Type.String({ description: 'function name' }),
      signature: Type.String({ description: 'canonical signature, e.g. transfer(address,uint256)' }),
      selector: Selector,
      decoder: Type.Union([Enum(CALL_DECODERS), VerifiedAbi], {
        description: 'the table that decoded it: a hand-written decoder or verified_abi:<name>',
      }),
      args: Args,
    },
    { description: 'decoded calldata (a multicall also has args.calls: inner decoded calls)' },
  ),
  Obj(
    {
      status: Type.Literal('unknown'),
      reason: Enum(CALL_UNKNOWN_REASONS, 'why it was not decoded'),
      selector: Nullable(Selector, 'the selector when the input has one; null otherwise (see reason)'),
    },
    {
      description:
        'undecoded calldata: empty_calldata (a plain value transfer), no_decoder_for_selector, calldata_does_not_match_abi, contract_creation (init code), not_decoded (no decoded row: cannot occur while the source is ready)',
    },
  ),
]);

/** A log with its decoding. */
export const DecodedLogRow = Obj({ log: LogRecord, decoded: DecodedLog });

/** Normalised L1 gas accounting (src/chain/l1-gas.ts); a null field is absent on that receipt. */
export const L1Gas = Type.Union([
  Obj(
    {
      kind: Type.Literal('op_stack'),
      l1Fee: Nullable(Amount, 'L1 data fee, wei'),
      l1GasUsed: Nullable(Amount, 'L1 gas units charged'),
      l1GasPrice: Nullable(Amount, 'L1 gas price, wei'),
      l1FeeScalar: Nullable(
        Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
        'pre-Ecotone fee scalar, a decimal string as the node reports it',
      ),
      l1BaseFeeScalar: Nullable(Amount, 'Ecotone base fee scalar'),
      l1BlobBaseFee: Nullable(Amount, 'L1 blob base fee, wei (Ecotone+)'),
      l1BlobBaseFeeScalar: Nullable(Amount, 'blob base fee scalar (Ecotone+)'),
      operatorFeeScalar: Nullable(Amount, 'operator fee scalar (Isthmus+)'),
      operatorFeeConstant: Nullable(Amount, 'operator fee constant (Isthmus+)'),
    },
    {
      description:
        'OP Stack (OP Mainnet, Base, …) L1 accounting; a null field is absent on this receipt (its fork predates it)',
    },
  ),
  Obj(
    {
      kind: Type.Literal('arbitrum'),
      gasUsedForL1: Amount,
      l1BlockNumber: Nullable(Amount, 'L1 block number; null when the receipt has none'),
    },
    { description: 'Arbitrum: L2 gas units charged for L1 calldata' },
  ),
]);

const FrameKind = Enum([
  'call',
  'staticcall',
  'delegatecall',
  'callcode',
  'create',
  'create2',
  'selfdestruct',
]);

/** One call frame of a retained tree (depth-first pre-order). */
export const CallFrame = Obj({
  ordinal: Count('0-based pre-order index; the root is 0'),
  parent: Nullable(Type.Integer({ minimum: 0 }), 'ordinal of the parent frame; null for the root (depth 0)'),
  depth: Count('root 0, a child its parent + 1'),
  kind: FrameKind,
  from: Address,
  to: Nullable(Address, 'callee; for create/create2 the created address'),
  toReason: ReasonOf(['creation_failed']),
  value: Type.String({
    pattern: '^(0|[1-9][0-9]*)$',
    description:
      "wei, decimal string; for delegatecall the tracer's quantity (the enclosing call's value), not a claim that value moved: see movesValue",
  }),
  movesValue: Type.Boolean({ description: 'whether this frame moves value from `from` to `to`' }),
  input: Type.String({ pattern: '^0x[0-9a-fA-F]*$', description: 'calldata or init code (hex)' }),
  decoded: DecodedCall,
  output: Nullable(Type.String({ pattern: '^0x[0-9a-fA-F]*$' }), 'return or revert data (hex)'),
  outputReason: ReasonOf(['not_reported_by_tracer']),
  gasUsed: Type.String({
    pattern: '^(0|[1-9][0-9]*)$',
    description: 'gas used by the frame and its children',
  }),
  reverted: Type.Boolean({ description: 'this frame failed: its own state changes were undone' }),
  revertedByAncestor: Type.Boolean({
    description: "an ancestor failed, so this frame's effects were undone",
  }),
  error: Nullable(Type.String(), "the tracer's error; null when the frame did not fail"),
  revertReason: Nullable(
    Type.String(),
    'decoded revert reason; null when there is none or the frame did not revert',
  ),
});

/** One internal value transfer or creation. */
export const InternalTransfer = Obj({
  ordinal: Count('ordinal of the frame that moved the value or created the contract'),
  from: Address,
  to: Nullable(Address, 'recipient or created contract'),
  toReason: ReasonOf(
    ['creation_failed'],
    'creation_failed: the creation failed, value stayed with the creator',
  ),
  value: Type.String({
    pattern: '^(0|[1-9][0-9]*)$',
    description: 'wei, decimal string (0 for a creation without value)',
  }),
  kind: Enum(['call', 'callcode', 'create', 'create2', 'selfdestruct']),
  effective: Type.Boolean({
    description: 'false when the frame or an ancestor reverted: the value did not move',
  }),
  type: Enum(
    ['transfer', 'creation'],
    'transfer: native value moved by a non-root frame; creation: a contract created by a non-root frame',
  ),
});

/** Why a call tree is not available. */
export const CoverageReason = Enum(
  ['traces_disabled', 'node_lacks_debug_trace', 'node_trace_failed', 'not_retained'],
  'traces_disabled: TRACES=off; node_lacks_debug_trace: the node has no debug_trace methods; node_trace_failed: the node could not give this trace (an ingest gap, retried while retryable); not_retained: the block was traced without a row for it',
);
/** How a retained tree was obtained. */
export const TraceSource = Enum(
  ['debug_traceBlockByNumber', 'debug_traceTransaction'],
  'the callTracer method the tree came from',
);

/** Paged trace rows, or `coverage: not_available` with a reason (never an empty list). */
export const TraceNotAvailable = {
  reason: CoverageReason,
  detail: Nullable(Type.String(), "the node's message or the lane state; null when there is none"),
  retryable: Type.Boolean({ description: 'whether the traces lane retries this transaction (an open gap)' }),
};

export { Anchor, PageInfo, UnixSeconds };

const HexBytes = (description: string) => Type.String({ pattern: '^0x([0-9a-f]{2})*$', description });

/** How ingest checked a block against its header's roots (the ROOTS row; workers/decode/roots.ts). */
export const RootsCheck = Type.Union(
  [
    Obj(
      { status: Type.Literal('verified') },
      { description: 'header hash, transaction hashes and both roots rebuilt and matched' },
    ),
    Obj(
      {
        status: Type.Literal('not_checkable'),
        types: Type.Array(Type.String(), {
          description: 'transaction types (0x65) or header fields (header:<name>) the encoder does not know',
        }),
        unchecked: Type.Array(Enum(['header', 'transactions', 'receipts']), {
          description: 'the checks left undone',
        }),
      },
      { description: 'a part of the block could not be checked (not a failure)' },
    ),
    Obj({ status: Type.Literal('unchecked') }, { description: 'indexed with VERIFY_ROOTS=off' }),
  ],
  { description: "how ingest held the block to its header's roots" },
);

const proofProps = {
  blockHash: Hash32('hash of the block the proof is for: compare it with a block hash you trust'),
  blockNumber: Type.Integer({ minimum: 0, description: 'block number' }),
  headerRlp: HexBytes('RLP of the block header: keccak256(headerRlp) must equal the trusted block hash'),
  trie: Enum(
    ['transactions', 'receipts'],
    'the header root the nodes lead from: transactionsRoot (RLP field 4) or receiptsRoot (field 5)',
  ),
  key: HexBytes('trie key: rlp(transactionIndex)'),
  nodes: Type.Array(HexBytes('a trie node (its RLP)'), {
    description:
      "the trie nodes from the root down to the record's leaf: the first hashes (keccak256) to the root, each next one is referenced by its parent (by hash, or inline when under 32 bytes); the leaf's value is the record's canonical encoding",
  }),
  rootsCheck: Nullable(
    RootsCheck,
    'how ingest checked this block; null for a block stored before the check existed',
  ),
};

const VERIFY =
  'Verify: (1) keccak256(headerRlp) = a block hash you trust (from your own node); (2) walk `nodes` from the header root at `trie` along `key`; (3) the leaf value equals the canonical encoding of the served record (EIP-2718 envelope; receipt: type byte ‖ rlp([status, cumulativeGasUsed, logsBloom, logs])). The typed client does it: verifyTransaction, verifyReceipt, verifyLog. Receipt fields outside the consensus encoding (gasUsed, effectiveGasPrice, contractAddress, L1 fees) are not covered.';

/** The Merkle proof of a transaction or a receipt (`?proof=true`). */
export const RecordProof = Obj(proofProps, {
  description: `Merkle proof of the record against its block header. ${VERIFY}`,
});

/** The Merkle proof of a transaction's logs: their receipt's proof, and where its logs start in the block. */
export const LogsProof = Obj(
  {
    ...proofProps,
    firstLogIndex: Type.Integer({
      minimum: 0,
      description:
        "block-wide logIndex of the receipt's first log: a log's position in the proved receipt is logIndex − firstLogIndex (the position is proved, the block-wide index is not)",
    }),
  },
  { description: `Merkle proof of the logs' receipt against its block header. ${VERIFY}` },
);

/** Why `proof` is null. */
export const ProofReason = ReasonOf(
  ['type_not_encodable', 'header_not_encodable'],
  'why proof is null: type_not_encodable — the block holds a transaction type the encoder does not know (its trie cannot be rebuilt); header_not_encodable — the header has a field the encoder does not know; null when proof is set. Both fields are present only with ?proof=true',
);

/** The `proof` query parameter of the record routes. */
export const proofQuery = {
  proof: Type.Optional(
    Type.Boolean({
      description:
        "true: add `proof` — the block header's RLP, the trie key and the trie nodes proving the record against the header's root — and `proofReason`",
    }),
  ),
};
