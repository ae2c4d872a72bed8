/**
 * Balance fidelity: whether the index's transfer-sum balances and supply (R9) equal the chain's,
 * as the last reconciliation against the node found (src/tokens/reconcile.ts: `totalSupply()` and
 * `balanceOf()` by eth_call at one block). One shape, carried beside every figure it affects
 * (holders, top holders, balances, token detail and overview, wallet assets and positions), so a
 * client never reads a transfer-sum balance of a diverging token as the chain's balance.
 *
 * Vocabulary of `status`:
 * - `exact`: at `checkedAtBlock` the supply and every balance checked equalled the chain's;
 * - `diverges`: balances or supply move without Transfer events (fee-on-transfer, rebasing,
 *   reflection tokens, silent burns): the figures are sums of events, not the chain's balances;
 * - `not_yet_checked`: no reconciliation has run for this token yet;
 * - `not_checkable`: the node could answer neither `totalSupply()` nor any `balanceOf()`.
 *
 * A `diverges` verdict found while the node contradicted itself (ingest/node-check.ts) says so:
 * reason `node_inconsistent` and the fault in `nodeFault` — the node, not the token, is at fault.
 */
import type { Reconciliation } from '../schema/rows/tokens.js';

export type FidelityStatus = 'exact' | 'diverges' | 'not_yet_checked' | 'not_checkable';

/** The token's reconciliation state, in the shape every holder-bearing route carries. */
export interface BalanceFidelity {
  status: FidelityStatus;
  /** Block the last check was made at (the verdict holds as of that block); null before any. */
  checkedAtBlock: number | null;
  /** `totalSupply()` at that block, base units; null when unanswerable (see `reason`) or not checked. */
  supplyOnChain: string | null;
  /** The index's supply at that block, base units (mints minus burns); null when not checked. */
  supplyFromTransfers: string | null;
  /** Balances compared at that block, and how many differed. */
  holdersChecked: number;
  holdersMismatched: number;
  /** Why the figures diverge or could not be checked; null when exact. */
  reason:
    | 'supply_and_balances_move_without_transfers'
    | 'supply_moves_without_transfers'
    | 'balances_move_without_transfers'
    | 'total_supply_unanswerable'
    | 'not_yet_checked'
    | 'node_inconsistent'
    | null;
  /** The node fault standing at the check (reason `node_inconsistent`); null otherwise. */
  nodeFault: string | null;
  /** The fixed rule of this field, for clients reading it for the first time. */
  basis: 'transfer_events_vs_eth_call';
}

/** The fidelity of a token from its last reconciliation verdict (null: never checked). */
export function fidelityFrom(r: Reconciliation | null | undefined): BalanceFidelity {
  if (!r)
    return {
      status: 'not_yet_checked',
      checkedAtBlock: null,
      supplyOnChain: null,
      supplyFromTransfers: null,
      holdersChecked: 0,
      holdersMismatched: 0,
      reason: 'not_yet_checked',
      nodeFault: null,
      basis: 'transfer_events_vs_eth_call',
    };
  const supplyDiffers = r.supplyOnChain !== null && r.supplyOnChain !== r.supplyFromTransfers;
  const balancesDiffer = r.holdersMismatched > 0;
  const status: FidelityStatus =
    r.status === 'consistent' ? 'exact' : r.status === 'mismatch' ? 'diverges' : 'not_checkable';
  return {
    status,
    checkedAtBlock: r.checkedAtBlock,
    supplyOnChain: r.supplyOnChain,
    supplyFromTransfers: r.supplyFromTransfers,
    holdersChecked: r.holdersChecked,
    holdersMismatched: r.holdersMismatched,
    reason:
      status === 'exact'
        ? null
        : status === 'diverges' && r.nodeFault
          ? 'node_inconsistent'
          : status === 'not_checkable'
            ? 'total_supply_unanswerable'
            : supplyDiffers && balancesDiffer
              ? 'supply_and_balances_move_without_transfers'
              : supplyDiffers
                ? 'supply_moves_without_transfers'
                : 'balances_move_without_transfers',
    nodeFault: status === 'diverges' ? (r.nodeFault ?? null) : null,
    basis: 'transfer_events_vs_eth_call',
  };
}
