/**
 * Wallet findings: holdings with their USD marks and coverage, first activity, cohort
 * memberships, counterparties, the PnL summary, and the wallet scan that assembles them with the
 * funding chain. Everything is read through the wallets, cohorts and addresses readers at the
 * answer's anchor.
 *
 * USD marks: through the markets reader at the anchor (./usd.ts: stablecoins at par, other tokens
 * at their default venue's price in a quote asset, the quote marked through a USD-stablecoin venue),
 * exact rationals; every mark lists its method and legs, every unmarked holding its reason.
 */

import { SORT_BUDGET } from '@chain-indexer/indexer/port';
import type {
  AssetRow,
  PnlAggregate,
  Rational,
  WalletFirstSeen,
  WalletTransferRow,
} from '@chain-indexer/indexer/types';
import { type ApproxDecimal, approxDecimal } from '@chain-indexer/platform/numbers';
import type { ReadCtx } from '../index-port.js';
import { collect } from './common.js';
import { type FundingChain, fundingChain } from './funding.js';
import { BUNDLE_RULE, type Bundle, walletBundles } from './token.js';
import {
  addR,
  type Fraction,
  frac,
  type MarkMethod,
  mul,
  type UnmarkedReason,
  USD_MARK_RULE,
  type UsdMark,
  usdMarker,
} from './usd.js';

/** Holdings listed at most by a holdings answer (ranked by USD value, then unmarked). */
export const HOLDINGS_LIMIT = 100;

/** A held token at the anchor with its USD mark. */
export interface HeldAsset {
  token: string;
  symbol: string | null;
  decimals: number | null;
  /** Transfer-sum balance, token base units (negative when transfers never credited it). */
  balance: string;
  balanceUnit: 'token base units';
  /** balance × mark.usdPerBaseUnit in USD (exact); null when unmarked (see reason). */
  valueUsd: Fraction | null;
  /** valueUsd as a decimal, approximate; null when unmarked (see unmarkedReason). */
  valueUsdApprox: ApproxDecimal | null;
  mark: UsdMark | null;
  unmarkedReason: UnmarkedReason | null;
}

/** A wallet's holdings at the anchor. */
export interface Holdings {
  address: string;
  assets: HeldAsset[];
  /** More holdings than listed (see `limit`). */
  more: boolean;
  limit: number;
  /** Sum of the marked holdings' values, USD, exact. */
  netWorthUsd: Fraction;
  /** netWorthUsd as a decimal, approximate. */
  netWorthUsdApprox: ApproxDecimal;
  coverage: {
    marked: Array<{ token: string; method: MarkMethod }>;
    unmarked: Array<{
      token: string;
      reason: UnmarkedReason;
      tried: Array<{ quote: string; reason: UnmarkedReason }>;
    }>;
    /** Held tokens examined (at most {@link SORT_BUDGET}). */
    assetsExamined: number;
    /** False when the wallet holds more tokens than examined. */
    complete: boolean;
  };
  pricing: { rule: string; unit: string; usdStablecoins: string[]; quoteAssets: string[] };
}

/**
 * Holdings of `address` (the wallets reader's held tokens, at most {@link SORT_BUDGET} examined),
 * each marked in USD by {@link usdMarker}, ranked by USD value desc (marked first, then unmarked by
 * token), at most `limit` listed, with the net worth and the coverage of the marks.
 */
export function holdingsOf(rc: ReadCtx, address: string, limit = HOLDINGS_LIMIT): Holdings {
  const a = address.toLowerCase();
  const { rows, more } = collect<AssetRow>(
    (q, sink) => void rc.readers.wallets.assets(rc.view, a, 'token', q, sink),
    rc.anchor.block,
    SORT_BUDGET,
  );
  const markOf = usdMarker(rc);
  let total: Rational = { n: 0n, d: 1n };
  const coverage: Holdings['coverage'] = {
    marked: [],
    unmarked: [],
    assetsExamined: rows.length,
    complete: !more,
  };
  const held = rows.map((r) => {
    const m = markOf(r.token);
    let value: Rational | null = null;
    if (m.marked) {
      const u = m.mark.usdPerBaseUnit;
      value = mul({ n: BigInt(r.balance), d: 1n }, { n: BigInt(u.numerator), d: BigInt(u.denominator) });
      total = addR(total, value);
      coverage.marked.push({ token: r.token, method: m.mark.method });
    } else coverage.unmarked.push({ token: r.token, reason: m.reason, tried: m.tried });
    const asset: HeldAsset = {
      token: r.token,
      symbol: r.symbol,
      decimals: r.decimals,
      balance: r.balance,
      balanceUnit: 'token base units',
      valueUsd: value ? frac(value) : null,
      valueUsdApprox: value ? approxDecimal(value.n, value.d) : null,
      mark: m.marked ? m.mark : null,
      unmarkedReason: m.marked ? null : m.reason,
    };
    return { asset, value };
  });
  held.sort((x, y) => {
    if (x.value && y.value) {
      const c = x.value.n * y.value.d - y.value.n * x.value.d;
      if (c !== 0n) return c > 0n ? -1 : 1;
    } else if (x.value || y.value) return x.value ? -1 : 1;
    return x.asset.token < y.asset.token ? -1 : 1;
  });
  return {
    address: a,
    assets: held.slice(0, limit).map((h) => h.asset),
    more: held.length > limit || more,
    limit,
    netWorthUsd: frac(total),
    netWorthUsdApprox: approxDecimal(total.n, total.d),
    coverage,
    pricing: {
      rule: USD_MARK_RULE,
      unit: 'USD: a USD stablecoin whole unit is 1 USD by convention',
      usdStablecoins: [...rc.config.usdStablecoins],
      quoteAssets: [...rc.config.quoteAssets],
    },
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
    rows: Array<{ token: string } & Omit<Bundle, 'shareOfSupply'>>;
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
