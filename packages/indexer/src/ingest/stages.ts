/**
 * The follower's stages. A block goes through them in order — `link` (does it attach to what we
 * hold?), `prepare` (first-sight node reads), `apply` (chain records, projections and frames into
 * a batch), `commit` (the write) — and `unwind` takes the store back to a block when the node
 * changed its mind (a reorg). Two modes share the stages:
 *
 *  - history: blocks the node calls final (see finality.ts) are applied into one batch per
 *    *segment* of many blocks. The batch keeps no undo record and reads no prior values; every
 *    key it writes is written once per segment, however many blocks changed it; stream frames are
 *    made only for the last `historyFrameBlocks` blocks before the hand-over (older frames would
 *    have left the catch-up ring before any consumer could ask for them). A segment commits as one
 *    atomic write with its checkpoint, so a crash leaves all of it or none of it.
 *  - live: each block is its own batch with its undo record and its frames, as a reorg may take it
 *    back. A rollback never reaches below the first live block (the end of history is recorded in
 *    the same write as the last segment).
 *
 * Writes go to the store's writer thread: the main thread builds state transitions and hands
 * over the batch; what it reads next sees its own in-flight writes through the state cache.
 */
import type { Logger } from 'pino';
import type { Projection, Registry } from '../projections/index.js';
import type { Rpc } from '../rpc/client.js';
import type { BlockDelta } from '../schema/delta.js';
import { type PendingFrame, TOPIC_NAMES } from '../schema/rows/streams.js';
import {
  type BlockBatch,
  type BlockRef,
  batchView,
  nextSlice,
  type Store,
  turnBudget,
} from '../storage/index.js';
import type { Hub } from '../streams/hub.js';
import type { Frame, StreamLog } from '../streams/log.js';
import { applyChainRecords } from './apply.js';
import { chainFrames } from './frames.js';
import { recordGap } from './gaps.js';
import { epochMs, type LiveTimeline } from './timeline.js';

export type Mode = 'history' | 'live';

/** META row recording the last block committed in history mode (the rollback floor). */
export const HISTORY_END_META = 'ingest:historyEnd';

/** A block on its way through the stages. */
export interface Unit {
  d: BlockDelta;
  mode: Mode;
  /** Frames are made for this block (live, or history within the frame tail). */
  frames: boolean;
  /** Last block of the run the plan fetched (a history segment ends here at the latest). */
  last: boolean;
  /** Live blocks: the timeline so far (seen…ready); the commit stage adds `built` and `visible`. */
  timeline?: LiveTimeline;
}

/** What a stage tells the loop: go on with the next stage, or stop and plan again. */
export type Outcome = 'next' | 'replan';

/** One stage of the follower (reth's pipeline shape, one block or segment at a time). */
export interface Stage {
  readonly name: string;
  execute(u: Unit): Outcome | Promise<Outcome>;
  /** Takes this stage's state back so that block `to` is the last one held (reorgs). */
  unwind?(to: number): void | Promise<void>;
}

export interface StageDeps {
  chain: string;
  store: Store;
  rpc: Rpc;
  registry: Registry;
  log: Logger;
  streams?: { log: StreamLog; hub: Hub };
  rollbackHooks?: Array<(dropped: number) => Record<string, unknown>>;
  /** History segment bound: bytes of pending writes (state cache entries excluded). */
  segmentBytes: number;
  /** History segment bound: blocks. */
  segmentBlocks: number;
  /** Called after each committed block, segment or rollback (metrics, status). */
  onCommit?: (e: CommitEvent) => void;
  onReorg?: (depth: number) => void;
  /** Ingest halts (a reorg below history or the window). */
  halt: (reason: string) => void;
}

