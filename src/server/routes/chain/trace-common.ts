/** Trace coverage of one transaction, shared by the internal-transfer and call-tree routes. */

import type { TxLocation } from '../../../ingest/apply.js';
import { type TraceStatus, traceStatusKey } from '../../../ingest/traces.js';
import { ApiError } from '../../errors.js';
import type { ChainContext } from '../../route.js';

export type Coverage =
  | { coverage: 'retained'; status: Extract<TraceStatus, { status: 'retained' }> }
  | { coverage: 'not_available'; reason: string };

/**
 * Whether the call tree of the transaction at `loc` is retained. Not yet traced (the lane is
 * behind) is a typed 503; a lane that cannot trace, or a trace the node could not give, is
 * `not_available` with a reason.
 * @throws ApiError projection_unavailable while the traces lane has not reached the block.
 */
export function coverageOf(chain: ChainContext, loc: TxLocation): Coverage {
  const lane = chain.traces.status();
  if (lane.state !== 'following') return { coverage: 'not_available', reason: lane.reason ?? lane.state };
  const v = chain.store.rocks.get(traceStatusKey(loc.number, loc.txIndex));
  if (!v) {
    if (lane.checkpoint === null || lane.checkpoint < loc.number) {
      throw new ApiError(
        'projection_unavailable',
        `the traces lane has not replayed block ${loc.number} yet (at ${lane.checkpoint ?? 'none'})`,
        {
          projection: 'traces',
          status: 'building',
          checkpoint: lane.checkpoint,
        },
      );
    }
    return { coverage: 'not_available', reason: 'not_retained' };
  }
  const s = JSON.parse(v.toString()) as TraceStatus;
  return s.status === 'retained'
    ? { coverage: 'retained', status: s }
    : { coverage: 'not_available', reason: s.reason };
}
