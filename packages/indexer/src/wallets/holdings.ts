/**
 * A wallet's holdings as of an anchor: non-zero transfer-sum balances (R9) of the tokens it ever
 * moved, their USD marks (USD stablecoins at par only, exact rationals), the ranked asset list
 * (bounded by {@link SORT_BUDGET}) and the portfolio net worth with its coverage.
 */

import { type Rational, rational, ratJson, tokenPools } from '../markets/index.js';
import { WALLET_ASSETS_BY_TOKEN, WALLET_ASSETS_RANKED } from '../schema/cursors.js';
import { AUTHORITY, RECON } from '../schema/tables/tokens.js';
import { HOLDING } from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { type BalanceFidelity, balanceAt, fidelityFrom, tokenAt } from '../tokens/index.js';
import type { PriceRational } from './pnl.js';
import { type Hex, hexOf } from './walk.js';

/** Assets a ranked sort (and the portfolio, overview) reads at most (Limits: sortBudget). */
export const SORT_BUDGET = 500;

/** Asset sorts: token order (paged), or ranked by USD value or raw balance (desc, bounded). */
export type AssetSort = 'token' | 'usd' | 'balance';
/** Portfolio predicates. */
export type PortfolioPredicate = 'all' | 'liquid' | 'verified_contracts' | 'no_privileged_action_observed';

/** A held token at the anchor. */
export interface AssetRow {
  token: string;
  /** From the token's metadata; null when not probed or absent. */
  symbol: string | null;
  decimals: number | null;
  /** Transfer-sum balance, token base units (non-zero; negative when transfers never seen credited it). */
  balance: string;
  balanceUnit: 'token base units';
  balanceUsd: { value: PriceRational | null; reason: 'decimals_unknown' | 'no_usd_route' | null };
  /**
   * The token's reconciliation state (issue Q): `diverges` means `balance` is a sum of Transfer
   * events that the chain's balanceOf does not follow (fee-on-transfer, rebasing, reflection).
   */
  reconciliation: BalanceFidelity;
}

/** Net worth from marked holdings, with what is and is not in it. */
export interface Portfolio {
  predicate: PortfolioPredicate;
  netWorthUsd: PriceRational;
  netWorthUsdNote: string;
  coverage: {
    marked: Array<{ token: string; method: 'usd_stablecoin_par' }>;
    unmarked: Array<{ token: string; reason: 'decimals_unknown' | 'no_usd_route' }>;
    excludedByPredicate: Array<{
      token: string;
      reason: 'no_registered_pool' | 'no_verified_contract_registry' | 'privileged_action_observed';
    }>;
    assetsExamined: number;
    complete: boolean;
  };
  basisSplit: { method: string; holdings: Array<{ token: string; balance: string }> };
}

interface Held {
  token: string;
  balance: bigint;
  symbol: string | null;
  decimals: number | null;
  usd: Rational | null;
  usdReason: 'decimals_unknown' | 'no_usd_route' | null;
  fidelity: BalanceFidelity;
}

/**
 * Non-zero balances of the wallet at `at`, in token order after `afterToken`, examining at most
 * `max` tokens; `more` says the bound stopped the scan.
 */
export function holdings(
  view: View,
  stables: ReadonlySet<string>,
  wallet: string,
  at: number,
  afterToken: string | null,
  max: number,
): { assets: Held[]; more: boolean } {
  const w = hexOf(wallet);
  const out: Held[] = [];
  let examined = 0;
  let more = false;
  view.each(
    HOLDING,
    { prefix: [w], ...(afterToken ? { gt: [w, afterToken as Hex] } : {}) },
    (_v, [, token]) => {
      if (examined >= max) {
        more = true;
        return false;
      }
      examined++;
      const balance = balanceAt(view, token, w, at);
      if (balance === 0n) return true;
      const decimals = tokenAt(view, token, at)?.metadata?.decimals.value ?? null;
      const stable = stables.has(token);
      const usd = stable && decimals !== null ? rational(balance, 10n ** BigInt(decimals)) : null;
      out.push({
        token,
        balance,
        symbol: tokenAt(view, token, at)?.metadata?.symbol.value ?? null,
        decimals,
        usd,
        usdReason: usd ? null : stable ? 'decimals_unknown' : 'no_usd_route',
        fidelity: fidelityFrom(view.get(RECON, token)),
      });
      return true;
    },
  );
  return { assets: out, more };
}

/** The served row of a held token. */
export const assetRow = (a: Held): AssetRow => ({
  token: a.token,
  symbol: a.symbol,
  decimals: a.decimals,
  balance: a.balance.toString(),
  balanceUnit: 'token base units',
  balanceUsd: { value: a.usd ? ratJson(a.usd) : null, reason: a.usdReason },
  reconciliation: a.fidelity,
});

/**
 * The asset list. sort=token: token order in the page's direction (resume key: token). Ranked
 * sorts (desc only): class 0 priced / 1 unpriced, then the ranked value desc, then token; resume
 * key: class u8 ‖ value (32 bytes) ‖ token. @returns whether the budget cut a ranked sort.
 */
