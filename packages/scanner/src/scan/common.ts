/**
 * Small helpers shared by the scan findings: bounded collection of a reader's page walk, shares
 * as exact fractions, and the label rules (venues, exchanges, bridges) the findings apply.
 */
import { boundedRows } from '@chain-indexer/platform/lists';
import type { ReadCtx, ScanPage } from '../index-port.js';

/** A page walk of a reader, as a function of its page and sink. */
export type Walk<R> = (page: ScanPage, sink: (row: R | null, resumeKey: Buffer) => boolean) => void;

/**
 * Collects at most `limit` rows of a reader's walk at anchor `at` (filtered rows skipped);
 * `more` is true when the walk had rows past the bound.
 */
export function collect<R>(
  walk: Walk<R>,
  at: number,
  limit: number,
  order: 'asc' | 'desc' = 'asc',
): { rows: R[]; more: boolean } {
  const b = boundedRows<R>(limit);
  walk({ at, after: null, order, limit: limit + 1 }, (row) => b.visit(row));
  return { rows: b.rows, more: b.cut };
}

/** An exact share `part / whole` with its value in basis points (floored); null when whole ≤ 0. */
export interface Share {
  numerator: string;
  denominator: string;
  /** Floor of 10,000 × numerator / denominator. */
  bps: number;
}

/** {@link Share} of `part` in `whole` (null when whole is not positive). */
export function shareOf(part: bigint, whole: bigint): Share | null {
  if (whole <= 0n) return null;
  return { numerator: part.toString(), denominator: whole.toString(), bps: Number((part * 10_000n) / whole) };
}

/** Labels that make an address a trading venue (pool or launchpad curve), as the addresses reader publishes them. */
export const isVenueLabel = (label: string) => label === 'pool' || label.startsWith('launchpad:');

/** Labels a funding chain stops at: an exchange or a bridge (from LABELS_FILE), case-insensitive. */
export function stopLabel(labels: ReadonlyArray<{ label: string }>): 'exchange' | 'bridge' | null {
  for (const { label } of labels) {
    const l = label.toLowerCase();
    if (l === 'exchange' || l.startsWith('exchange:') || l === 'cex' || l.startsWith('cex:'))
      return 'exchange';
    if (l === 'bridge' || l.startsWith('bridge:')) return 'bridge';
  }
  return null;
}

/** Whether `address` carries a venue label at the anchor. */
export const isVenue = (rc: ReadCtx, address: string): boolean =>
  rc.readers.addresses.labels(rc.view, address, rc.anchor.block).some((l) => isVenueLabel(l.label));

/** A coordinate comparison: block, then transaction index, then log index (null first). */
export const byCoordinate = (
  a: { block: number; txIndex: number; logIndex: number | null },
  b: { block: number; txIndex: number; logIndex: number | null },
) => a.block - b.block || a.txIndex - b.txIndex || (a.logIndex ?? -1) - (b.logIndex ?? -1);
