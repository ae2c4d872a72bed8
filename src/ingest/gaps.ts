/**
 * Ingest gaps: ranges a lane could not fill (a trace the node cannot give, a reorg deeper than
 * the unfinalised window). Open gaps are retried; resolved gaps stay listed for audit.
 */
import type { Store } from '../storage/index.js';
import { prefixEnd } from '../storage/keys.js';
import { gapKey, gapPrefix } from '../storage/tables.js';

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
  store.rocks.write([{ key: gapKey(gap.lane, gap.fromBlock), value: Buffer.from(JSON.stringify(row)) }]);
  return row;
}

export function resolveGap(store: Store, lane: string, fromBlock: number): void {
  const key = gapKey(lane, fromBlock);
  const v = store.rocks.get(key);
  if (!v) return;
  const row = JSON.parse(v.toString()) as Gap;
  row.status = 'resolved';
  row.resolvedAt = Math.floor(Date.now() / 1000);
  store.rocks.write([{ key, value: Buffer.from(JSON.stringify(row)) }]);
}

export function openGaps(store: Store): Gap[] {
  const p = gapPrefix();
  return store.rocks
    .scan({ gte: p, lt: prefixEnd(p) })
    .map(([, v]) => JSON.parse(v.toString()) as Gap)
    .filter((g) => g.status === 'open');
}
