/**
 * HISTORY_RETENTION kept on disk: the history pruner deletes the versions of the block-versioned
 * tables (schema/history.ts, the one list) that no as-of read inside the retained range can reach.
 *
 * A pass prunes to one cutoff C = head − max(HISTORY_RETENTION, UNFINALISED_WINDOW): never inside
 * the unfinalised window, so no rollback can take the head below C, and no read inside the
 * retained range (head − HISTORY_RETENTION and above) names a block below C. A pass:
 *  1. raises the META mark `history:oldest` to C (with the pass's progress, `history:prune`) in its
 *     own batch, committed before any delete: a view that sees a pruned row sees the mark, and the
 *     read side (server/as-of.ts `retainedRange`) refuses blocks below it with 410;
 *  2. walks each declared table in key order in slices of at most {@link PRUNE_SLICE_ROWS} rows,
 *     each slice one atomic batch of its deletes and the progress after them, so a restart after
 *     kill -9 resumes where the last committed slice ended;
 *  3. clears the progress when the last table is walked.
 * Slices run on the thread that writes (the ingest engine thread), queued with the other
 * background slices (turns.ts), one at a time: the next starts once RocksDB holds the last one.
 * Reads never wait on it.
 */

import { prefixEnd } from '../schema/codec.js';
import {
  HISTORY_OLDEST_META,
  HISTORY_PRUNE_META,
  type PruneProgress,
  VERSIONED_TABLES,
  type VersionedTable,
} from '../schema/history.js';
import { BLOCK_TS, TIME } from '../schema/tables/chain.js';
import type { Store } from './store-types.js';
import { laterSlice } from './turns.js';
import { inView } from './view.js';

/** Rows a slice examines at most (kept or deleted): about a millisecond of scanning and encoding. */
export const PRUNE_SLICE_ROWS = 2_048;
/** How often an idle pruner checks whether the head moved a step past the mark, ms. */
const CHECK_MS = 1_000;
/**
 * After this long without a pass (ms), a cutoff less than a step past the mark is pruned to all
 * the same: a chain that slows down or stops still ends up pruned exactly to head − max(R, W).
 */
const CATCH_UP_MS = 10_000;

/** The pruner's figures since start (for logs and tests). */
export interface PrunerStatus {
  /** The mark: oldest block whose state the store holds exactly (null: nothing pruned yet). */
  oldest: number | null;
  /** The pass under way (null: idle). */
  pass: PruneProgress | null;
  passes: number;
  /** Version rows deleted. */
  deleted: number;
}

export interface HistoryPruner {
  /** Starts checking every {@link CHECK_MS} ms; a pass left by a crash resumes first. */
  start(): void;
  /** Stops after the slice in flight (its batch still commits); resolves at once when idle. */
  stop(): Promise<void>;
  /** Runs passes until the store is pruned to the cutoff of its head now; resolves when done (tests). */
  settle(): Promise<void>;
  status(): PrunerStatus;
}

export interface HistoryPrunerOptions {
  store: Store;
  /** HISTORY_RETENTION: blocks below the head an as-of read may name. */
  retention: number;
  /** Whether a slice may run now (the engine: ingest following, every projection at its head). */
  ready?: () => boolean;
  /**
   * Blocks the wanted cutoff must be past the mark before a new pass (each pass walks every
   * versioned table once). Default: an eighth of max(retention, unfinalised window), at least 1.
   * A smaller advance is pruned once no pass ran for {@link CATCH_UP_MS}.
   */
  step?: number;
  /** Rows per slice (default {@link PRUNE_SLICE_ROWS}). */
  sliceRows?: number;
  /** Called when a pass ends (`ms`: wall time since it began or resumed). */
  onPass?: (p: { cutoff: number; deleted: number; ms: number }) => void;
  /** Called once when a slice fails (the store refuses writes): the pruner stops. */
  onError?: (err: Error) => void;
}

/** The cutoff of a store at `head`: head − max(retention, window), or null when below block 0. */
export function pruneCutoff(head: number, retention: number, unfinalisedWindow: number): number | null {
  const c = head - Math.max(retention, unfinalisedWindow);
  return c >= 0 ? c : null;
}

