/**
 * Start-up invariant checks (CONVENTIONS habit 6): repair or refuse, never serve wrong data.
 *  - The checkpoint's block has a canonical row with the same hash and a header.
 *  - The checkpoint block has an undo record (every commit writes one), so the head can be
 *    rolled back if the node reorganised while we were down.
 */
import type { Logger } from 'pino';
import type { Store } from './index.js';
import { headerKey, undoKey } from './tables.js';

export function checkInvariants(store: Store, log: Logger): void {
  const head = store.head();
  if (!head) return;
  const canon = store.canonicalHash(head.number);
  if (canon !== head.hash) {
    throw new Error(
      `storage invariant broken: checkpoint ${head.number} ${head.hash} but canonical row is ${canon}`,
    );
  }
  if (!store.rocks.get(headerKey(head.number))) {
    throw new Error(`storage invariant broken: no header for checkpoint block ${head.number}`);
  }
  if (!store.rocks.get(undoKey(head.number))) {
    throw new Error(`storage invariant broken: no undo record for the checkpoint block ${head.number}`);
  }
  log.info({ head }, 'storage invariants hold');
}