export type CommitEvent =
  | {
      kind: 'block';
      block: BlockDelta;
      /** Ingest-thread time by stage, milliseconds (pauses for reads excluded). */
      stages: Record<string, number>;
      /** The block's way from head poll to visible (timeline.ts), when it came through the follower. */
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

/**
 * A block build yields to the event loop once it has held the thread this long (ms): the thread's
 * turn budget (storage/turns.ts — 2 ms where reads are served on the same thread, more in the
 * ingest engine thread, which serves none).
 */
const yieldAfterMs = turnBudget;
/** A live block build longer than this (ms of thread time) is logged with its stage times. */
const SLOW_BLOCK_MS = 100;

/** Thread-time accounting of one build, with pauses that give the thread back to HTTP reads. */
class Clock {
  readonly stages: Record<string, number> = {};
  busy = 0;
  private t = performance.now();
  private slice = this.t;
  private stage = 0;
  /** Starts (again) counting from now: time spent awaiting the node in `prepare` is not build time. */
  resume(): void {
    this.t = this.slice = performance.now();
  }
  /** Gives the thread back when the current slice is over budget; pauses are not stage time. */
  async pause(): Promise<void> {
    const now = performance.now();
    if (now - this.slice <= yieldAfterMs()) return;
    this.stage += now - this.t;
    await nextSlice();
    this.t = this.slice = performance.now();
  }
  async lap(name: string): Promise<void> {
    const now = performance.now();
    this.stage += now - this.t;
    this.stages[name] = (this.stages[name] ?? 0) + Math.round(this.stage * 10) / 10;
    this.busy += this.stage;
    this.stage = 0;
    this.t = now;
    await this.pause();
  }
}

/** The open history segment: one batch across many final blocks. */
interface Segment {
  batch: BlockBatch;
  from: number;
  /** The last block applied into the segment (null: none yet, on an empty store). */
  last: BlockRef | null;
  blocks: number;
  txs: number;
  logs: number;
  /** Frames of the segment's blocks within the frame tail, by block (appended at commit). */
  frames: Array<[number, PendingFrame[]]>;
  /** Projections applied in this segment (those caught up when it opened). */
  live: Projection[];
  clock: Clock;
}

/** The stages, with the state they share (the open segment, the live block's batch). */
export function createStages(deps: StageDeps) {
  const { store, registry, log } = deps;
  let segment: Segment | null = null;
  /** The live block being built. */
  let block: { batch: BlockBatch; live: Projection[]; frames: PendingFrame[]; clock: Clock } | null = null;
  const historyEnd = (): number => store.getMeta<number>(HISTORY_END_META) ?? -1;

  /** The block the next one must extend: the open segment's last, else the store's head. */
  const parent = (): BlockRef | null => (segment ? segment.last : store.head());

  const openSegment = (d: BlockDelta): Segment => {
    const p = d.number > 0 ? d.number - 1 : null;
    return {
      batch: store.newBatch({ undo: false }),
      from: d.number,
      last: store.head(),
      blocks: 0,
      txs: 0,
      logs: 0,
      frames: [],
      live: registry.live(p),
      clock: new Clock(),
    };
  };

  /** Drops the open segment unwritten (the node moved under it: it is fetched again). */
  const discardSegment = () => {
    segment = null;
  };

  const link: Stage = {
    name: 'link',
    async execute(u): Promise<Outcome> {
      const p = parent();
      if (!p || (u.d.number === p.number + 1 && u.d.parentHash === p.hash)) return 'next';
      if (segment) {
        // The node's final chain moved under the open segment (nothing of it is written).
        log.warn({ chain: deps.chain, block: u.d.number }, 'history segment discarded: the node moved');
        discardSegment();
        return 'replan';
      }
      await unwindToNode();
      return 'replan';
    },
  };

  const prepare: Stage = {
    name: 'prepare',
    async execute(u): Promise<Outcome> {
      const batch = u.mode === 'history' ? segment!.batch : block!.batch;
      const live = u.mode === 'history' ? segment!.live : block!.live;
      const head = parent();
      const ctx = { store: { view: () => batchView(batch, head) }, rpc: deps.rpc };
      for (const p of live) await p.prepare?.(u.d, ctx);
      return 'next';
    },
  };

  /** Opens the unit's batch (the segment's, or a fresh one for a live block). */
  const open: Stage = {
    name: 'open',
    execute(u) {
      if (u.mode === 'history') {
        segment ??= openSegment(u.d);
        return 'next';
      }
      block = {
        batch: store.newBatch(),
        live: registry.live(u.d.number > 0 ? u.d.number - 1 : null),
        frames: [],
        clock: new Clock(),
      };
      return 'next';
    },
  };

  const apply: Stage = {
    name: 'apply',
    async execute(u): Promise<Outcome> {
      const { batch, live, clock } = u.mode === 'history' ? segment! : block!;
      const frames: PendingFrame[] = u.mode === 'history' ? [] : block!.frames;
      const emit = deps.streams && u.frames ? (f: PendingFrame) => frames.push(f) : undefined;
      const head = store.head();
      clock.resume();
      applyChainRecords(batch, u.d);
      if (emit) chainFrames(u.d, emit);
      await clock.lap('chain');
      for (const p of live) {
        if (p.steps) for (const _ of p.steps(batch, u.d, emit)) await clock.pause();
        else p.apply(batch, u.d, emit);
        await clock.lap(p.name);
      }
      // A rollback ran during a pause (the head moved): nothing was written; plan again.
      if (store.head()?.hash !== head?.hash) {
        if (segment) discardSegment();
        block = null;
        return 'replan';
      }
      if (segment && u.mode === 'history') {
        segment.last = { number: u.d.number, hash: u.d.hash };
        segment.blocks++;
        segment.txs += u.d.txs.length;
        segment.logs += u.d.logs.length;
        if (frames.length) segment.frames.push([u.d.number, frames]);
      }
      return 'next';
    },
  };

  /**
   * Writes the open segment: one atomic batch with its checkpoints and the history end. Its
   * blocks' frames (those within the frame tail) are appended block by block, yielding to reads
   * between them; the writer queue then encodes the batch in chunks (storage/writer.ts).
   */
  const commitSegment = async () => {
    const s = segment!;
    segment = null;
    const last = s.last!;
    const meta: Record<string, unknown> = { [HISTORY_END_META]: last.number };
    for (const p of s.live)
      meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: last.number };
    const t = performance.now();
    const committed: Frame[] = [];
    if (deps.streams) {
      let slice = performance.now();
      for (const [n, fs] of s.frames) {
        committed.push(...deps.streams.log.append(s.batch, n, fs));
        if (performance.now() - slice <= yieldAfterMs()) continue;
        await nextSlice();
        slice = performance.now();
      }
    }
    const bytes = s.batch.bytes;
    // The status moves first, then the frames go out (with it, from an engine thread).
    store.commitBatch(last, s.batch, meta, () => {
      deps.onCommit?.({
        kind: 'segment',
        from: s.from,
        to: last.number,
        txs: s.txs,
        logs: s.logs,
        bytes,
        stages: { ...s.clock.stages, write: Math.round((performance.now() - t) * 10) / 10 },
      });
      deps.streams?.hub.publish(committed);
    });
    for (const p of s.live) registry.setCheckpoint(p.name, last.number);
  };

  const commit: Stage = {
    name: 'commit',
    async execute(u): Promise<Outcome> {
      if (u.mode === 'history') {
        const s = segment!;
        if (u.last || s.blocks >= deps.segmentBlocks || s.batch.bytes >= deps.segmentBytes)
          await commitSegment();
        return 'next';
      }
      const { batch, live, frames, clock } = block!;
      block = null;
      const d = u.d;
      const meta: Record<string, unknown> = {};
      for (const p of live) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: d.number };
      const committed = deps.streams ? deps.streams.log.append(batch, d.number, frames) : [];
      const t = performance.now();
      const timeline = u.timeline;
      store.commitBatch({ number: d.number, hash: d.hash }, batch, meta, () => {
        if (timeline) timeline.visible = epochMs();
        deps.onCommit?.({ kind: 'block', block: d, stages: clock.stages, timeline });
        deps.streams?.hub.publish(committed);
      });
      if (timeline) timeline.built = epochMs();
      clock.stages.write = Math.round((performance.now() - t) * 10) / 10;
      clock.busy += performance.now() - t;
      if (clock.busy > SLOW_BLOCK_MS)
        log.warn(
          {
            chain: deps.chain,
            block: d.number,
            txs: d.txs.length,
            logs: d.logs.length,
            ms: Math.round(clock.busy),
            stages: clock.stages,
          },
          'slow block build (thread time; the build yields between stages)',
        );
      for (const p of live) registry.setCheckpoint(p.name, d.number);
      return 'next';
    },
    unwind: (to) => rollbackTo(to),
  };

  /** Rolls the store back block by block (undo records) until `to` is the head. */
  const rollbackTo = (to: number) => {
    while ((store.head()?.number ?? -1) > to) {
      const dropped = store.head()!;
      const droppedNumber = dropped.number;
      const moved: Array<[string, number | null]> = [];
      let reorgFrames: Frame[] = [];
      store.rollbackHead(
        () => {
          const meta: Record<string, unknown> = {};
          for (const p of registry.projections) {
            const c = registry.state(p.name).checkpoint;
            if (c !== null && c >= droppedNumber) {
              const back = droppedNumber - 1 >= 0 ? droppedNumber - 1 : null;
              meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: back };
              moved.push([p.name, back]);
            }
          }
          for (const hook of deps.rollbackHooks ?? []) Object.assign(meta, hook(droppedNumber));
          return meta;
        },
        (gone, newHead) => {
          if (!deps.streams) return [];
          // Reorgs are explicit on every topic: a frame naming the removed block and the new head.
          const json = JSON.stringify({ removedBlocks: [{ number: gone.number, hash: gone.hash }], newHead });
          const pending: PendingFrame[] = TOPIC_NAMES.map((topic) => ({
            topic,
            event: 'reorg',
            json,
            keys: {},
          }));
          const r = deps.streams.log.appendOps(gone.number, pending);
          reorgFrames = r.frames;
          return r.ops;
        },
        () => {
          deps.onCommit?.({ kind: 'rollback', dropped });
          deps.streams?.hub.publish(reorgFrames);
        },
      );
      for (const [name, back] of moved) registry.setCheckpoint(name, back);
    }
  };

  const nodeHashAt = async (n: number): Promise<`0x${string}` | null> => {
    const b = await deps.rpc.call<{ hash: `0x${string}` } | null>('eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      false,
    ]);
    return b ? b.hash : null;
  };

  /**
   * Finds the common ancestor with the node and unwinds every stage to it. A node that cannot tell
   * (it is behind) unwinds nothing. The ancestor must lie within the unfinalised window and at or
   * above the end of history: below either, ingest halts with a gap (history keeps no undo).
   */
  const unwindToNode = async (): Promise<void> => {
    const head = store.head();
    if (!head) return;
    const floor = Math.max(0, head.number - store.unfinalisedWindow, historyEnd());
    let ancestor = -1;
    for (let n = head.number; n >= floor; n--) {
      const h = await nodeHashAt(n);
      if (h === null) return; // node behind: not a reorg
      if (h === store.canonicalHash(n)) {
        ancestor = n;
        break;
      }
    }
    if (ancestor < 0) {
      const belowHistory = floor === historyEnd() && floor > head.number - store.unfinalisedWindow;
      recordGap(store, {
        lane: 'blocks',
        fromBlock: floor,
        toBlock: head.number,
        reason: belowHistory
          ? `reorg below the end of history (block ${floor}, final when it was committed)`
          : `reorg deeper than the unfinalised window (${store.unfinalisedWindow} blocks)`,
      });
      deps.halt(belowHistory ? 'reorg_below_history' : 'reorg_beyond_window');
      return;
    }
    const depth = head.number - ancestor;
    log.warn({ chain: deps.chain, from: head.number, ancestor, depth }, 'reorg: rolling back');
    for (const s of stages) await s.unwind?.(ancestor);
    deps.onReorg?.(depth);
  };

  const stages: Stage[] = [link, open, prepare, apply, commit];

  return {
    stages,
    /** Runs one block through every stage; 'replan' when a stage stopped it. */
    async run(u: Unit): Promise<Outcome> {
      for (const s of stages) if ((await s.execute(u)) === 'replan') return 'replan';
      return 'next';
    },
    /** The node's hash check at our head while following; unwinds on a mismatch. */
    async checkHead(nodeHead: number): Promise<void> {
      const head = store.head();
      if (!head || nodeHead < head.number) return;
      const h = await nodeHashAt(head.number);
      if (h !== null && h !== head.hash) await unwindToNode();
    },
    /** Writes the open segment now (the plan ends: a stop, a mode change). */
    async flush(): Promise<void> {
      if (segment?.blocks) await commitSegment();
      else segment = null;
    },
    /** Drops the open segment unwritten. */
    discard: discardSegment,
    historyEnd,
    /** The open segment's size, for /health. */
    openSegment: () =>
      segment ? { from: segment.from, blocks: segment.blocks, bytes: segment.batch.bytes } : null,
  };
}

export type Stages = ReturnType<typeof createStages>;
