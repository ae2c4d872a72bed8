/**
 * Where a chain's change log lives on NATS JetStream. One stream per chain, one subject, and one
 * object-store bucket for the snapshots replicas join from.
 *
 * | what | name |
 * |---|---|
 * | stream | `IDX_<CHAIN>` (chain name upper-cased, `-` → `_`) |
 * | subject | `idx.<chain>.log` |
 * | snapshots (object store) | `idx-<chain>-snapshots`, objects `snapshot-<seq, 16 digits>` |
 */

/** JetStream stream of a chain's change log. */
export const streamOf = (chain: string): string => `IDX_${chain.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
/** Subject the writer publishes a chain's entries on. */
export const subjectOf = (chain: string): string => `idx.${chain}.log`;
/** Object-store bucket of a chain's snapshots. */
export const bucketOf = (chain: string): string => `idx-${chain}-snapshots`;
/** Object name of the snapshot taken at change sequence `seq` (sorts by sequence). */
export const snapshotName = (seq: number): string => `snapshot-${String(seq).padStart(16, '0')}`;

/** Message headers of a change-log message. */
export const H = {
  /** The entry's change sequence. */
  seq: 'Idx-Seq',
  /** Part index and count (`i/n`) of an entry split across messages (NATS max_payload). */
  part: 'Idx-Part',
  /** The writer's store generation. */
  generation: 'Idx-Generation',
  /** The writer's head block number after the entry (absent before the first block). */
  head: 'Idx-Head',
} as const;

/** Largest payload per message, bytes: under NATS's default max_payload of 1 MiB. */
export const MAX_PART_BYTES = 900 * 1024;
