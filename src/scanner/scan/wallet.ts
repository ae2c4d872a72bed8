/**
 * Wallet findings: holdings with their USD marks and coverage, first activity, cohort
 * memberships, counterparties, the PnL summary, and the wallet scan that assembles them with the
 * funding chain. Everything is read through the wallets, cohorts and addresses readers at the
 * answer's anchor.
 *
 * USD marks: the wallets reader marks USD stablecoins at par (exact rationals) and lists every
 * other holding as unmarked with its reason; depth-priced marks from pools need the markets reader
 * (not wired into the scanner yet), so they are not guessed here: `pricing.depthPriced` says so.
 */
import type { AssetRow, PnlAggregate, WalletFirstSeen, WalletTransferRow } from '../../wallets/index.js';
import type { ReadCtx } from '../index-port.js';
import { collect } from './common.js';
import { type FundingChain, fundingChain } from './funding.js';
import { BUNDLE_RULE, type BundleMember, walletBundles } from './token.js';

/** Holdings listed at most by a holdings answer (ranked by USD value, then unmarked). */
export const HOLDINGS_LIMIT = 100;

export const PRICING_NOTE =
  'USD marks: configured USD stablecoins at par (exact). Depth-priced marks from pool liquidity need the markets reader, which the scanner does not read yet: other holdings are listed unmarked with their reason, never guessed.';

/** A wallet's holdings at the anchor. */
export interface Holdings {
  address: string;
  assets: AssetRow[];
  /** More holdings than listed (see `limit`). */
  more: boolean;
  limit: number;
  netWorthUsd: { priceNumerator: string; priceDenominator: string };
  coverage: {
    marked: Array<{ token: string; method: 'usd_stablecoin_par' }>;
    unmarked: Array<{ token: string; reason: 'decimals_unknown' | 'no_usd_route' }>;
    assetsExamined: number;
    complete: boolean;
  };
  pricing: { method: 'usd_stablecoin_par'; depthPriced: false; note: string };
}

/** Holdings of `address`, ranked by USD value (marked first), with the portfolio's coverage. */
export function holdingsOf(rc: ReadCtx, address: string, limit = HOLDINGS_LIMIT): Holdings {
  const a = address.toLowerCase();
  const w = rc.readers.wallets;
  const { rows, more } = collect<AssetRow>(
    (q, sink) => void w.assets(rc.view, a, 'usd', q, sink),
    rc.anchor.block,
    limit,
    'desc',
  );
  const p = w.portfolio(rc.view, a, 'all', rc.anchor.block);
  return {
    address: a,
    assets: rows,
    more,
    limit,
    netWorthUsd: p.netWorthUsd,
    coverage: {
      marked: p.coverage.marked,
      unmarked: p.coverage.unmarked,
      assetsExamined: p.coverage.assetsExamined,
      complete: p.coverage.complete,
    },
    pricing: { method: 'usd_stablecoin_par', depthPriced: false, note: PRICING_NOTE },
  };
}

/** A counterparty of a wallet's transfers. */
export interface Counterparty {
  address: string;
  transfersIn: number;
  transfersOut: number;
  /** Assets moved with it (null = native). */
  assets: Array<string | null>;
}

/** Transfers a counterparty summary reads at most (most recent first). */
export const COUNTERPARTY_SCAN = 1000;

/**
 * The wallet's counterparties over its most recent {@link COUNTERPARTY_SCAN} transfers, by number
 * of transfers (then address), at most `limit`.
 */
