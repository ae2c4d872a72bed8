/**
 * META names of the change log (ROLE=writer) and of a replica's applied position, written by the
 * store in the same batch as the entries they count (storage/index.ts), so any view reads a
 * sequence consistent with the rows it sees.
 */

/** META name of the last change-log sequence RocksDB holds (a number; absent means 0). */
export const CHANGELOG_SEQ_META = 'changelog:seq';
/** META name of the last writer sequence a replica applied. */
export const REPLICA_APPLIED_META = 'replica:applied';

/**
 * The change-log sequence committed in `view` (0 when none): what the publisher has to ship up to.
 * Source: META `changelog:seq`, committed with each entry.
 */
export function changeLogSeqIn(view: { meta<T>(name: string): T | undefined }): number {
  return view.meta<number>(CHANGELOG_SEQ_META) ?? 0;
}
