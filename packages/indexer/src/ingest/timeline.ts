/**
 * The timeline of one live block through ingest (issue T, profile C): where the time between the
 * follower seeing a new head and the block being visible to reads goes, queue by queue.
 *
 *   seen      the head poll (eth_blockNumber) returned a head that includes the block
 *   posted    its decode task was handed to the pool
 *   marks     the decode worker's own steps (FetchMarks: start, fetched, verified, shaped, encoded)
 *   received  the task's answer reached the ingest thread (the await resumed)
 *   ready     state rows prefetched and the writer thread within its in-flight bound
 *   built     the stages ran (link, prepare, apply) and the batch went to the writer thread
 *   rows      (within build) the wait for the rows the decode worker encoded while the stages ran
 *   writer    the writer thread's marks (WriterMarks): the batch received, its ops applied to the
 *             native batch, written (RocksDB holds it)
 *   visible   the engine thread heard of it and the commit callback ran
 *
 * All times are epoch milliseconds with sub-millisecond precision, comparable across threads.
 * Before `seen` lies the node-side wait (the block at the node, not yet polled), which only an
 * outside observer can time (bench/live-shape.ts: head-to-queryable minus `total`).
 */
import type { FetchMarks } from '../schema/delta.js';
import type { WriterMarks } from '../storage/index.js';

export { epochMs } from '../workers/decode/fetch-blocks.js';

/** One live block's steps, epoch milliseconds (see the module comment). */
export interface LiveTimeline {
  seen: number;
  posted: number;
  marks?: FetchMarks;
  received: number;
  ready: number;
  built: number;
  /**
   * Within `build`: the build asked for the block's late rows (an early decode task's, encoded by
   * the worker while the stages ran) and had them. Absent when the rows came with the block.
   */
  rows?: { asked: number; in: number };
  /** The writer thread's marks (absent with a sync writer). */
  writer?: WriterMarks;
  visible: number;
}

/**
 * The intervals reported, in order: `plan` seen→posted (finality read, planning), `queue`
 * posted→worker start (pool queue), `fetch` (node reads of block and receipts), `verify` (roots),
 * `shape` (shaping and probe reads), `encode` (row buffers), `handoff` encoded→received (transfer
 * and the ingest thread's turn), `wait` received→ready (multi-get, writer backpressure, earlier
 * blocks of the same task), `build` ready→built (the stages on the ingest thread, with its pauses
 * for reads), `rows` the part of build spent waiting for the worker's late rows, `write` built→visible, split into `post` built→received by the writer thread (the
 * transfer and its queue), `puts` (ops into the native batch), `commit` (RocksDB's write) and `ack`
 * written→visible (the answer's way back and the engine's turn), and `total` seen→visible.
 */
export const LIVE_STAGES = [
  'plan',
  'queue',
  'fetch',
  'verify',
  'shape',
  'encode',
  'handoff',
  'wait',
  'build',
  'rows',
  'write',
  'post',
  'puts',
  'commit',
  'ack',
  'total',
] as const;
export type LiveStage = (typeof LIVE_STAGES)[number];

/**
 * The intervals of a finished timeline, milliseconds by stage (never negative: clocks of two
 * threads may disagree by a few microseconds). Without worker marks, the worker's stages are
 * folded into `handoff` (posted→received minus nothing) and `queue`…`encode` are 0.
 */
export function stageIntervals(t: LiveTimeline): Record<LiveStage, number> {
  const d = (a: number, b: number) => Math.max(0, b - a);
  const m = t.marks;
  const w = t.writer;
  return {
    plan: d(t.seen, t.posted),
    queue: m ? d(t.posted, m.start) : 0,
    fetch: m ? d(m.start, m.fetched) : 0,
    verify: m ? d(m.fetched, m.verified) : 0,
    shape: m ? d(m.verified, m.shaped) : 0,
    encode: m ? d(m.shaped, m.encoded) : 0,
    handoff: d(m ? m.encoded : t.posted, t.received),
    wait: d(t.received, t.ready),
    build: d(t.ready, t.built),
    rows: t.rows ? d(t.rows.asked, t.rows.in) : 0,
    write: d(t.built, t.visible),
    post: w ? d(t.built, w.received) : 0,
    puts: w ? d(w.received, w.applied) : 0,
    commit: w ? d(w.applied, w.written) : 0,
    ack: w ? d(w.written, t.visible) : 0,
    total: d(t.seen, t.visible),
  };
}
