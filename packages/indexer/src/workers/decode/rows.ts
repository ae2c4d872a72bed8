/**
 * A block's stateless rows, encoded in the decode worker as batch buffers (storage/writer.ts op
 * layout) and handed to the ingest thread by transfer: it adds them to the block's (or history
 * segment's) batch without touching a row, and the writer thread commits them.
 *
 *  - chain records: header, transactions, receipts, logs as the node sent them (re-serialised
 *    JSON, key order kept), the canonical row, block and transaction hash indices, the timestamp
 *    indices and the metadata probed at the block;
 *  - decoded views: every log and transaction input decoded (or its typed reason).
 *
 * Every row but the two hash indices is keyed by the block's number, so it is an *insert* (absent
 * before the block); the hash indices are puts (a transaction re-mined after a reorg had a row).
 */
import type { BlockDelta } from '../../schema/delta.js';
import {
  BLOCK_TS,
  CANON,
  HASH_TO_NUMBER,
  HEADER,
  LOG,
  PROBE,
  RECEIPT,
  TIME,
  TX,
  TX_BY_HASH,
} from '../../schema/tables/chain.js';
import { DECODED_LOG, DECODED_TX } from '../../schema/tables/traces.js';
import { RowWriter } from '../../storage/writer.js';

/** The JSON text of a block's records (what the node sent, re-serialised with its key order). */
export interface BlockTexts {
  header: string;
  txs: string[];
  receipts: string[];
  logs: string[];
  decodedLogs: string[];
  decodedTxs: string[];
}

const EMPTY = Buffer.alloc(0);

/** The chain-record rows of `d` (after its probes are in). */
export function chainRows(d: BlockDelta, t: BlockTexts): ArrayBuffer {
  let size = 1024 + t.header.length;
  for (const s of t.txs) size += 64 + s.length;
  for (const s of t.receipts) size += 64 + s.length;
  for (const s of t.logs) size += 32 + s.length;
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
  for (let i = 0; i < d.logs.length; i++) w.text(LOG.key(n, d.logs[i].logIndex), t.logs[i]);
  if (Object.keys(d.probes).length) w.text(PROBE.key(n), JSON.stringify(d.probes));
  return w.done();
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
