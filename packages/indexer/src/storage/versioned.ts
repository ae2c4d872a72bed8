/**
 * Walks of block-versioned ordered indices: a current table `cur` whose rows are
 * `prefix ‖ sortKey → fromBlock (+ payload)` and a history table `hist` whose rows are
 * `prefix ‖ sortKey ‖ fromBlock → toBlock (+ payload)`. A version is valid at anchor A when
 * fromBlock ≤ A < toBlock (current rows: toBlock = ∞). Reading both in sort-key order and merging
 * gives the exact order of block A, whatever happened since (R2: a walk keeps its anchor).
 */
import { DomainError } from '../errors/index.js';
import type { Table } from '../schema/table.js';
import type { View } from './view.js';

/**
 * Rows one request may examine in versioned walks, skipped ones included (VERSIONED_WALK_BUDGET
 * overrides, for tests). A cursor replayed long after its anchor walks every version written since
 * without returning it; past this many rows the request is refused with `walk_budget_exceeded`
 * (restart from page one, at the head, where no history row is walked). 50,000 rows are tens of
 * milliseconds of synchronous reads.
 */
export const VERSIONED_WALK_BUDGET_ROWS = Number(process.env.VERSIONED_WALK_BUDGET ?? 50_000);
/** Rows examined so far by the request reading through each view (a view is one request's). */
const examined = new WeakMap<View, number>();

/** Counts one examined row against the request's budget. @throws DomainError walk_budget_exceeded. */
function examine(view: View, anchor: number): void {
  const n = (examined.get(view) ?? 0) + 1;
  examined.set(view, n);
  if (n > VERSIONED_WALK_BUDGET_ROWS)
    throw new DomainError(
      'walk_budget_exceeded',
      `this page would examine more than ${VERSIONED_WALK_BUDGET_ROWS} rows to read as of block ${anchor} (the cursor's anchor or the atBlock asked for; rows changed since are skipped one by one); restart the walk from page one, or ask for a more recent block`,
      { anchorBlock: anchor, budgetRows: VERSIONED_WALK_BUDGET_ROWS },
    );
}

/** A row valid at the anchor: its sort key (raw bytes after the prefix) and its value. */
export interface VersionedRow<V> {
  sortKey: Buffer;
  value: V;
}

export interface VersionedWalk<KC extends unknown[], VC, KH extends unknown[], VH> {
  cur: Table<KC, VC>;
  hist: Table<KH, VH>;
  /** Leading key parts shared by both tables (e.g. the token). */
  prefix: unknown[];
  /** Byte width of the sort key after the prefix (history keys add the u64 fromBlock). */
  sortKeyLen: number;
  /** Block number of a current row's value (its fromBlock). */
  fromOf: (v: VC) => number;
  /** Block number of a history row's value (its toBlock). */
  toOf: (v: VH) => number;
  anchor: number;
  /** Resume strictly after this sort key (cursor), or from the start. */
  after: Buffer | null;
  reverse: boolean;
  /** Rows wanted (page limit + 1 to know whether more exist). */
  want: number;
  /** Last block any row of this subject changed; when ≤ anchor, history cannot matter. */
  lastChangeBlock: number;
}

/**
 * Rows valid at `w.anchor`, merged in sort-key order, at most `w.want`. Current and history
 * values are returned as their tables decode them (`VC | VH`). Every row examined (kept or
 * skipped) counts against the request's {@link VERSIONED_WALK_BUDGET_ROWS}.
 * @throws DomainError walk_budget_exceeded (409) past the budget.
 */
export function walkVersioned<KC extends unknown[], VC, KH extends unknown[], VH>(
  view: View,
  w: VersionedWalk<KC, VC, KH, VH>,
): Array<VersionedRow<VC | VH>> {
  const curPrefix = (w.cur.prefix as (...k: unknown[]) => Buffer)(...w.prefix);
  const histPrefix = (w.hist.prefix as (...k: unknown[]) => Buffer)(...w.prefix);
  const bounds = (prefixBytes: Buffer, isHist: boolean) => {
    if (!w.after) return { prefix: w.prefix as never, reverse: w.reverse };
    const at = Buffer.concat([prefixBytes, w.after]);
    if (w.reverse) return { prefix: w.prefix as never, reverse: true, after: at };
    // History keys extend the sort key with fromBlock: resume past every version of `after`.
    return { prefix: w.prefix as never, after: isHist ? Buffer.concat([at, Buffer.alloc(8, 0xff)]) : at };
  };
  const cur: Array<VersionedRow<VC>> = [];
  const pl = curPrefix.length;
  view.eachValue(w.cur, bounds(curPrefix, false), (v, k) => {
    examine(view, w.anchor);
    if (w.fromOf(v) > w.anchor) return true;
    cur.push({ sortKey: Buffer.from(k.subarray(pl, pl + w.sortKeyLen)), value: v });
    return cur.length < w.want;
  });
  if (w.lastChangeBlock <= w.anchor) return cur;
  const hist: Array<VersionedRow<VH>> = [];
  const hl = histPrefix.length;
  view.eachValue(w.hist, bounds(histPrefix, true), (v, k) => {
    examine(view, w.anchor);
    const from = k.readUInt32BE(hl + w.sortKeyLen) * 0x1_0000_0000 + k.readUInt32BE(hl + w.sortKeyLen + 4);
    if (from > w.anchor || w.toOf(v) <= w.anchor) return true;
    hist.push({ sortKey: Buffer.from(k.subarray(hl, hl + w.sortKeyLen)), value: v });
    return hist.length < w.want;
  });
  const out: Array<VersionedRow<VC | VH>> = [];
  let i = 0;
  let j = 0;
  const sign = w.reverse ? -1 : 1;
  while (out.length < w.want && (i < cur.length || j < hist.length)) {
    if (j >= hist.length || (i < cur.length && sign * cur[i].sortKey.compare(hist[j].sortKey) < 0))
      out.push(cur[i++]);
    else out.push(hist[j++]);
  }
  return out;
}
