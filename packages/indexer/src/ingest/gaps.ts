/**
 * Ingest gaps: ranges a lane could not fill (a trace the node cannot give, a reorg deeper than
 * the unfinalised window). Open gaps are retried; resolved gaps stay listed for audit.
 */

import { GAP, type GapRecord } from '../schema/tables/chain.js';
import type { Store } from '../storage/index.js';

/** One gap row as served by `/gaps`. Block numbers inclusive. */
export interface Gap {
  lane: string;
  fromBlock: number;
  toBlock: number;
  status: 'open' | 'resolved';
  reason: string;
  /** Unix seconds. */
  openedAt: number;
  resolvedAt: number | null;
}

export function recordGap(store: Store, gap: Omit<Gap, 'status' | 'openedAt' | 'resolvedAt'>): Gap {
  const row: Gap = { ...gap, status: 'open', openedAt: Math.floor(Date.now() / 1000), resolvedAt: null };
  store.putProcess(GAP, [gap.lane, gap.fromBlock], row as unknown as GapRecord);
  return row;
}

export function resolveGap(store: Store, lane: string, fromBlock: number): void {
  const view = store.view();
  const v = view.get(GAP, lane, fromBlock) as unknown as Gap | undefined;
  view.close();
  if (!v) return;
  const row: Gap = { ...v, status: 'resolved', resolvedAt: Math.floor(Date.now() / 1000) };
  store.putProcess(GAP, [lane, fromBlock], row as unknown as GapRecord);
}

export function openGaps(store: Store): Gap[] {
  const view = store.view();
  const out: Gap[] = [];
  view.each(GAP, {}, (v) => {
    if (v.status === 'open') out.push(v as unknown as Gap);
    return true;
  });
  view.close();
  return out;
}
