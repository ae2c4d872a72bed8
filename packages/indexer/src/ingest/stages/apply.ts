/**
 * Stage `apply`: the block's chain records (headers, transactions, receipts, logs as the node
 * sent them), every caught-up projection's state transitions and the stream frames, into the
 * target's batch; its seal writes what the projections kept for the whole batch (Projection.seal)
 * once the batch's last block is in. The build yields when its slice is over the thread's turn
 * budget (clock.ts). Its unwind is the store's: each live block's batch records the prior value of
 * every key it wrote, so a rollback takes chain records, projections and frames back together
 * (unwind.ts).
 */
import type { Projection } from '../../projections/index.js';
import type { PendingFrame } from '../../schema/rows/streams.js';
import type { Store } from '../../storage/index.js';
import { applyChainRecords } from '../apply.js';
import { chainFrames } from '../frames.js';
import type { Outcome, Stage, Target } from '../stage.js';

/**
 * The apply stage.
 * @param o.unwind rolls the store back until block `to` is its head (undo records).
 * Answers 'replan' when a rollback ran during one of its pauses (the head moved): the batch is
 * dropped by the driver, nothing of it written.
 */
export function createApplyStage(o: { store: Pick<Store, 'head'>; unwind: (to: number) => void }): Stage {
  /**
   * Runs `work` of each of the target's projections (null: none for it), pausing between its slices
   * and timing it under the projection's name; 'replan' when the head moved since `head` (a
   * rollback ran during a pause).
   */
  const perProjection = async (
    t: Pick<Target, 'projections' | 'clock'>,
    head: ReturnType<Store['head']>,
    work: (p: Projection) => Iterable<void> | null,
  ): Promise<Outcome> => {
    for (const p of t.projections) {
      const slices = work(p);
      if (!slices) continue;
      for (const _ of slices) await t.clock.pause();
      await t.clock.lap(p.name);
    }
    return o.store.head()?.hash === head?.hash ? 'next' : 'replan';
  };
  return {
    name: 'apply',
    async execute(u, t): Promise<Outcome> {
      const frames = t.frames;
      const emit = frames ? (f: PendingFrame) => frames.push(f) : undefined;
      const head = o.store.head();
      t.clock.resume();
      applyChainRecords(t.batch, u.d);
      if (emit) chainFrames(u.d, emit);
      await t.clock.lap('chain');
      return perProjection(t, head, (p) => {
        if (p.steps) return p.steps(t.batch, u.d, emit);
        p.apply(t.batch, u.d, emit);
        return [];
      });
    },
    seal(t): Promise<Outcome> {
      const head = o.store.head();
      t.clock.resume();
      return perProjection(t, head, (p) => (p.seal ? p.seal(t.batch) : null));
    },
    unwind: o.unwind,
  };
}
