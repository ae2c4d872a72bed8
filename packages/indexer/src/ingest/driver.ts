/**
 * The contract of the two drivers that share the stages: drivers/history.ts (final blocks into
 * segments, no undo, written when a bound is reached) and drivers/live.ts (each block its own
 * batch with its undo record and frames). The fetch loop (run.ts) hands each a fetched block; a
 * driver builds the block's {@link Target}, runs the stages on it and commits what is due.
 */
import type { Logger } from 'pino';
import type { Registry } from '../projections/index.js';
import type { Store } from '../storage/index.js';
import type { Hub } from '../streams/hub.js';
import type { StreamLog } from '../streams/log.js';
import type { CommitEvent, Mode, Outcome, Stage, StageTimes, Unit } from './stage.js';
import type { Unwinder } from './unwind.js';

/** A driver of the stages. */
export interface Driver {
  /** Which one (status and metric labels). */
  readonly mode: Mode;
  /** Write batches allowed in flight at the writer thread while this driver builds (backpressure). */
  readonly inFlight: number;
  /**
   * Whether its batches keep undo (each key's prior value is read): the decode worker then lists
   * the keys its encoded rows overwrite, read ahead with the state keys.
   */
  readonly undo: boolean;
  /** The follower's state while it runs. */
  readonly state: 'backfilling' | 'following';
  /** Whether stream frames (and the JSON texts they are made of) are wanted for block `n` of a run handing over at `handOver`. */
  framesAt(n: number, handOver: number): boolean;
  /** Runs one fetched block through the stages and commits what is due. */
  execute(u: Unit): Promise<Outcome>;
  /** Writes whatever is open (the run ended between blocks). */
  flush(): Promise<void>;
  /** The open segment, for /health (null: none). */
  open(): { from: number; blocks: number; bytes: number } | null;
}

/** What both drivers are built from. */
export interface DriverDeps {
  chain: string;
  store: Store;
  registry: Registry;
  log: Logger;
  streams?: { log: StreamLog; hub: Hub };
  /** The shared stages, in order. */
  stages: readonly Stage[];
  unwinder: Unwinder;
  /** Called after each committed block or segment (metrics, status). */
  onCommit?: (e: CommitEvent) => void;
  /** Each unit's stage times (and the driver's own `commit`), ms: the per-stage metrics. */
  onStageTimes?: (mode: Mode, times: StageTimes) => void;
}
