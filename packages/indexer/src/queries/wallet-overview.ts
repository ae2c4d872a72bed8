/**
 * GET /wallets/{address}/overview: the wallets domain's first-paint part (first seen, top
 * holdings) with the cohorts domain's memberships of the wallet, at one anchor.
 */
import type { CohortsReader, WalletCohorts } from '../cohorts/index.js';
import type { View } from '../storage/index.js';
import type { WalletOverview, WalletsReader } from '../wallets/index.js';

/** The wallet overview body (without `wallet`, which the route adds). */
export interface WalletOverviewAnswer extends WalletOverview {
  cohorts: WalletCohorts['cohorts'];
  screenedOut: WalletCohorts['screenedOut'];
  /** Every membership was read (at most the cohorts domain's membership bound). */
  cohortsComplete: boolean;
  cohortsIncompleteReason: 'membership_bound_reached' | null;
  /** Highest funding generation among the cohorts' tokens (0 without cohorts). */
  fundingGeneration: number;
}

/**
 * The overview of `wallet` at `at`. Sources: the wallets projection (first seen, balances, USD
 * marks) and the cohorts read over the funding graph. Throws nothing of its own.
 */
export function walletOverview(
  d: { wallets: WalletsReader; cohorts: CohortsReader },
  view: View,
  wallet: string,
  at: number,
): WalletOverviewAnswer {
  const w = d.wallets.overview(view, wallet, at);
  const c = d.cohorts.walletCohorts(view, wallet, at);
  return {
    ...w,
    cohorts: c.cohorts,
    screenedOut: c.screenedOut,
    cohortsComplete: c.complete,
    cohortsIncompleteReason: c.complete ? null : 'membership_bound_reached',
    fundingGeneration: c.fundingGeneration,
  };
}
