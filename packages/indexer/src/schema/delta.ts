/**
 * The per-block delta a decode worker hands to the ingest writer: everything the writer needs to
 * commit block N without touching the node again. Plain strings and numbers only, so it crosses
 * threads by structured clone and can later be carried on a change log unchanged.
 */

/** One transaction of a block: its canonical JSON (as the node sent it) and indexed fields. */
export interface TxDelta {
  hash: `0x${string}`;
  /** Transaction JSON, key order as the node sent it. */
  json: string;
  /** Receipt JSON, key order as the node sent it (logs included). */
  receipt: string;
  from: `0x${string}`;
  /** Native value sent, wei, as the node's hex quantity (`0x0` when none). */
  value: `0x${string}`;
  /** null for a contract creation. */
  to: `0x${string}` | null;
  firstLogIndex: number;
  logCount: number;
  /** Receipt status: 1 success, 0 reverted (pre-Byzantium roots count as success). */
  status: 0 | 1;
  /** Address created by a top-level creation, from the receipt's `contractAddress`. */
  contractAddress: `0x${string}` | null;
  /** Decoded calldata (src/decode DecodedCall) as JSON; unknown inputs carry a typed reason. */
  decoded: string;
}

/** One log of a block, with its canonical JSON. */
export interface LogDelta {
  logIndex: number;
  txIndex: number;
  address: `0x${string}`;
  topics: `0x${string}`[];
  json: string;
  /** Decoded log (src/decode DecodedLog) as JSON; unknown logs carry a typed reason. */
  decoded: string;
}

/**
 * A decoded log (src/decode): event name, family, and arguments with integers as decimal strings
 * (base units) and addresses lowercase. Only decoded logs are carried; unknown ones stay raw.
 */
export interface EventDelta {
  logIndex: number;
  txIndex: number;
  address: `0x${string}`;
  standard: string;
  event: string;
  args: Record<string, unknown>;
}

/** Token metadata probed at this block (eth_call), keyed by lowercase address. */
export type MetadataProbes = Record<string, import('./rows/tokens.js').TokenMetadata>;

/**
 * `probes` with its addresses in ascending order. The probe row (chain.probe) is stored as JSON,
 * so its bytes follow the object's key order: built in the order the eth_calls answered, two
 * indexes of the same chain could store the same probes in different orders (a soak digest found
 * it under proxy delays). Every writer of `d.probes` goes through this.
 */
export function canonicalProbes(probes: MetadataProbes): MetadataProbes {
  const out: MetadataProbes = {};
  for (const a of Object.keys(probes).sort()) out[a] = probes[a];
  return out;
}

/** Everything about block `number` the writer commits atomically. */
export interface BlockDelta {
  number: number;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  /** Unix seconds. */
  timestamp: number;
  /** Header JSON as the node sent it, with `transactions` reduced to hashes. */
  header: string;
  txs: TxDelta[];
  logs: LogDelta[];
  /** Decoded logs, block order. */
  events: EventDelta[];
  /** Metadata of contracts first seen in this block (top-level creations, launch tokens), probed at this block. */
  probes: MetadataProbes;
  /** How the decode worker held the block to its header's roots (absent on a rebuild from stored blocks). */
  roots?: import('./rows/chain.js').RootsCheck;
  /**
   * First-sight node observations gathered by projections' `prepare` (live ingest only), by
   * projection name; each projection stores its own in the SEED table so rebuilds replay them.
   */
  seeds?: Record<string, unknown>;
  /**
   * Stateless rows the decode worker encoded (storage/writer.ts op layout), transferred with the
   * delta: `chain` (the raw records, hash and time indices, probes as the worker found them),
   * `decodedViews`, and the stateless rows of the tokens and wallets projections
   * (schema/stateless.ts). Absent on a rebuild from stored blocks (rows are then written one by one).
   */
  parts?: BlockParts<PartBytes>;
  /**
   * The state rows the block's projections read first (schema/stateless.ts `stateKeys`), listed by
   * the decode worker as an encoded key list (storage `encodeKeyList`): ingest reads every miss of
   * a decode task in one multi-get before applying its blocks.
   */
  stateKeys?: ArrayBuffer;
  /** Probes the worker's `chain` part holds (a `prepare` that adds one rewrites the probe row). */
  partProbes?: number;
  /**
   * Results of earlier projections in the same batch for later ones (never stored, never sent
   * across threads): the markets projection's swaps of this block.
   */
  derived?: {
    swaps?: Array<{
      poolKey: string;
      row: import('./rows/markets.js').SwapRow;
      pool: import('./rows/markets.js').PoolRow;
    }>;
  };
}