/**
 * The cutoff of table `v` in a pass to `cutoff`: `cutoff` itself, or for a table read up to
 * `lookbackSeconds` below the block a read answers at, the block before the first block whose
 * timestamp is at or after time(cutoff) − lookbackSeconds (chain.block_timestamp, chain.time).
 * −1 (prune nothing) when the cutoff's timestamp is not stored.
 */
export function tableCutoff(store: Store, v: VersionedTable, cutoff: number): number {
  if (v.lookbackSeconds === 0) return cutoff;
  return inView(store, (view) => {
    const ts = view.get(BLOCK_TS, cutoff);
    if (ts === undefined) return -1;
    const first = view.first(TIME, { gte: [Math.max(0, ts - v.lookbackSeconds), 0] });
    return first ? Math.min(cutoff, (first.key[1] as number) - 1) : -1;
  });
}

/** The u64 big-endian at the end of key `k` (a `since` table's version block). */
const tailBlock = (k: Buffer): number =>
  k.readUInt32BE(k.length - 8) * 0x1_0000_0000 + k.readUInt32BE(k.length - 4);

/** What one slice decided: the keys to delete and where the table's walk resumes (null: it ended). */
export interface SliceResult {
  deletes: Buffer[];
  from: Buffer | null;
  examined: number;
}

/**
 * Walks at most `maxRows` rows of table `v` from key `from` (inclusive; null: the table's first)
 * and picks the versions unreachable at or after `cut` (schema/history.ts). A `since` slice that
 * ends on a subject's version at or below `cut` resumes at that version (it may still be followed
 * by a newer one at or below `cut`, which makes it unreachable); otherwise right after its last row.
 */
export function pruneSlice(
  store: Store,
  v: VersionedTable,
  cut: number,
  from: Buffer | null,
  maxRows: number,
): SliceResult {
  const t = v.table;
  const lo = from ?? Buffer.from([t.id]);
  const deletes: Buffer[] = [];
  let examined = 0;
  /** The slice's last row (copied: the binding's key is valid inside the callback only). */
  let last: Buffer | null = null;
  let lastPending = false;
  let group: Buffer | null = null;
  let candidate: Buffer | null = null;
  const layout = v.layout;
  store.rocks.each({ gte: lo, lt: prefixEnd(Buffer.from([t.id])) }, (key, value) => {
    examined++;
    if (layout.kind === 'interval') {
      if (layout.until(t.value.decode(value)) <= cut) deletes.push(Buffer.from(key));
    } else {
      const g = key.subarray(0, key.length - 8);
      if (!group || !g.equals(group)) {
        group = Buffer.from(g);
        candidate = null;
      }
      lastPending = tailBlock(key) <= cut;
      if (lastPending) {
        if (candidate) deletes.push(candidate);
        candidate = Buffer.from(key);
      }
    }
    if (examined < maxRows) return true;
    last = Buffer.from(key);
    return false;
  });
  if (last === null) return { deletes, from: null, examined };
  const end: Buffer = last;
  // Resume at the pending candidate itself, or at the first key after the last row (key ‖ 0x00).
  const next = lastPending ? Buffer.from(end) : Buffer.concat([end, Buffer.alloc(1)]);
  return { deletes, from: next, examined };
}

/** The store's mark and pass in progress, from META. */
function readState(store: Store): { oldest: number | null; pass: PruneProgress | null } {
  return {
    oldest: store.getMeta<number>(HISTORY_OLDEST_META) ?? null,
    pass: store.getMeta<PruneProgress | null>(HISTORY_PRUNE_META) ?? null,
  };
}

/**
 * The history pruner of `o.store` (see the module comment). Create it on the thread that writes
 * the store; it does nothing until {@link HistoryPruner.start} or {@link HistoryPruner.settle}.
 */
