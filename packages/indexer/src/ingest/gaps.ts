/**
 * Ingest gaps: ranges a lane could not fill (a trace the node cannot give, a reorg deeper than
 * the unfinalised window). Open gaps are retried; resolved gaps stay listed for audit.
 */

import { GAP, type Gap } from '../schema/tables/chain.js';
import type { Store } from '../storage/index.js';

export type { Gap };

export function recordGap(store: Store, gap: Omit<Gap, 'status' | 'openedAt' | 'resolvedAt'>): Gap {
  const row: Gap = { ...gap, status: 'open', openedAt: Math.floor(Date.now() / 1000), resolvedAt: null };
  store.putProcess(GAP, [gap.lane, gap.fromBlock], row);
  return row;
}

export function resolveGap(store: Store, lane: string, fromBlock: number): void {
  const view = store.view();
  const v = view.get(GAP, lane, fromBlock) as Gap | undefined;
  view.close();
  if (!v) return;
  const row: Gap = { ...v, status: 'resolved', resolvedAt: Math.floor(Date.now() / 1000) };
  store.putProcess(GAP, [lane, fromBlock], row);
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
