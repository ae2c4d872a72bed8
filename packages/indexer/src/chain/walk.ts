/**
 * One page of a key-ordered walk over a table, as every paged chain read does it. The resume key a
 * page hands out is the key's tail after a fixed prefix (for block-scoped tables the index inside
 * the block), the same bytes the routes minted before the readers existed, so cursors minted by an
 * earlier build of this service stay valid.
 */
import type { TableCursor } from '../schema/cursor.js';
import type { Bounds, Prefix, View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';

/**
 * Walks `range` of the table of cursor `c` (src/schema/cursors.ts) in the page's order, resuming
 * strictly after the cursor, and offers each row (mapped by `row`; null rows count toward the page
 * but are not shown) to `sink` until it refuses one. `prefix` names the leading key parts every
 * row of the walk shares (as many as the cursor's `under`); the resume key is the cursor's tail.
 */
export function walkPage<K extends unknown[], V, R>(
  view: View,
  c: TableCursor<K, V>,
  prefix: Prefix<K>,
  range: Omit<Bounds<K>, 'after' | 'resume' | 'reverse' | 'limit'>,
  q: PageQuery,
  sink: PageSink<R>,
  row: (value: V, key: K) => R | null,
): void {
  view.each(
    c.table,
    {
      ...range,
      resume: { under: prefix, suffix: q.after },
      reverse: q.order === 'desc',
    },
    // The raw key is only valid inside the callback: the sink may keep the resume key.
    (value, key, raw) => sink(row(value, key), c.tail(raw)),
  );
}