export function createHistoryPruner(o: HistoryPrunerOptions): HistoryPruner {
  const { store, retention } = o;
  const window = store.unfinalisedWindow;
  const step = o.step ?? Math.max(1, Math.floor(Math.max(retention, window) / 8));
  // Two rows at least: a slice resuming at its pending version must get past it.
  const sliceRows = Math.max(2, o.sliceRows ?? PRUNE_SLICE_ROWS);
  const ready = o.ready ?? (() => true);
  const state = readState(store);
  let passes = 0;
  let deleted = 0;
  let running = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let passStart = 0;
  /** When the last pass ended (epoch ms; the pruner's creation before the first). */
  let lastPassAt = Date.now();
  let passDeleted = 0;
  /** Cutoff per table of the pass under way (computed once per table and pass). */
  let cuts = new Map<number, number>();
  const idle: Array<() => void> = [];
  const settleIdle = () => {
    for (const r of idle.splice(0)) r();
  };

  /** The cutoff a new pass would prune to now, when it is a step past the mark. */
  const due = (): number | null => {
    const head = store.head();
    const c = head ? pruneCutoff(head.number, retention, window) : null;
    if (c === null) return null;
    if (state.oldest === null || c >= state.oldest + step) return c;
    return c > state.oldest && Date.now() - lastPassAt >= CATCH_UP_MS ? c : null;
  };

  const begin = (cutoff: number): void => {
    const pass: PruneProgress = { cutoff, table: VERSIONED_TABLES[0].table.id, from: null };
    state.oldest = Math.max(cutoff, state.oldest ?? 0);
    state.pass = pass;
    cuts = new Map();
    passStart = performance.now();
    passDeleted = 0;
    // The mark goes first, alone: committed before any delete below it.
    store.prune([], { [HISTORY_OLDEST_META]: state.oldest, [HISTORY_PRUNE_META]: pass });
  };

  /** Runs one slice; a failure (the store refusing writes) stops the pruner, reported once. */
  const slice = (): void => {
    try {
      sliceOnce();
    } catch (err) {
      stopped = true;
      running = false;
      o.onError?.(err as Error);
      settleIdle();
    }
  };

  /** Runs one slice of the pass under way and schedules the next once its batch is committed. */
  const sliceOnce = (): void => {
    const pass = state.pass;
    if (stopped || !pass) {
      finish();
      return;
    }
    if (!ready()) {
      running = false;
      return;
    }
    const i = VERSIONED_TABLES.findIndex((v) => v.table.id === pass.table);
    if (i < 0) {
      // A table no longer declared (a pass left by an older version): the pass ends here.
      state.pass = null;
      store.prune([], { [HISTORY_PRUNE_META]: null }, () => done(pass));
      return;
    }
    const v = VERSIONED_TABLES[i];
    let cut = cuts.get(v.table.id);
    if (cut === undefined) cuts.set(v.table.id, (cut = tableCutoff(store, v, pass.cutoff)));
    const r = pruneSlice(store, v, cut, pass.from ? Buffer.from(pass.from, 'hex') : null, sliceRows);
    const nextTable = r.from === null ? VERSIONED_TABLES[i + 1] : v;
    const next: PruneProgress | null = nextTable
      ? { cutoff: pass.cutoff, table: nextTable.table.id, from: r.from ? r.from.toString('hex') : null }
      : null;
    state.pass = next;
    deleted += r.deletes.length;
    passDeleted += r.deletes.length;
    store.prune(r.deletes, { [HISTORY_PRUNE_META]: next }, () => {
      if (next) laterSlice(slice);
      else done(pass);
    });
  };

  const done = (pass: PruneProgress): void => {
    passes++;
    state.pass = null;
    lastPassAt = Date.now();
    o.onPass?.({ cutoff: pass.cutoff, deleted: passDeleted, ms: performance.now() - passStart });
    finish();
  };

  const finish = (): void => {
    running = false;
    if (!stopped && due() !== null) kick();
    else settleIdle();
  };

  /** Starts (or resumes) a pass when one is due and none is running. */
  const kick = (): void => {
    if (running || stopped || !ready()) return;
    if (!state.pass) {
      const c = due();
      if (c === null) {
        settleIdle();
        return;
      }
      begin(c);
    } else passStart ||= performance.now();
    running = true;
    laterSlice(slice);
  };

  return {
    start() {
      stopped = false;
      timer = setInterval(kick, CHECK_MS);
      timer.unref();
      kick();
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      if (!running) return Promise.resolve();
      // Idle after the slice in flight, or once no batch is in flight (a refused one never calls back).
      return Promise.race([new Promise<void>((resolve) => idle.push(resolve)), store.settled()]);
    },
    settle() {
      const p = new Promise<void>((resolve) => idle.push(resolve));
      if (!running) kick();
      if (!running) settleIdle();
      return p;
    },
    status: () => ({ oldest: state.oldest, pass: state.pass, passes, deleted }),
  };
}
