/**
 * The raw-chain projection: blocks, transactions, receipts and logs as the node sent them, the
 * canonical number↔hash tables and the timestamp index. Writes go into the block's batch, so they
 * commit (and roll back) together with every other projection of the block.
 */
import type { BlockBatch } from '../storage/index.js';
import { KeyBuilder } from '../storage/keys.js';
import { BLOCK_TS, CANON } from '../storage/tables/chain.js';
import {
  hashKey,
  headerKey,
  logKey,
  probeKey,
  receiptKey,
  timeKey,
  txHashKey,
  txKey,
} from '../storage/tables.js';
import type { BlockDelta } from './delta.js';

const EMPTY = Buffer.alloc(0);

/** Location of a transaction: block number, index in block, and its log index range. */
export interface TxLocation {
  number: number;
  txIndex: number;
  firstLogIndex: number;
  logCount: number;
}

export function encodeTxLocation(l: TxLocation): Buffer {
  return new KeyBuilder(20).u64(l.number).u32(l.txIndex).u32(l.firstLogIndex).u32(l.logCount).done();
}

export function decodeTxLocation(b: Buffer): TxLocation {
  return {
    number: b.readUInt32BE(0) * 0x1_0000_0000 + b.readUInt32BE(4),
    txIndex: b.readUInt32BE(8),
    firstLogIndex: b.readUInt32BE(12),
    logCount: b.readUInt32BE(16),
  };
}

/**
 * Writes the raw chain rows of `d` into `batch`: the decode worker's encoded rows when it made
 * them (no row is touched here), else row by row (a rebuild from stored blocks).
 */
export function applyChainRecords(batch: BlockBatch, d: BlockDelta): void {
  if (d.parts) {
    batch.addPart(d.parts.chain);
    // The canonical row is read back while the block may be in flight (reorg checks): in the map.
    batch.insert(CANON, [d.number], d.hash);
    // A projection's `prepare` probed more tokens than the worker: the probe row is rewritten,
    // with its undo entry (a rollback of the block removes it).
    if (Object.keys(d.probes).length !== d.partProbes)
      batch.putRaw(probeKey(d.number), Buffer.from(JSON.stringify(d.probes)));
    return;
  }
  // The hash rows are read for their undo priors: one multi-get for the block, not one per row.
  const hashKeys = [hashKey(d.hash)];
  for (const tx of d.txs) hashKeys.push(txHashKey(tx.hash));
  if (batch.undo) batch.prefetchRaw(hashKeys); // history keeps no undo: no prior to read
  batch.putRaw(hashKeys[0], new KeyBuilder(8).u64(d.number).done());
  batch.insertRaw(headerKey(d.number), Buffer.from(d.header));
  batch.insertRaw(timeKey(d.timestamp, d.number), EMPTY);
  batch.insert(BLOCK_TS, [d.number], d.timestamp);
  // The canonical number → hash row of every block (a history segment holds many blocks).
  batch.insert(CANON, [d.number], d.hash);
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    batch.insertRaw(txKey(d.number, i), Buffer.from(tx.json));
    batch.insertRaw(receiptKey(d.number, i), Buffer.from(tx.receipt));
    batch.putRaw(
      hashKeys[i + 1],
      encodeTxLocation({
        number: d.number,
        txIndex: i,
        firstLogIndex: tx.firstLogIndex,
        logCount: tx.logCount,
      }),
    );
  }
  for (const log of d.logs) batch.insertRaw(logKey(d.number, log.logIndex), Buffer.from(log.json));
  if (Object.keys(d.probes).length)
    batch.insertRaw(probeKey(d.number), Buffer.from(JSON.stringify(d.probes)));
}
