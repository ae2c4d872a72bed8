/**
 * Tables of the raw chain (ids 0x01–0x10): records as the node sent them, the canonical
 * number ↔ hash tables, timestamps, per-block undo, gaps and metadata probes.
 *
 * Invariants (checked at start-up, see `invariants` below):
 *  - CANON holds the checkpoint block with the checkpoint's hash, and HEADER holds its header.
 *  - UNDO holds a record for the checkpoint block (every commit writes one), so the head can be
 *    rolled back if the node reorganised while the indexer was down.
 */
import { K, V } from '../codec.js';
import type { MetadataProbes } from '../delta.js';
import type { RootsCheck } from '../rows/chain.js';
import { type Invariant, tableDeclarer } from '../table.js';

const table = tableDeclarer('chain');

/** Where a transaction is: block number, index in block, and its log index range. */
export interface TxLocation {
  number: number;
  txIndex: number;
  firstLogIndex: number;
  logCount: number;
}

/** TxLocation as 20 bytes: u64 number, u32 txIndex, u32 firstLogIndex, u32 logCount. */
const txLocation = V.binary<TxLocation>(
  'TxLocation',
  (l) => {
    const b = Buffer.allocUnsafe(20);
    K.u64.write(b, 0, l.number);
    b.writeUInt32BE(l.txIndex, 8);
    b.writeUInt32BE(l.firstLogIndex, 12);
    b.writeUInt32BE(l.logCount, 16);
    return b;
  },
  (b) => ({
    number: K.u64.read(b, 0, 8)[0],
    txIndex: b.readUInt32BE(8),
    firstLogIndex: b.readUInt32BE(12),
    logCount: b.readUInt32BE(16),
  }),
);

/**
 * An ingest gap: a range a lane could not fill (a trace the node cannot give, a reorg deeper than
 * the unfinalised window), as written by src/ingest/gaps.ts and served by `/gaps`. Block numbers
 * inclusive; times in unix seconds.
 */
export type Gap = {
  lane: string;
  fromBlock: number;
  toBlock: number;
  status: 'open' | 'resolved';
  reason: string;
  openedAt: number;
  resolvedAt: number | null;
};

/** A stored gap record: a {@link Gap} (records written before `openedAt` existed lack the times). */
export type GapRecord = Omit<Gap, 'openedAt' | 'resolvedAt'> &
  Partial<Pick<Gap, 'openedAt' | 'resolvedAt'>> &
  Record<string, unknown>;

// biome-ignore format: the registry keeps one table a line
export const META = table(0x01, 'meta', [K.textTail], ['name'], V.json<unknown>(), 'named process records (JSON): chain identity, checkpoints per lane and projection, store generation, cursor secret', { kind: 'process' });

/** The checkpoint block's canonical row holds the checkpoint's hash. */
const checkpointIsCanonical: Invariant = {
  name: 'checkpoint_is_canonical',
  doc: "the checkpoint block's canonical row holds the checkpoint's hash",
  check(r): string | null {
    const head = r.head();
    if (!head) return null;
    const canon: string | undefined = r.get(CANON, head.number);
    return canon === head.hash
      ? null
      : `checkpoint ${head.number} ${head.hash} but canonical row is ${canon ?? 'missing'}`;
  },
};

/** The checkpoint block has a stored header. */
const checkpointHasHeader: Invariant = {
  name: 'checkpoint_has_header',
  doc: 'the checkpoint block has a stored header',
  check(r): string | null {
    const head = r.head();
    return !head || r.get(HEADER, head.number) !== undefined
      ? null
      : `no header for checkpoint block ${head.number}`;
  },
};

// biome-ignore format: the registry keeps one table a line
export const CANON = table(0x02, 'canonical', [K.u64], ['number'], V.hex, 'canonical block hash by number, for every indexed block', { invariants: [checkpointIsCanonical] });

// biome-ignore format: the registry keeps one table a line
export const HASH_TO_NUMBER = table(0x03, 'hash_to_number', [K.hash], ['hash'], V.u64, 'block number by canonical block hash');

// biome-ignore format: the registry keeps one table a line
export const HEADER = table(0x04, 'header', [K.u64], ['number'], V.text, 'block header JSON as the node sent it, `transactions` reduced to hashes', { invariants: [checkpointHasHeader] });

// biome-ignore format: the registry keeps one table a line
export const TX = table(0x05, 'transaction', [K.u64, K.u32], ['number', 'txIndex'], V.text, 'transaction JSON as the node sent it');

// biome-ignore format: the registry keeps one table a line
export const TX_BY_HASH = table(0x06, 'tx_by_hash', [K.hash], ['txHash'], txLocation, 'location of a canonical transaction by hash');

// biome-ignore format: the registry keeps one table a line
export const RECEIPT = table(0x07, 'receipt', [K.u64, K.u32], ['number', 'txIndex'], V.text, 'receipt JSON as the node sent it (logs included)');

