/**
 * The live driver: blocks of the unfinalised window, each with its own undo record (a reorg may
 * take it back) and its stream frames. Following the head, each block is its own batch, committed
 * as soon as it is built. Catching up (the run's plan holds more blocks than this one), blocks
 * share one batch of up to {@link LIVE_GROUP_BLOCKS} blocks: each block still ends with its own
 * canonical row and undo record (BlockBatch.endBlock), and the batch commits once, with its last
 * block or the run's, so a rollback still takes back one block at a time while the catch-up pays
 * one write, one seal of the commit and one hand-over to the serving thread per batch instead of
 * per block. A rollback never reaches below the first live block: the end of history is recorded
 * in the same write as the last segment. Each block's timeline (timeline.ts) goes with its commit
 * event.
 */
import type { Projection } from '../../projections/index.js';
import type { BlockDelta } from '../../schema/delta.js';
import type { PendingFrame } from '../../schema/rows/streams.js';
import type { BlockBatch, BlockRef } from '../../storage/index.js';
import { Clock } from '../clock.js';
import type { Driver, DriverDeps } from '../driver.js';
import { runStages, type StageTimes, sealStages, type Target, type Unit } from '../stage.js';
import { epochMs, type LiveTimeline } from '../timeline.js';

/** Write batches in flight while the live window is built (the next block's reads see them cached). */
const LIVE_IN_FLIGHT = 4;
/** A live block build longer than this (ms of thread time) is logged with its stage times. */
const SLOW_BLOCK_MS = 100;
/**
 * Blocks one catch-up batch holds at most. Transfer chain, three rounds (bench/results/
 * engine-thread-2026-11-29-seventh.md): 1, 8 and 32 blocks reached head in 10.47, 10.27 and 10.23 s
 * mean, at a peak RSS of 1,027, 1,038 and 1,088 MiB: 8 takes most of the time for little memory.
 */
export const LIVE_GROUP_BLOCKS = 8;
/** Bytes (keys and values) past which a catch-up batch commits after its current block. */
export const LIVE_GROUP_BYTES = 4 * 1024 * 1024;

/** A built block of the open batch, waiting for the batch's commit. */
interface Built {
  d: BlockDelta;
  frames: PendingFrame[] | null;
  timeline: LiveTimeline;
  clock: Clock;
}

/** The open live batch: one block, or several while catching up. */
interface Group {
  batch: BlockBatch;
  /** Projections applied in this batch (those caught up when it opened). */
  live: Projection[];
  blocks: Built[];
}

/** The live driver. */
export function createLiveDriver(deps: DriverDeps): Driver {
  const { store, registry, log } = deps;
  let group: Group | null = null;

  const refOf = (b: Built): BlockRef => ({ number: b.d.number, hash: b.d.hash });

  /**
   * Writes the open batch: its last block sealed (checkpoints), every block's frames appended in
   * order; each block's commit event and the frames go out once the writer thread committed it.
   * @returns the thread time of the hand-over to the writer, ms.
   */
  const commit = (g: Group): number => {
    group = null;
    const last = g.blocks[g.blocks.length - 1];
    const ref = refOf(last);
    const meta: Record<string, unknown> = {};
    for (const p of g.live) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: ref.number };
    const streams = deps.streams;
    const committed = streams
      ? g.blocks.flatMap((b) => streams.log.append(g.batch, b.d.number, b.frames ?? []))
      : [];
    const t = performance.now();
    // Stamped before the hand-over: a block alone in the write queue commits before commitBatch
    // returns (storage/writer.ts), its callback included.
    const built = epochMs();
    for (const b of g.blocks) b.timeline.built = built;
    store.commitBatch(ref, g.batch, meta, (marks) => {
      const visible = epochMs();
      for (const b of g.blocks) {
        b.timeline.visible = visible;
        b.timeline.writer = marks;
        deps.onCommit?.({ kind: 'block', block: b.d, stages: b.clock.stages, timeline: b.timeline });
      }
      streams?.hub.publish(committed);
    });
    const write = performance.now() - t;
    last.clock.stages.write = Math.round(write * 10) / 10;
    last.clock.busy += write;
    for (const p of g.live) registry.setCheckpoint(p.name, ref.number);
    return write;
  };

  const warnIfSlow = (d: BlockDelta, clock: Clock) => {
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
  };

  /** Drops the open batch unwritten (its blocks are fetched again). */
  const drop = () => {
    group = null;
  };

  return {
    mode: 'live',
    undo: true,
    inFlight: LIVE_IN_FLIGHT,
    state: 'following',
    framesAt: () => true,
    async execute(u: Unit) {
      const d = u.d;
      const timeline: LiveTimeline = { ...u.fetched, ready: epochMs(), built: 0, visible: 0 };
      const g = (group ??= {
        batch: store.newBatch(),
        live: registry.live(d.number > 0 ? d.number - 1 : null),
        blocks: [],
      });
      // The block before, built into this batch, ends here (its canonical row and undo record):
      // only now is it known not to be the batch's last, which commitBatch seals.
      const prev = g.blocks.length ? refOf(g.blocks[g.blocks.length - 1]) : null;
      if (prev) store.endBlock(prev, g.batch);
      const target: Target = {
        batch: g.batch,
        projections: g.live,
        clock: new Clock(),
        frames: deps.streams ? [] : null,
        parent: () => prev ?? store.head(),
        detached: async () => {
          drop();
          // The node moved under the open batch (nothing of it is written; planned again)...
          if (prev)
            log.warn({ chain: deps.chain, block: d.number }, 'live catch-up batch discarded: the node moved');
          // ...or the block does not attach to what the store holds.
          else await deps.unwinder.toNode();
        },
      };
      // A block that fails part-way, or a seal, leaves part of its rows in the batch: the batch is
      // dropped unwritten (its blocks are fetched again).
      let outcome: Awaited<ReturnType<typeof runStages>>['outcome'];
      let times: StageTimes;
      try {
        ({ outcome, times } = await runStages(deps.stages, u, target));
        // Each block is sealed on its own (a projection's fold over a range of one), so that its
        // undo record holds everything it wrote.
        if (outcome === 'next') outcome = await sealStages(deps.stages, target, times);
        // The rows the decode worker encoded while the stages ran (an early task's), before the
        // block ends: their undo entries are this block's.
        if (outcome === 'next' && g.batch.latePending) {
          const asked = epochMs();
          await g.batch.settleLate();
          timeline.rows = { asked, in: epochMs() };
          times.rows = timeline.rows.in - asked;
        }
      } catch (err) {
        drop();
        throw err;
      }
      if (outcome === 'replan') {
        drop();
        return outcome;
      }
      g.blocks.push({ d, frames: target.frames, timeline, clock: target.clock });
      if (u.last || g.blocks.length >= LIVE_GROUP_BLOCKS || g.batch.bytes >= LIVE_GROUP_BYTES)
        times.commit = commit(g);
      deps.onStageTimes?.('live', times);
      warnIfSlow(d, target.clock);
      return outcome;
    },
    async flush() {
      // The run ended between blocks: what the open batch holds is whole blocks.
      if (group?.blocks.length) commit(group);
      group = null;
    },
    open: () => {
      const g = group;
      if (!g?.blocks.length) return null;
      return { from: g.blocks[0].d.number, blocks: g.blocks.length, bytes: g.batch.bytes };
    },
  };
}
