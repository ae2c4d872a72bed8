/**
 * The live driver: each block of the unfinalised window is its own batch, with its undo record
 * (a reorg may take it back) and its stream frames, committed as soon as it is built. A rollback
 * never reaches below the first live block: the end of history is recorded in the same write as
 * the last segment. The block's timeline (timeline.ts) goes with its commit event.
 */
import { Clock } from '../clock.js';
import type { Driver, DriverDeps } from '../driver.js';
import { runStages, sealStages, type Target, type Unit } from '../stage.js';
import { epochMs, type LiveTimeline } from '../timeline.js';

/** Write batches in flight while the live window is built (the next block's reads see them cached). */
const LIVE_IN_FLIGHT = 4;
/** A live block build longer than this (ms of thread time) is logged with its stage times. */
const SLOW_BLOCK_MS = 100;

/** The live driver. */
export function createLiveDriver(deps: DriverDeps): Driver {
  const { store, registry, log } = deps;
  return {
    mode: 'live',
    inFlight: LIVE_IN_FLIGHT,
    state: 'following',
    framesAt: () => true,
    async execute(u: Unit) {
      const d = u.d;
      const timeline: LiveTimeline = { ...u.fetched, ready: epochMs(), built: 0, visible: 0 };
      const live = registry.live(d.number > 0 ? d.number - 1 : null);
      const target: Target = {
        batch: store.newBatch(),
        projections: live,
        clock: new Clock(),
        frames: deps.streams ? [] : null,
        parent: () => store.head(),
        detached: () => deps.unwinder.toNode(),
      };
      const { outcome, times } = await runStages(deps.stages, u, target);
      if (outcome === 'replan') return outcome;
      // The block is its batch's last: seal it (a projection's fold over a range of one).
      if ((await sealStages(deps.stages, target, times)) === 'replan') return 'replan';
      const { batch, clock } = target;
      const meta: Record<string, unknown> = {};
      for (const p of live) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: d.number };
      const committed = deps.streams ? deps.streams.log.append(batch, d.number, target.frames ?? []) : [];
      const t = performance.now();
      store.commitBatch({ number: d.number, hash: d.hash }, batch, meta, (marks) => {
        timeline.visible = epochMs();
        timeline.writer = marks;
        deps.onCommit?.({ kind: 'block', block: d, stages: clock.stages, timeline });
        deps.streams?.hub.publish(committed);
      });
      timeline.built = epochMs();
      const write = performance.now() - t;
      clock.stages.write = Math.round(write * 10) / 10;
      clock.busy += write;
      times.commit = write;
      deps.onStageTimes?.('live', times);
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
      return outcome;
    },
    flush: async () => undefined,
    open: () => null,
  };
}