/**
 * A log row: the index of the transaction whose receipt holds the log (the log itself is served
 * from that receipt, byte-exact: stored once, not twice), or — in stores written before that
 * layout — the log's own JSON.
 */
export type LogRow = { txIndex: number; json?: undefined } | { txIndex?: undefined; json: string };

const logRow = V.binary<LogRow>(
  'LogRow',
  (r) => {
    if (r.txIndex === undefined) return Buffer.from(r.json);
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(r.txIndex, 0);
    return b;
  },
  // A JSON log is never 4 bytes long ("{}" is the shortest object and a log has fields).
  (b) => (b.length === 4 ? { txIndex: b.readUInt32BE(0) } : { json: b.toString('utf8') }),
);

// biome-ignore format: the registry keeps one table a line
export const LOG = table(0x08, 'log', [K.u64, K.u32], ['number', 'logIndex'], logRow, 'per log: the index of the transaction whose receipt holds it (4 bytes; served from the receipt byte-exact), or its JSON in older stores');

/** Undo records are binary (src/storage/undo.ts); only the store reads and writes them. */
export const UNDO = table(
  0x09,
  'undo',
  [K.u64],
  ['number'],
  V.binary<Buffer>(
    'UndoRecord',
    (b) => b,
    (b) => b,
  ),
  'undo record of every write block `number` made (unfinalised window only)',
  {
    kind: 'process',
    invariants: [
      {
        name: 'checkpoint_has_undo',
        doc: 'the checkpoint block has an undo record, unless it was committed as history (final: at or below META ingest:historyEnd, no undo kept)',
        check(r): string | null {
          const head = r.head();
          if (!head || r.get(UNDO, head.number) !== undefined) return null;
          const historyEnd = r.get(META, 'ingest:historyEnd') as number | undefined;
          return historyEnd !== undefined && head.number <= historyEnd
            ? null
            : `no undo record for the checkpoint block ${head.number}`;
        },
      },
    ],
  },
);

// biome-ignore format: the registry keeps one table a line
export const TIME = table(0x0a, 'time', [K.u64, K.u64], ['timestamp', 'number'], V.empty, 'block numbers by timestamp (unix seconds), for /blocks/at');

// biome-ignore format: the registry keeps one table a line
export const GAP = table(0x0b, 'gap', [K.textz, K.u64], ['lane', 'fromBlock'], V.json<GapRecord>(), 'ingest gaps per lane (open and resolved)', { kind: 'process' });

// biome-ignore format: the registry keeps one table a line
export const PROBE = table(0x0c, 'probe', [K.u64], ['number'], V.json<MetadataProbes>(), 'token metadata probed by eth_call at that block (kept so projections rebuild without the node)');

// biome-ignore format: the registry keeps one table a line
export const BLOCK_TS = table(0x0d, 'block_timestamp', [K.u64], ['number'], V.u64, 'block timestamp (unix seconds) by number, so window reads never parse a header');

/** Change-log entries (src/storage/changelog.ts), kept until the publisher has shipped them. */
export const CHANGELOG = table(
  0x0e,
  'changelog',
  [K.u64],
  ['sequence'],
  V.binary<Buffer>(
    'ChangeEntry',
    (b) => b,
    (b) => b,
  ),
  'change-log entries by sequence (writer role only; pruned once published)',
  { kind: 'process' },
);

/**
 * Node observations a projection made at first sight of a subject (balances and supply of a token
 * created before START_BLOCK, the state of a pool first seen after it), by block and projection:
 * kept with the chain so a projection rebuild replays them without calling the node.
 */
// biome-ignore format: the registry keeps one table a line
export const SEED = table(0x0f, 'seed', [K.u64, K.textz], ['number', 'projection'], V.json<unknown>(), 'first-sight node observations (eth_call at the block before) by block and projection, JSON');

/**
 * How ingest held each block to its header's roots (src/workers/decode/roots.ts): `verified`,
 * `not_checkable` with the transaction types (or header fields) the encoder does not know, or
 * `unchecked` (VERIFY_ROOTS=off). Written with the block's records; proofs and /health read it.
 */
// biome-ignore format: the registry keeps one table a line
export const ROOTS = table(0x10, 'roots_check', [K.u64], ['number'], V.json<RootsCheck>(), "how ingest checked the block against its header's roots: verified, not_checkable (types named) or unchecked (JSON)");

export const CHAIN_TABLES = [
  META,
  CANON,
  HASH_TO_NUMBER,
  HEADER,
  TX,
  TX_BY_HASH,
  RECEIPT,
  LOG,
  UNDO,
  TIME,
  GAP,
  PROBE,
  BLOCK_TS,
  CHANGELOG,
  SEED,
  ROOTS,
];
