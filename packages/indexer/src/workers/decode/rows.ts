/**
 * A block's stateless rows, encoded in the decode worker as batch buffers (storage/writer.ts op
 * layout) and handed to the ingest thread by transfer: it adds them to the block's (or history
 * segment's) batch without touching a row, and the writer thread commits them.
 *
 *  - chain records: header, transactions and receipts as the node sent them (the bytes of its
 *    answer, sliced out by rpc/json-spans.ts; the header with its transactions as hashes), per log
 *    the transaction whose receipt holds it, the canonical row,
 *    block and transaction hash indices, the timestamp indices, the metadata probed at the block
 *    and its roots check (VERIFY_ROOTS);
 *  - decoded views: every log and transaction input decoded (or its typed reason).
 *
 * Every row but the two hash indices is keyed by the block's number, so it is an *insert* (absent
 * before the block); the hash indices are puts (a transaction re-mined after a reorg had a row).
 */
import type { BlockDelta } from '../../schema/delta.js';
import type { KeySink, RowSink } from '../../schema/stateless.js';
import {
  BLOCK_TS,
  CANON,
  HASH_TO_NUMBER,
  HEADER,
  LOG,
  PROBE,
  RECEIPT,
  ROOTS,
  TIME,
  TX,
  TX_BY_HASH,
} from '../../schema/tables/chain.js';
import { DECODED_LOG, DECODED_TX } from '../../schema/tables/traces.js';
import { RowWriter } from '../../storage/writer.js';

/** The JSON text of a block's records (the node's own bytes: fetch-blocks.ts recordTexts). */
export interface BlockTexts {
  header: string;
  txs: string[];
  receipts: string[];
  decodedLogs: string[];
  decodedTxs: string[];
}

const EMPTY = Buffer.alloc(0);

/** The chain-record rows of `d` (after its probes are in). */
export function chainRows(d: BlockDelta, t: BlockTexts): ArrayBuffer {
  let size = 1024 + t.header.length;
  for (const s of t.txs) size += 64 + s.length;
  for (const s of t.receipts) size += 64 + s.length;
  size += d.logs.length * 24;
  const w = new RowWriter(Math.ceil(size * 1.1));
  const n = d.number;
  w.bytes(HASH_TO_NUMBER.key(d.hash), HASH_TO_NUMBER.value.encode(n), false);
  w.text(HEADER.key(n), t.header);
  w.bytes(TIME.key(d.timestamp, n), EMPTY);
  w.bytes(BLOCK_TS.key(n), BLOCK_TS.value.encode(d.timestamp));
  w.bytes(CANON.key(n), CANON.value.encode(d.hash));
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    w.text(TX.key(n, i), t.txs[i]);
    w.text(RECEIPT.key(n, i), t.receipts[i]);
    w.bytes(
      TX_BY_HASH.key(tx.hash),
      TX_BY_HASH.value.encode({
        number: n,
        txIndex: i,
        firstLogIndex: tx.firstLogIndex,
        logCount: tx.logCount,
      }),
      false,
    );
  }
  // A log row names its transaction: the log's JSON is served from that receipt (stored once).
  for (const l of d.logs) w.bytes(LOG.key(n, l.logIndex), LOG.value.encode({ txIndex: l.txIndex }));
  if (Object.keys(d.probes).length) w.text(PROBE.key(n), JSON.stringify(d.probes));
  if (d.roots) w.text(ROOTS.key(n), JSON.stringify(d.roots));
  return w.done();
}

/** The keys of {@link chainRows} that are puts (the hash indices): a live block's undo reads their priors. */
export function overwrittenKeys(d: BlockDelta, add: KeySink): void {
  add(HASH_TO_NUMBER, [d.hash]);
  for (const tx of d.txs) add(TX_BY_HASH, [tx.hash]);
}

/** The decoded-views rows of `d`. */
export function decodedViewRows(d: BlockDelta, t: BlockTexts): ArrayBuffer {
  let size = 256;
  for (const s of t.decodedLogs) size += 32 + s.length;
  for (const s of t.decodedTxs) size += 32 + s.length;
  const w = new RowWriter(Math.ceil(size * 1.1));
  for (let i = 0; i < d.logs.length; i++)
    w.text(DECODED_LOG.key(d.number, d.logs[i].logIndex), t.decodedLogs[i]);
  for (let i = 0; i < d.txs.length; i++) w.text(DECODED_TX.key(d.number, i), t.decodedTxs[i]);
  return w.done();
}

/** A projection's stateless rows (schema/stateless.ts) of `d`, encoded. */
export function statelessRows(d: BlockDelta, rows: (d: BlockDelta, put: RowSink) => void): ArrayBuffer {
  const w = new RowWriter(16 * 1024 + d.events.length * 400 + d.txs.length * 120);
  rows(d, (t, key, value) => w.bytes(t.key(...key), t.value.encode(value)));
  return w.done();
}
