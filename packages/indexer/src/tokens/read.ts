/**
 * Reads of the tokens projection as of an anchor block (R1/R2), through a request's view.
 * Mutable state is read through per-block history rows (latest row ≤ anchor), so a walk at an
 * older anchor sees that block.
 */

import type { LaunchRow, TokenRow, TokenStats } from '../schema/rows/tokens.js';
import { BALANCE_HIST, LAUNCH_HIST, STATS_HIST, TOKEN } from '../schema/tables/tokens.js';
import type { View } from '../storage/index.js';

type Hex = `0x${string}`;

/** The token row if the token was first seen at or before `anchor`. */
export function tokenAt(view: View, address: string, anchor: number): TokenRow | null {
  const row = view.get(TOKEN, address as Hex);
  if (!row || row.firstSeen.block > anchor) return null;
  if (row.confirmedAt && row.confirmedAt.block > anchor) row.confirmedAt = null;
  return row;
}

/** Per-token counters as of the end of block `anchor` (null before the token's first transfer). */
export function statsAt(view: View, token: string, anchor: number): TokenStats | null {
  return (
    view.first(STATS_HIST, { prefix: [token as Hex], lte: [token as Hex, anchor], reverse: true })?.value ??
    null
  );
}

/** Signed balance (base units) of `wallet` in `token` at the end of block `anchor`. */
export function balanceAt(view: View, token: string, wallet: string, anchor: number): bigint {
  return (
    view.first(BALANCE_HIST, {
      prefix: [token as Hex, wallet as Hex],
      lte: [token as Hex, wallet as Hex, anchor],
      reverse: true,
    })?.value ?? 0n
  );
}

/** The launch state of `token` as of the end of block `anchor`, or null when none was observed. */
export function launchAt(view: View, token: string, anchor: number): LaunchRow | null {
  return (
    view.first(LAUNCH_HIST, { prefix: [token as Hex], lte: [token as Hex, anchor], reverse: true })?.value ??
    null
  );
}