export function walkAssets(
  view: View,
  stables: ReadonlySet<string>,
  wallet: string,
  sort: AssetSort,
  page: PageQuery,
  sink: PageSink<AssetRow>,
): { sortBudget: number; sortTruncated: boolean } {
  if (sort === 'token') {
    const after = page.after ? WALLET_ASSETS_BY_TOKEN.decode(page.after)[0] : null;
    const asc = page.order === 'asc';
    const { assets } = holdings(view, stables, wallet, page.at, asc ? after : null, Number.MAX_SAFE_INTEGER);
    const list = asc ? assets : assets.reverse().filter((a) => !after || a.token < after);
    for (const a of list) if (!sink(assetRow(a), WALLET_ASSETS_BY_TOKEN.encode(a.token as Hex))) break;
    return { sortBudget: SORT_BUDGET, sortTruncated: false };
  }
  const { assets, more } = holdings(view, stables, wallet, page.at, null, SORT_BUDGET);
  const ranked = assets
    .map((a) => ({
      a,
      cls: sort === 'usd' && !a.usd ? 1 : 0,
      key: sort === 'usd' ? (a.usd ? (a.usd.n * 10n ** 36n) / a.usd.d : 0n) : a.balance,
    }))
    .sort(
      (x, y) => x.cls - y.cls || (y.key > x.key ? 1 : y.key < x.key ? -1 : x.a.token < y.a.token ? -1 : 1),
    );
  let start = 0;
  if (page.after) {
    const tok = WALLET_ASSETS_RANKED.decode(page.after)[2];
    start = ranked.findIndex((r) => r.a.token === tok) + 1;
  }
  for (const r of ranked.slice(start)) {
    const key = WALLET_ASSETS_RANKED.encode(r.cls, r.key < 0n ? 0n : r.key, r.a.token as Hex);
    if (!sink(assetRow(r.a), key)) break;
  }
  return { sortBudget: SORT_BUDGET, sortTruncated: more };
}

/** Whether `token` emitted a privileged-action log (tokens.authority_event) at or before block `at`. */
const authorityBy = (view: View, token: string, at: number): boolean => {
  const t = token as Hex;
  return view.first(AUTHORITY, { prefix: [t], lte: [t, at] }) !== undefined;
};

/**
 * Net worth in USD of the holdings `predicate` admits (at most {@link SORT_BUDGET} examined), as of
 * the end of block `at`: balances, metadata, registered pools and authority events at or below it.
 */
export function portfolio(
  view: View,
  stables: ReadonlySet<string>,
  wallet: string,
  predicate: PortfolioPredicate,
  at: number,
): Portfolio {
  const { assets, more } = holdings(view, stables, wallet, at, null, SORT_BUDGET);
  const excluded: Portfolio['coverage']['excludedByPredicate'] = [];
  const excludedBy = (a: Held): Portfolio['coverage']['excludedByPredicate'][number]['reason'] | null => {
    if (predicate === 'liquid' && tokenPools(view, a.token, at).pools.length === 0)
      return 'no_registered_pool';
    if (predicate === 'verified_contracts') return 'no_verified_contract_registry';
    if (predicate === 'no_privileged_action_observed' && authorityBy(view, a.token, at))
      return 'privileged_action_observed';
    return null;
  };
  const included = assets.filter((a) => {
    const reason = excludedBy(a);
    if (reason) excluded.push({ token: a.token, reason });
    return reason === null;
  });
  let total = rational(0n, 1n);
  for (const a of included)
    if (a.usd) total = rational(total.n * a.usd.d + a.usd.n * total.d, total.d * a.usd.d);
  return {
    predicate,
    netWorthUsd: ratJson(total),
    netWorthUsdNote:
      'sum of USD-marked holdings only; unmarked holdings are listed in coverage, never guessed',
    coverage: {
      marked: included.filter((a) => a.usd).map((a) => ({ token: a.token, method: 'usd_stablecoin_par' })),
      unmarked: included
        .filter((a) => !a.usd)
        .map((a) => ({ token: a.token, reason: a.usdReason ?? 'no_usd_route' })),
      excludedByPredicate: excluded,
      assetsExamined: assets.length,
      complete: !more,
    },
    basisSplit: {
      method:
        'per holding: quantity from trades (weighted-average cost basis in /positions) vs. quantity from transfers (no cost basis)',
      holdings: included.map((a) => ({ token: a.token, balance: a.balance.toString() })),
    },
  };
}

/** The ten largest holdings by raw balance among the first {@link SORT_BUDGET} examined. */
export function topHoldings(view: View, stables: ReadonlySet<string>, wallet: string, at: number) {
  const { assets, more } = holdings(view, stables, wallet, at, null, SORT_BUDGET);
  const top = [...assets]
    .sort((a, b) => (b.balance > a.balance ? 1 : b.balance < a.balance ? -1 : 0))
    .slice(0, 10)
    .map(assetRow);
  return { top, complete: !more };
}
