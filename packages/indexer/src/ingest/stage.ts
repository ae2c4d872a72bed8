/**
 * The follower's stage contract (reth's pipeline shape). A fetched block is a {@link Unit}; a
 * driver (drivers/history.ts, drivers/live.ts) gives it a {@link Target} — the batch its writes go
 * into, the projections to apply, where frames go, the block it must extend — and runs it through
 * the same {@link Stage}s in order (stages/: link, prepare, apply). Stages never ask which driver
 * runs them; what differs between final history and the live window (one batch per segment or per
 * block, undo or none, when to write) lives in the drivers. A reorg unwinds every stage to the
 * common ancestor (unwind.ts).
 */
import type { Projection } from '../projections/index.js';
import type { BlockDelta, FetchMarks } from '../schema/delta.js';
import type { PendingFrame } from '../schema/rows/streams.js';
import type { BlockBatch, BlockRef, Store } from '../storage/index.js';
import type { Clock } from './clock.js';
import type { LiveTimeline } from './timeline.js';

/** The two drivers: final history in segments, the live window block by block. */
export type Mode = 'history' | 'live';

/** META row recording the last block committed by the history driver (the rollback floor). */
export const HISTORY_END_META = 'ingest:historyEnd';

/** The last block committed as history (−1: none). Source: META {@link HISTORY_END_META}. */
export function historyEndOf(store: Pick<Store, 'getMeta'>): number {
  return store.getMeta<number>(HISTORY_END_META) ?? -1;
}

/** When a block's decode task went out and came back (epoch ms), for the live timeline. */
export interface Fetched {
  /** The head poll (or newHeads notification) that planned the run. */
  seen: number;
  /** The decode task was handed to the pool. */
  posted: number;
  /** The decode worker's own steps. */
  marks?: FetchMarks;
  /** The task's answer reached this thread. */
  received: number;
}

/** A fetched block on its way through the stages. */
export interface Unit {
  d: BlockDelta;
  /** Stream frames are made for this block (live, or history within the frame tail). */
  frames: boolean;
  /** Last block of the run the plan fetched (a history segment ends here at the latest). */
  last: boolean;
  /** The decode task's times (the live driver turns them into the block's timeline). */
  fetched: Fetched;
}

/** What a stage tells the driver: go on with the next stage, or stop and plan again. */
export type Outcome = 'next' | 'replan';

/** Where one unit's work goes, supplied by the driver running it. */
export interface Target {
  /** The batch the block's writes go into (a segment's, or the block's own with its undo). */
  readonly batch: BlockBatch;
  /** Projections applied to the block (those caught up when the batch opened). */
  readonly projections: readonly Projection[];
  /** Thread-time accounting of the batch's build (clock.ts). */
  readonly clock: Clock;
  /** The block's stream frames, appended by the stages; null when none are made for it. */
  readonly frames: PendingFrame[] | null;
  /** The block the unit must extend (null: nothing held yet). */
  parent(): BlockRef | null;
  /** The unit does not attach to `parent()`: the driver puts things right before the run is planned again. */
  detached(u: Unit): Promise<void>;
}

/** One stage: its work on a unit, and how it takes its state back on a reorg. */
export interface Stage {
  readonly name: string;
  execute(u: Unit, t: Target): Outcome | Promise<Outcome>;
  /**
   * Optional: finishes the target's batch once its last unit was executed, before it commits
   * (what the stage kept for the whole batch; see Projection.seal). The history driver calls it once
   * per segment, the live driver after every block (a catch-up batch of several blocks included).
   */
  seal?(t: Pick<Target, 'batch' | 'projections' | 'clock'>): Outcome | Promise<Outcome>;
  /** Takes this stage's state back so that block `to` is the last one held (reorgs). */
  unwind?(to: number): void | Promise<void>;
}

/** Wall time of each stage of one unit, milliseconds (includes the stage's awaits and pauses). */
export type StageTimes = Record<string, number>;

/**
 * Runs `u` through `stages` in order, timing each; stops at the first that asks to plan again.
 * @returns the outcome and each stage's wall time, ms.
 */
export async function runStages(
  stages: readonly Stage[],
  u: Unit,
  t: Target,
): Promise<{ outcome: Outcome; times: StageTimes }> {
  const times: StageTimes = {};
  for (const s of stages) {
    const t0 = performance.now();
    const out = await s.execute(u, t);
    times[s.name] = performance.now() - t0;
    if (out === 'replan') return { outcome: 'replan', times };
  }
  return { outcome: 'next', times };
}

/**
 * Seals batch `t.batch` through every stage that has a seal, in order (timed into `times.seal` when
 * given); stops at the first that asks to plan again.
 */
export async function sealStages(
  stages: readonly Stage[],
  t: Pick<Target, 'batch' | 'projections' | 'clock'>,
  times?: StageTimes,
): Promise<Outcome> {
  const t0 = performance.now();
  try {
    for (const s of stages) if (s.seal && (await s.seal(t)) === 'replan') return 'replan';
    return 'next';
  } finally {
    if (times) times.seal = performance.now() - t0;
  }
}

/** What a driver reports once a block, a segment or a rollback is committed. */
export type CommitEvent =
  | {
      kind: 'block';
      block: BlockDelta;
      /** Ingest-thread time by step (chain, one per projection, write), ms (pauses for reads excluded). */
      stages: Record<string, number>;
      /** The block's way from head poll to visible (timeline.ts). */
      timeline?: LiveTimeline;
    }
  | {
      kind: 'segment';
      from: number;
      to: number;
      txs: number;
      logs: number;
      bytes: number;
      stages: Record<string, number>;
    }
  | { kind: 'rollback'; dropped: BlockRef };
