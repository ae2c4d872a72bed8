/**
 * The one page walk of the wallet tables: rows of one wallet (the key's first part) in chain
 * order, up to the page's anchor block, resuming strictly after the cursor. Every wallet table
 * walked by pages is keyed (wallet, block u64, …): the resume key is the declared cursor's tail
 * (src/schema/cursors.ts: the key after the wallet), so cursors of earlier builds stay valid.
 */
import { boundedRows } from '@chain-indexer/platform/lists';
import type { TableCursor } from '../schema/cursor.js';
import type { Table, View } from '../storage/index.js';
import type { PageQuery } from '../storage/page.js';

export type Hex = `0x${string}`;
/** Lowercase `0x` hex, the key form of addresses. */
export const hexOf = (a: string) => a.toLowerCase() as Hex;

/**
 * Visits the rows of `wallet` in the table of cursor `c` whose block (second key part) is at most
 * `page.at`, in the page's order, resuming after `page.after`; `visit` gets the value, the decoded
 * key and the resume key (the cursor's tail), and returns false to stop.
 */
export function walletWalk<K extends [Hex, number, ...unknown[]], V>(
  view: View,
  c: TableCursor<K, V>,
  wallet: string,
  page: PageQuery,
  visit: (value: V, key: K, resume: Buffer) => boolean,
): void {
  const w = hexOf(wallet);
  view.each(
    c.table,
    {
      prefix: [w] as never,
      lte: [w, page.at] as never,
      reverse: page.order === 'desc',
      resume: { under: [w] as never, suffix: page.after },
    },
    (v, k, raw) => visit(v, k, c.tail(raw)),
  );
}

/**
 * Visits every row of `wallet` in key order (filter `keep` decides what counts), up to `bound`
 * kept rows; `truncated` says the bound cut the list.
 */
export function boundedList<K extends unknown[], V, R>(
  view: View,
  t: Table<K, V>,
  prefix: unknown[],
  bound: number,
  keep: (value: V, key: K) => R | null,
): { rows: R[]; truncated: boolean } {
  const b = boundedRows<R>(bound);
  view.each(t, { prefix: prefix as never }, (v, k) => b.visit(keep(v, k)));
  return { rows: b.rows, truncated: b.cut };
}