export function counterparties(
  rc: ReadCtx,
  address: string,
  limit: number,
): { rows: Counterparty[]; transfersRead: number; complete: boolean } {
  const a = address.toLowerCase();
  const { rows, more } = collect<WalletTransferRow>(
    (q, sink) => rc.readers.wallets.transfers(rc.view, a, q, sink),
    rc.anchor.block,
    COUNTERPARTY_SCAN,
    'desc',
  );
  const by = new Map<string, Counterparty>();
  for (const t of rows) {
    if (t.direction === 'self') continue;
    const other = (t.direction === 'in' ? t.from : t.to).toLowerCase();
    const c = by.get(other) ?? { address: other, transfersIn: 0, transfersOut: 0, assets: [] };
    if (t.direction === 'in') c.transfersIn++;
    else c.transfersOut++;
    if (!c.assets.includes(t.asset)) c.assets.push(t.asset);
    by.set(other, c);
  }
  const sorted = [...by.values()].sort(
    (x, y) =>
      y.transfersIn + y.transfersOut - (x.transfersIn + x.transfersOut) || (x.address < y.address ? -1 : 1),
  );
  return { rows: sorted.slice(0, limit), transfersRead: rows.length, complete: !more };
}

/** Hops of the funding chain per wallet-scan depth. */
export const SCAN_HOPS = { quick: 1, deep: 3, max: 6 } as const;
export type ScanDepth = keyof typeof SCAN_HOPS;

/** The wallet scan. */
export interface WalletScan {
  kind: 'wallet';
  address: string;
  depth: ScanDepth;
  firstSeen: WalletFirstSeen | null;
  firstSeenReason: 'not_observed' | null;
  labels: Array<{ label: string; evidence: string }>;
  fundingChain: FundingChain;
  cohorts: {
    memberships: Array<{ id: string; token: string; funder: string; size: number }>;
    screenedOut: Array<{ id: string; reason: 'entity_override' }>;
    complete: boolean;
    rule: string;
  };
  bundles: {
    rule: string;
    rows: Array<{
      token: string;
      cohortId: string;
      funder: string;
      block: number;
      size: number;
      members: BundleMember[];
      balance: string;
    }>;
    complete: boolean;
  };
  counterparties: { rows: Counterparty[]; transfersRead: number; complete: boolean };
  pnl: PnlAggregate;
  holdings: Holdings;
}

/** Counterparties listed per depth. */
const COUNTERPARTIES = { quick: 5, deep: 10, max: 25 } as const;
/** Cohort memberships examined for bundles per depth. */
const BUNDLE_MEMBERSHIPS = { quick: 5, deep: 20, max: 50 } as const;
/** Holdings listed per depth. */
const HOLDINGS = { quick: 10, deep: 25, max: 100 } as const;

/** Scans wallet `address` at `depth` (funding hops quick 1, deep 3, max 6). */
export function walletScan(rc: ReadCtx, address: string, depth: ScanDepth): WalletScan {
  const a = address.toLowerCase();
  const { wallets, cohorts, addresses } = rc.readers;
  let firstSeen: WalletFirstSeen | null = null;
  try {
    firstSeen = wallets.firstSeen(rc.view, a, rc.anchor.block);
  } catch (err) {
    if ((err as { code?: string }).code !== 'not_found') throw err;
  }
  const wc = cohorts.walletCohorts(rc.view, a, rc.anchor.block);
  const wb = walletBundles(rc, a, wc.cohorts, BUNDLE_MEMBERSHIPS[depth]);
  return {
    kind: 'wallet',
    address: a,
    depth,
    firstSeen,
    firstSeenReason: firstSeen ? null : 'not_observed',
    labels: addresses.labels(rc.view, a, rc.anchor.block),
    fundingChain: fundingChain(rc, a, SCAN_HOPS[depth]),
    cohorts: {
      memberships: wc.cohorts,
      screenedOut: wc.screenedOut,
      complete: wc.complete,
      rule: cohorts.admissionRule.description,
    },
    bundles: { rule: BUNDLE_RULE, rows: wb.bundles, complete: wb.complete && wc.complete },
    counterparties: counterparties(rc, a, COUNTERPARTIES[depth]),
    pnl: wallets.pnl(rc.view, a, rc.anchor.block),
    holdings: holdingsOf(rc, a, HOLDINGS[depth]),
  };
}
