/**
 * The history driver: blocks the node calls final (finality.ts) go into one batch per *segment*
 * of many blocks. The batch keeps no undo record and reads no prior values; every key it writes is
 * written once per segment, however many blocks changed it; stream frames are made only for the
 * last `historyFrameBlocks` blocks before the hand-over (older frames would have left the catch-up
 * ring before any consumer could ask for them). The segment's batch is sealed after its last block
 * (stage.ts sealStages: what projections fold over the segment is written then). A segment commits
 * as one atomic write with its checkpoints and the end of history (the rollback floor), so a crash
 * leaves all of it or none; a block or a seal that fails part-way drops the open segment unwritten.
 */
import type { Projection } from '../../projections/index.js';
import type { PendingFrame } from '../../schema/rows/streams.js';
import { type BlockBatch, type BlockRef, nextSlice, turnBudget } from '../../storage/index.js';
import type { Frame } from '../../streams/log.js';
import { Clock } from '../clock.js';
import type { Driver, DriverDeps } from '../driver.js';
import { HISTORY_END_META, runStages, sealStages, type Target, type Unit } from '../stage.js';

/** History segments in flight at the writer thread while the next one is built. */
const SEGMENTS_IN_FLIGHT = 1;

/** The open history segment: one batch across many final blocks. */
interface Segment {
  batch: BlockBatch;
  from: number;
  /** The last block applied into the segment (the store's head when none yet). */
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

/** Bounds of a segment (SEGMENT_MB, SEGMENT_BLOCKS) and the frame tail (HISTORY_FRAME_BLOCKS). */
export interface HistoryBounds {
  segmentBytes: number;
  segmentBlocks: number;
  historyFrameBlocks: number;
}

/** What a seal of segment `s`'s batch needs (stage.ts sealStages). */
const sealTarget = (s: Segment) => ({ batch: s.batch, projections: s.live, clock: s.clock });

/** The history driver. */
export function createHistoryDriver(deps: DriverDeps, bounds: HistoryBounds): Driver {
  const { store, registry, log } = deps;
  let segment: Segment | null = null;

  const openSegment = (n: number): Segment =>
    (segment ??= {
      batch: store.newBatch({ undo: false }),
      from: n,
      last: store.head(),
      blocks: 0,
      txs: 0,
      logs: 0,
      frames: [],
      live: registry.live(n > 0 ? n - 1 : null),
      clock: new Clock(),
    });

  /**
   * Writes the open segment: one atomic batch with its checkpoints and the history end. Its
   * blocks' frames are appended block by block, yielding between them; the writer queue then
   * encodes the batch in chunks (storage/writer.ts).
   */
  const commitSegment = async (s: Segment) => {
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
        if (performance.now() - slice <= turnBudget()) continue;
        await nextSlice();
        slice = performance.now();
      }
    }
    const bytes = s.batch.bytes;
    // The status moves first, then the frames go out (with it, from an engine thread).
    store.commitBatch(last, s.batch, meta, () => {
      const write = Math.round((performance.now() - t) * 10) / 10;
      deps.onCommit?.({
        kind: 'segment',
        from: s.from,
        to: last.number,
        txs: s.txs,
        logs: s.logs,
        bytes,
        stages: { ...s.clock.stages, write },
      });
      deps.streams?.hub.publish(committed);
    });
    for (const p of s.live) registry.setCheckpoint(p.name, last.number);
  };

  return {
    mode: 'history',
    undo: false,
    inFlight: SEGMENTS_IN_FLIGHT,
    state: 'backfilling',
    framesAt: (n, handOver) => n > handOver - bounds.historyFrameBlocks,
    async execute(u: Unit) {
      const s = openSegment(u.d.number);
      const target: Target = {
        batch: s.batch,
        projections: s.live,
        clock: s.clock,
        frames: deps.streams && u.frames ? [] : null,
        parent: () => s.last,
        detached: async () => {
          segment = null;
          // The node's final chain moved under the open segment (nothing of it is written)...
          if (s.blocks > 0)
            log.warn({ chain: deps.chain, block: u.d.number }, 'history segment discarded: the node moved');
          // ...or the first block of a run does not attach to what the store holds.
          else await deps.unwinder.toNode();
        },
      };
      // A block that fails part-way leaves part of its rows in the batch: the segment is dropped
      // unwritten (nothing of it reached the store; its blocks are fetched again).
      const { outcome, times } = await runStages(deps.stages, u, target).catch((err: unknown) => {
        segment = null;
        throw err;
      });
      if (outcome === 'replan') {
        segment = null; // dropped unwritten: its blocks are fetched again
        return outcome;
      }
      s.last = { number: u.d.number, hash: u.d.hash };
      s.blocks++;
      s.txs += u.d.txs.length;
      s.logs += u.d.logs.length;
      if (target.frames?.length) s.frames.push([u.d.number, target.frames]);
      if (u.last || s.blocks >= bounds.segmentBlocks || s.batch.bytes >= bounds.segmentBytes) {
        // Closed before the seal: a seal that asks to plan again, or fails part-way (what it wrote
        // cannot be sealed a second time), drops the segment unwritten, as above.
        segment = null;
        if ((await sealStages(deps.stages, sealTarget(s), times)) === 'replan') return 'replan';
        const t0 = performance.now();
        await commitSegment(s);
        times.commit = performance.now() - t0;
      }
      deps.onStageTimes?.('history', times);
      return outcome;
    },
    async flush() {
      const s = segment;
      segment = null; // closed before the seal (see execute)
      if (s?.blocks && (await sealStages(deps.stages, sealTarget(s))) === 'next') await commitSegment(s);
    },
    open: () => (segment ? { from: segment.from, blocks: segment.blocks, bytes: segment.batch.bytes } : null),
  };
}
