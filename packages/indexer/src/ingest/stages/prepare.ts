/**
 * Stage `prepare`: first-sight node reads a projection needs before it can apply the block (a new
 * token's decimals and symbol, a pool's tokens), each projection's `prepare` reading through the
 * target's batch (its own pending writes included). Nothing to unwind: what it learns is written
 * by `apply`, in the same batch.
 */
import type { Rpc } from '../../rpc/client.js';
import { batchView } from '../../storage/index.js';
import type { Outcome, Stage } from '../stage.js';

/** The prepare stage. Source: `eth_call`s the projections make (rpc). */
export function createPrepareStage(rpc: Rpc): Stage {
  return {
    name: 'prepare',
    async execute(u, t): Promise<Outcome> {
      const head = t.parent();
      const ctx = { store: { view: () => batchView(t.batch, head) }, rpc };
      for (const p of t.projections) await p.prepare?.(u.d, ctx);
      return 'next';
    },
  };
}
