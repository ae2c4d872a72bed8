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
import { defineTable } from '../table.js';

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

export const META = defineTable({
  id: 0x01,
  owner: 'chain',
  name: 'meta',
  doc: 'named process records (JSON): chain identity, checkpoints per lane and projection, store generation, cursor secret',
  key: [K.textTail],
  keyNames: ['name'],
  value: V.json<unknown>(),
  kind: 'process',
});

export const CANON = defineTable({
  id: 0x02,
  owner: 'chain',
  name: 'canonical',
  doc: 'canonical block hash by number, for every indexed block',
  key: [K.u64],
  keyNames: ['number'],
  value: V.hex,
  invariants: [
    {
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
    },
  ],
});

export const HASH_TO_NUMBER = defineTable({
  id: 0x03,
  owner: 'chain',
  name: 'hash_to_number',
  doc: 'block number by canonical block hash',
  key: [K.hash],
  keyNames: ['hash'],
  value: V.u64,
});

export const HEADER = defineTable({
  id: 0x04,
  owner: 'chain',
  name: 'header',
  doc: 'block header JSON as the node sent it, `transactions` reduced to hashes',
  key: [K.u64],
  keyNames: ['number'],
  value: V.text,
  invariants: [
    {
      name: 'checkpoint_has_header',
      doc: 'the checkpoint block has a stored header',
      check(r): string | null {
        const head = r.head();
        return !head || r.get(HEADER, head.number) !== undefined
          ? null
          : `no header for checkpoint block ${head.number}`;
      },
    },
  ],
});

export const TX = defineTable({
  id: 0x05,
  owner: 'chain',
  name: 'transaction',
  doc: 'transaction JSON as the node sent it',
  key: [K.u64, K.u32],
  keyNames: ['number', 'txIndex'],
  value: V.text,
});

export const TX_BY_HASH = defineTable({
  id: 0x06,
  owner: 'chain',
  name: 'tx_by_hash',
  doc: 'location of a canonical transaction by hash',
  key: [K.hash],
  keyNames: ['txHash'],
  value: txLocation,
});

export const RECEIPT = defineTable({
  id: 0x07,
  owner: 'chain',
  name: 'receipt',
  doc: 'receipt JSON as the node sent it (logs included)',
  key: [K.u64, K.u32],
  keyNames: ['number', 'txIndex'],
  value: V.text,
});

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

export const LOG = defineTable({
  id: 0x08,
  owner: 'chain',
  name: 'log',
  doc: 'per log: the index of the transaction whose receipt holds it (4 bytes; served from the receipt byte-exact), or its JSON in older stores',
  key: [K.u64, K.u32],
  keyNames: ['number', 'logIndex'],
  value: logRow,
});

/** Undo records are binary (src/storage/undo.ts); only the store reads and writes them. */
export const UNDO = defineTable({
  id: 0x09,
  owner: 'chain',
  name: 'undo',
  doc: 'undo record of every write block `number` made (unfinalised window only)',
  key: [K.u64],
  keyNames: ['number'],
  value: V.binary<Buffer>(
    'UndoRecord',
    (b) => b,
    (b) => b,
  ),
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
});

export const TIME = defineTable({
  id: 0x0a,
  owner: 'chain',
  name: 'time',
  doc: 'block numbers by timestamp (unix seconds), for /blocks/at',
  key: [K.u64, K.u64],
  keyNames: ['timestamp', 'number'],
  value: V.empty,
});

export const GAP = defineTable({
  id: 0x0b,
  owner: 'chain',
  name: 'gap',
  doc: 'ingest gaps per lane (open and resolved)',
  key: [K.textz, K.u64],
  keyNames: ['lane', 'fromBlock'],
  value: V.json<GapRecord>(),
  kind: 'process',
});

export const PROBE = defineTable({
  id: 0x0c,
  owner: 'chain',
  name: 'probe',
  doc: 'token metadata probed by eth_call at that block (kept so projections rebuild without the node)',
  key: [K.u64],
  keyNames: ['number'],
  value: V.json<MetadataProbes>(),
});

export const BLOCK_TS = defineTable({
  id: 0x0d,
  owner: 'chain',
  name: 'block_timestamp',
  doc: 'block timestamp (unix seconds) by number, so window reads never parse a header',
  key: [K.u64],
  keyNames: ['number'],
  value: V.u64,
});

/** Change-log entries (src/storage/changelog.ts), kept until the publisher has shipped them. */
export const CHANGELOG = defineTable({
  id: 0x0e,
  owner: 'chain',
  name: 'changelog',
  doc: 'change-log entries by sequence (writer role only; pruned once published)',
  key: [K.u64],
  keyNames: ['sequence'],
  value: V.binary<Buffer>(
    'ChangeEntry',
    (b) => b,
    (b) => b,
  ),
  kind: 'process',
});

/**
 * Node observations a projection made at first sight of a subject (balances and supply of a token
 * created before START_BLOCK, the state of a pool first seen after it), by block and projection:
 * kept with the chain so a projection rebuild replays them without calling the node.
 */
export const SEED = defineTable({
  id: 0x0f,
  owner: 'chain',
  name: 'seed',
  doc: 'first-sight node observations (eth_call at the block before) by block and projection, JSON',
  key: [K.u64, K.textz],
  keyNames: ['number', 'projection'],
  value: V.json<unknown>(),
});

/**
 * How ingest held each block to its header's roots (src/workers/decode/roots.ts): `verified`,
 * `not_checkable` with the transaction types (or header fields) the encoder does not know, or
 * `unchecked` (VERIFY_ROOTS=off). Written with the block's records; proofs and /health read it.
 */
export const ROOTS = defineTable({
  id: 0x10,
  owner: 'chain',
  name: 'roots_check',
  doc: "how ingest checked the block against its header's roots: verified, not_checkable (types named) or unchecked (JSON)",
  key: [K.u64],
  keyNames: ['number'],
  value: V.json<RootsCheck>(),
});

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
