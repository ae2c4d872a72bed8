/**
 * The store's own META records: the blocks lane's checkpoint and the change log's sequences
 * (the writer's last entry, the replica's last applied one), and the write op of a META record.
 */
import { CHANGELOG_SEQ_META, REPLICA_APPLIED_META } from '../schema/rows/replication.js';
import { META } from '../schema/tables/chain.js';
import type { WriteOp } from './binding.js';
import type { BlockBatch } from './block-batch.js';

/** META name of the blocks lane's checkpoint (the committed head, a BlockRef). */
export const CHECKPOINT = 'checkpoint:blocks';
/** META name of the last change-log sequence (writer) and of the last applied one (replica). */
export const CHANGELOG_SEQ = CHANGELOG_SEQ_META;
export const REPLICA_APPLIED = REPLICA_APPLIED_META;

/** The write of META record `name` = `value` (JSON codec of the META table). */
export const metaOp = (name: string, value: unknown): WriteOp => ({
  key: META.key(name),
  value: META.value.encode(value),
});

/** Writes the META records of `extra` (name → value) into `batch` without undo (none: nothing). */
export function putMetaRaw(batch: BlockBatch, extra: Record<string, unknown> | undefined): void {
  if (!extra) return;
  for (const [k, v] of Object.entries(extra)) {
    const op = metaOp(k, v);
    batch.raw(op.key, op.value);
  }
}
