/**
 * Walks of block-versioned ordered indices (see src/tokens/tables.ts): current rows
 * `prefix + sortKey → fromBlock u64 + payload` and history rows
 * `histPrefix + sortKey + fromBlock u64 → toBlock u64 + payload`. A version is valid at anchor A
 * when fromBlock ≤ A < toBlock (current rows: toBlock = ∞). Reading both in sort-key order and
 * merging gives the exact order of block A, whatever happened since.
 */
import type { Rocks } from '../storage/index.js';
import { prefixEnd, readU64 } from '../storage/keys.js';

export interface VersionedRow {
  sortKey: Buffer;
  payload: Buffer;
}

export interface VersionedWalk {
  curPrefix: Buffer;
  histPrefix: Buffer;
  sortKeyLen: number;
  anchor: number;
  /** Resume strictly after this sort key (cursor), or from the start. */
  after: Buffer | null;
  reverse: boolean;
  /** Rows wanted (page limit + 1 to know whether more exist). */
  want: number;
  /** Last block any row of this subject changed; when ≤ anchor, history cannot matter. */
  lastChangeBlock: number;
}

export function walkVersioned(rocks: Rocks, w: VersionedWalk): VersionedRow[] {
  const range = (prefix: Buffer, isHist: boolean) => {
    const lo = prefix;
    const hi = prefixEnd(prefix);
    if (!w.after) return w.reverse ? { gte: lo, lt: hi, reverse: true } : { gte: lo, lt: hi };
    const at = Buffer.concat([prefix, w.after]);
    if (w.reverse) return { gte: lo, lt: at, reverse: true };
    return isHist ? { gte: prefixEnd(at), lt: hi } : { gt: at, lt: hi };
  };
  const cur: VersionedRow[] = [];
  const pl = w.curPrefix.length;
  rocks.each(range(w.curPrefix, false), (k, v) => {
    if (readU64(v, 0) > w.anchor) return true;
    cur.push({
      sortKey: Buffer.from(k.subarray(pl, pl + w.sortKeyLen)),
      payload: Buffer.from(v.subarray(8)),
    });
    return cur.length < w.want;
  });
  if (w.lastChangeBlock <= w.anchor) return cur;
  const hist: VersionedRow[] = [];
  const hl = w.histPrefix.length;
  rocks.each(range(w.histPrefix, true), (k, v) => {
    const from = readU64(k, hl + w.sortKeyLen);
    const to = readU64(v, 0);
    if (from > w.anchor || to <= w.anchor) return true;
    hist.push({
      sortKey: Buffer.from(k.subarray(hl, hl + w.sortKeyLen)),
      payload: Buffer.from(v.subarray(8)),
    });
    return hist.length < w.want;
  });
  const out: VersionedRow[] = [];
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
