/**
 * The raw-chain projection: blocks, transactions, receipts and logs as the node sent them, the
 * canonical number↔hash tables and the timestamp index. Writes go into the block's batch, so they
 * commit (and roll back) together with every other projection of the block.
 */
import type { BlockDelta } from '../schema/delta.js';
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
} from '../schema/tables/chain.js';
import type { BlockBatch } from '../storage/index.js';

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
    if (Object.keys(d.probes).length !== d.partProbes) batch.put(PROBE, [d.number], d.probes);
    return;
  }
  // The hash rows are read for their undo priors: one multi-get per table, not one per row.
  if (batch.undo) {
    // History keeps no undo: no prior to read.
    batch.prefetch(HASH_TO_NUMBER, [[d.hash]]);
    batch.prefetch(
      TX_BY_HASH,
      d.txs.map((tx) => [tx.hash]),
    );
  }
  batch.put(HASH_TO_NUMBER, [d.hash], d.number);
  batch.insert(HEADER, [d.number], d.header);
  batch.insert(TIME, [d.timestamp, d.number], null);
  batch.insert(BLOCK_TS, [d.number], d.timestamp);
  // The canonical number → hash row of every block (a history segment holds many blocks).
  batch.insert(CANON, [d.number], d.hash);
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    batch.insert(TX, [d.number, i], tx.json);
    batch.insert(RECEIPT, [d.number, i], tx.receipt);
    batch.put(TX_BY_HASH, [tx.hash], {
      number: d.number,
      txIndex: i,
      firstLogIndex: tx.firstLogIndex,
      logCount: tx.logCount,
    });
  }
  for (const log of d.logs) batch.insert(LOG, [d.number, log.logIndex], { txIndex: log.txIndex });
  if (Object.keys(d.probes).length) batch.insert(PROBE, [d.number], d.probes);
  if (d.roots) batch.insert(ROOTS, [d.number], d.roots);
}
