/** The start-up check of every invariant the table registry declares (habit 6). */
import type { InvariantReader } from '../schema/table.js';
import { ALL_TABLES } from '../schema/tables/index.js';
import type { Store } from './store-types.js';

/**
 * Start-up invariant checks (docs/CONTRIBUTING.md habit 6): runs every invariant declared by a table of the
 * registry and returns their names; refuses to start (throws) on the first broken one.
 * @throws Error naming the invariant and what is broken.
 */
export function checkInvariants(store: Store): string[] {
  const view = store.view();
  const reader: InvariantReader = {
    head: () => view.head,
    get: (t, ...key) => view.get(t, ...key),
    each: (t, prefix, visit) => view.each(t, { prefix }, (v, k) => visit(v, k)),
  };
  const checked: string[] = [];
  try {
    for (const t of ALL_TABLES)
      for (const inv of t.invariants) {
        const broken = inv.check(reader);
        if (broken) throw new Error(`storage invariant ${inv.name} broken (${inv.doc}): ${broken}`);
        checked.push(inv.name);
      }
  } finally {
    view.close();
  }
  return checked;
}
