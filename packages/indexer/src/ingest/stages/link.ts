/**
 * Stage `link`: does the block attach to what the target holds (number and parent hash)? When it
 * does not, the driver is told (a history segment is dropped unwritten, or the store is unwound to
 * the node's chain) and the run is planned again. Nothing to unwind: it writes nothing.
 */
import type { Outcome, Stage } from '../stage.js';

/** The link stage. Source: the block's `parentHash` (eth_getBlockByNumber) against the target's parent. */
export function createLinkStage(): Stage {
  return {
    name: 'link',
    async execute(u, t): Promise<Outcome> {
      const p = t.parent();
      if (!p || (u.d.number === p.number + 1 && u.d.parentHash === p.hash)) return 'next';
      await t.detached(u);
      return 'replan';
    },
  };
}
