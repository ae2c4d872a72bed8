/**
 * The blocks lane's own rows around a block's batch: what commits a block (its canonical hash,
 * undo record, checkpoint) and what rolls the head block back (its undo, the parent checkpoint).
 */
import { CANON, META, UNDO } from '../schema/tables/chain.js';
import type { WriteOp } from './binding.js';
import type { BlockBatch } from './block-batch.js';
import { CHECKPOINT, metaOp, putMetaRaw } from './meta.js';
import type { BlockRef } from './refs.js';
import { encodeUndo, undoOps } from './undo.js';

/**
 * Adds to `batch` the rows of block `ref` itself: its canonical hash and, in a live batch, its
 * undo record (the block's entries, {@link BlockBatch.endBlock}: the batch may go on with the
 * next block); the record `unfinalisedWindow` blocks below is pruned.
 */
export function endBlock(batch: BlockBatch, ref: BlockRef, unfinalisedWindow: number): void {
  if (batch.latePending) throw new Error(`block ${ref.number} ends with late parts not settled (settleLate)`);
  batch.insert(CANON, [ref.number], ref.hash);
  if (batch.undo) {
    batch.raw(UNDO.key(ref.number), encodeUndo(batch.endBlock()));
    // Undo is kept for the last `unfinalisedWindow` blocks (a reorg that deep is rolled back).
    const pruned = ref.number - unfinalisedWindow;
    if (pruned >= 0) batch.raw(UNDO.key(pruned), null);
  }
}

/**
 * Adds to `batch` what commits block `ref`: its own rows ({@link endBlock}), the checkpoint and
 * `extraMeta`.
 */
export function sealBlock(
  batch: BlockBatch,
  ref: BlockRef,
  unfinalisedWindow: number,
  extraMeta?: Record<string, unknown>,
): void {
  endBlock(batch, ref, unfinalisedWindow);
  const cp = metaOp(CHECKPOINT, ref);
  batch.raw(cp.key, cp.value);
  putMetaRaw(batch, extraMeta);
}

/**
 * The ops that roll back `head`: its undo record applied and deleted, the checkpoint moved to its
 * parent (none below block 0 or an unknown parent), then `extraMeta` and `extraOps` of the caller.
 * `readRaw` and `canonicalHash` read as ingest sees the store.
 * @throws Error when the head has no undo record (outside the unfinalised window).
 */
export function rollbackOps(
  head: BlockRef,
  readRaw: (key: Buffer) => Buffer | undefined,
  canonicalHash: (n: number) => `0x${string}` | undefined,
  extraMeta?: (newHead: BlockRef | null) => Record<string, unknown>,
  extraOps?: (dropped: BlockRef, newHead: BlockRef | null) => WriteOp[],
): { ops: WriteOp[]; newHead: BlockRef | null } {
  const record = readRaw(UNDO.key(head.number));
  if (!record) throw new Error(`no undo record for block ${head.number} (outside the unfinalised window)`);
  const ops = undoOps(record);
  ops.push({ key: UNDO.key(head.number), value: null });
  const parentNumber = head.number - 1;
  const parentHash = parentNumber >= 0 ? canonicalHash(parentNumber) : undefined;
  const newHead: BlockRef | null = parentHash ? { number: parentNumber, hash: parentHash } : null;
  ops.push(newHead ? metaOp(CHECKPOINT, newHead) : { key: META.key(CHECKPOINT), value: null });
  if (extraMeta) for (const [k, v] of Object.entries(extraMeta(newHead))) ops.push(metaOp(k, v));
  if (extraOps) ops.push(...extraOps(head, newHead));
  return { ops, newHead };
}
