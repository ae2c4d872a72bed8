/**
 * Ingest gaps as monitoring reads them: ranges a lane could not fill (a trace the node could not
 * give, a reorg deeper than the unfinalised window), open or resolved, written by src/ingest/gaps.ts
 * outside block batches (process rows: they describe the follower, not the chain).
 */

import { redact } from '@chain-indexer/platform/security';
import { MONITORING_GAPS } from '../schema/cursors.js';
import { GAP, type GapRecord } from '../schema/tables/chain.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import type { GapRow } from './types.js';
import { walkPage } from './walk.js';

/** Most gap rows counted by {@link openGapCount} (a bound on a monitoring read). */
export const MAX_GAPS_COUNTED = 100_000;

/**
 * The served row of a stored gap record (exactly the fields the contract names); its reason (a
 * node's error, which may quote the node's URL) through the one redaction.
 */
function gapRow(g: GapRecord): GapRow {
  const { lane, fromBlock, toBlock, status, reason, openedAt, resolvedAt } = g;
  return {
    lane,
    fromBlock,
    toBlock,
    status,
    reason: redact(reason),
    openedAt: openedAt ?? 0,
    resolvedAt: resolvedAt ?? null,
  };
}

/** One page of the gaps of every lane, by lane then first block. */
export function gaps(view: View, q: PageQuery, sink: PageSink<GapRow>): void {
  walkPage(view, MONITORING_GAPS, [], {}, q, sink, gapRow);
}

/** Open gaps of every lane, counted up to {@link MAX_GAPS_COUNTED}. */
export function openGapCount(view: View): number {
  let n = 0;
  view.eachValue(GAP, { limit: MAX_GAPS_COUNTED }, (g) => {
    if (g.status === 'open') n++;
  });
  return n;
}