/** A block's encoded rows by owner (see {@link BlockDelta.parts}). */
export interface BlockParts<P = ArrayBuffer> {
  chain: P;
  decodedViews: P;
  tokens: P;
  wallets: P;
}

/**
 * Encoded rows that reach the ingest thread after their block's delta: a live block's delta is
 * handed over as soon as it is shaped, and the decode worker encodes its rows while the stages
 * build the block (DecodeTask.early). `BlockBatch.addPart` takes one as a promise and the live
 * driver awaits it before the block ends. Made on the ingest thread from the task's second answer
 * (it never crosses threads). Rejects when the decode task failed after the delta.
 */
export interface LatePart {
  readonly late: Promise<ArrayBuffer>;
}

/** An encoded part: transferred with the delta, or following it ({@link LatePart}). */
export type PartBytes = ArrayBuffer | LatePart;

/**
 * The second answer of an early decode task (DecodeTask.early): each block's encoded rows, in the
 * order of the blocks the first answer carried, and when the worker finished them (epoch ms).
 */
export interface LateRows {
  parts: BlockParts[];
  /** The rows were encoded (epoch ms, the worker's clock; comparable across threads). */
  encoded: number;
  heap?: WorkerHeap;
}

/** What a decode task answers: the blocks it could fetch, in order, and why it stopped early. */
export interface FetchResult {
  blocks: BlockDelta[];
  /** First block the node could not give (null result: the node does not have it yet). */
  missingFrom: number | null;
  /**
   * When the decode worker reached each step of the task, epoch milliseconds with sub-millisecond
   * precision (`performance.timeOrigin + performance.now()` in the worker): the live block
   * timeline (ingest/timeline.ts) of the `indexer_ingest_live_stage_seconds` metric.
   */
  marks?: FetchMarks;
  /** The decode thread's heap when it answered (its threadId and v8 heap statistics, bytes). */
  heap?: WorkerHeap;
}

/** A worker thread's heap as it reports it with a task's answer, bytes (v8.getHeapStatistics). */
export interface WorkerHeap {
  threadId: number;
  used: number;
  total: number;
  limit: number;
  external: number;
  /** The thread's CPU time since it started, microseconds (null where it cannot be read). */
  cpuMicros?: number | null;
  /** Time the thread has been runnable but waiting for a CPU since it started, microseconds (Linux schedstat; null where it cannot be read). */
  runDelayMicros?: number | null;
}

/** Heap of one thread as the metrics show it, bytes (v8.getHeapStatistics of that thread). */
export interface ThreadHeap {
  /** `serving`, `engine-<threadId>`, `writer-<threadId>`, `decode-<threadId>`, `replay-<threadId>`. */
  thread: string;
  used: number;
  total: number;
  limit: number;
  /** Memory held by ArrayBuffers and other off-heap objects this thread allocated (external). */
  external: number;
  /** The thread's CPU time since it started, microseconds (null or absent where it cannot be read). */
  cpuMicros?: number | null;
  /** Time the thread has been runnable but waiting for a CPU, microseconds (Linux schedstat; null or absent where it cannot be read). */
  runDelayMicros?: number | null;
}

/** Steps of one decode task, epoch milliseconds (see FetchResult.marks). */
export interface FetchMarks {
  /** The worker picked the task up. */
  start: number;
  /** Blocks and receipts fetched from the node (eth_getBlockByNumber, eth_getBlockReceipts). */
  fetched: number;
  /** Held to the header's roots (VERIFY_ROOTS; equal to `fetched` when off). */
  verified: number;
  /** Shaped into deltas, first-sight probes read from the node. */
  shaped: number;
  /**
   * The task's answer is ready to hand over: its stateless rows encoded into buffers, or (an early
   * task, DecodeTask.early) only the state keys, the rows following ({@link LateRows.encoded}).
   */
  encoded: number;
}
