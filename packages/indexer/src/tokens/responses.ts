/**
 * The token routes' answers, each built by one reader call: the token must exist at the anchor
 * (else `not_found`), and what comes back is the response body (or the page's rows and extra
 * fields), shaped once here. Built over the reader's primitives (src/tokens/reader.ts), which other
 * domains and the scanner use directly.
 */
import { DomainError } from '../errors/index.js';
import type { AuthorityEvent, LaunchRow, TokenRow, TransferRow } from '../schema/rows/tokens.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import type { BalanceFidelity } from './fidelity.js';
import type { BalanceWithCoverage, HolderCount, TokenCoverage, TokensPrimitives } from './primitives.js';
import { type TokenIdentity, tokenIdentity } from './render.js';

/** GET /tokens/{address}: everything but the market stats block (src/markets adds it). */
export interface TokenDetail extends TokenIdentity {
  /** Mints minus burns at the anchor, token base units. */
  supplyFromTransfers: string;
  supplyFromTransfersUnit: 'token base units';
  transfers: number;
  negativeBalances: number;
  creation: import('../schema/rows/tokens.js').TokenRow['creation'];
  creationReason: 'creation_not_observed' | null;
  firstSeen: import('../schema/rows/tokens.js').TokenRow['firstSeen'];
  launch: LaunchRow | null;
  launchReason: 'no_registered_launch' | null;
  reconciliation: BalanceFidelity;
  coverage: TokenCoverage;
  metadataNow: ReturnType<TokensPrimitives['metadataNow']>;
  holderCount: HolderCount;
}

/** GET /tokens/{address}/balance/{wallet}. */
export interface TokenBalance {
  token: string;
  wallet: string;
  /** Transfer-sum balance, base units; null when unknown (see `balanceReason`). */
  balance: string | null;
  balanceReason: BalanceWithCoverage['balanceReason'];
  coverage: BalanceWithCoverage['coverage'];
  source: 'transfer_events';
  reconciliation: BalanceFidelity;
}

/** Holder orders of /holders: the balance index (desc only) or interned wallet ids. */
export type HolderSort = 'balance' | 'wallet_id';

/** A /holders row: `{wallet, balance}` by balance, `{walletId, wallet, balance}` by wallet id. */
export type HoldersPageRow =
  | { wallet: string; balance: string }
  | { walletId: number; wallet: string; balance: string };

/** The /holders page's fields beside its rows. */
export interface HoldersPageExtras {
  sort: HolderSort;
  orderedBy: string;
  orderingNote: string;
  holderCount: HolderCount;
  reconciliation: BalanceFidelity;
}

/** A /top-holders row: rank and share of supply (basis points, floor), null when supply ≤ 0. */
export interface TopHolderRow {
  rank: number;
  wallet: string;
  balance: string;
  shareBps: string | null;
  shareBpsReason: 'supply_not_positive' | null;
}

/** The /top-holders page's fields beside its rows. */
export interface TopHoldersExtras {
  holderCount: HolderCount;
  supplyFromTransfers: string;
  reconciliation: BalanceFidelity;
}

/** The token routes' one-call answers (see the module note). */
export interface TokenResponses {
  /** @throws DomainError not_found when the token is not indexed at `at`. */
  detail(view: View, address: string, at: number): TokenDetail;
  /** The detail of token row `t` (read at `at` by the caller; not read again). */
  detailOf(view: View, t: TokenRow, at: number): TokenDetail;
  /** @throws DomainError not_found when the token is not indexed at `at`. */
  balanceOf(view: View, address: string, wallet: string, at: number): TokenBalance;
  /** The token's launch. @throws DomainError not_found (no token, or no registered launch). */
  launchOf(view: View, address: string, at: number): LaunchRow;
  /** Transfers in chain order, as of the page anchor. @throws DomainError not_found. */
  transferPage(view: View, address: string, page: PageQuery, sink: PageSink<TransferRow>): void;
  /** Authority events in chain order. @throws DomainError not_found. */
  authorityPage(view: View, address: string, page: PageQuery, sink: PageSink<AuthorityEvent>): void;
  /** Holders in `sort` order with the page's extra fields. @throws DomainError not_found. */
  holders(
    view: View,
    address: string,
    sort: HolderSort,
    page: PageQuery,
    sink: PageSink<HoldersPageRow>,
  ): HoldersPageExtras;
  /** Balance-descending holders with rank and share of supply. @throws DomainError not_found. */
  topHolders(view: View, address: string, page: PageQuery, sink: PageSink<TopHolderRow>): TopHoldersExtras;
}

const BY_BALANCE_NOTE =
  'exact balance-descending index of positive balances; burn sinks (0x0, 0x…dead) excluded; cursor interchangeable with /top-holders';
const BY_ID_NOTE =
  'complete non-zero balance set including negative balances and burn sinks; wallet ids are interned in first-seen order; not a ranking';

/** The one-call answers over the reader primitives `r`. */
export function tokenResponses(r: TokensPrimitives): TokenResponses {
  const out: TokenResponses = {
    detail: (view, address, at) => out.detailOf(view, r.token(view, address, at), at),
    detailOf(view, t, at) {
      const stats = r.stats(view, t.address, at);
      const launch = r.launch(view, t.address, at);
      const recon = r.reconciliation(view, t.address);
      return {
        ...tokenIdentity(t),
        supplyFromTransfers: stats?.supplyFromTransfers ?? '0',
        supplyFromTransfersUnit: 'token base units',
        transfers: stats?.transfers ?? 0,
        negativeBalances: stats?.negativeBalances ?? 0,
        creation: t.creation,
        creationReason: t.creationReason,
        firstSeen: t.firstSeen,
        launch,
        launchReason: launch ? null : 'no_registered_launch',
        reconciliation: recon.fidelity,
        coverage: r.coverage(view, t, at),
        metadataNow: recon.metadataNow,
        holderCount: r.holderCount(view, t, at),
      };
    },
    balanceOf(view, address, wallet, at) {
      const t = r.token(view, address, at);
      const w = wallet.toLowerCase();
      const b = r.balanceCoverage(view, t, w, at);
      return {
        token: t.address,
        wallet: w,
        balance: b.balance === null ? null : b.balance.toString(),
        balanceReason: b.balanceReason,
        coverage: b.coverage,
        source: 'transfer_events',
        reconciliation: r.fidelityOf(view, t.address),
      };
    },
    launchOf(view, address, at) {
      const t = r.token(view, address, at);
      const l = r.launch(view, t.address, at);
      if (!l)
        throw new DomainError('not_found', `token ${t.address} was not launched by a registered launchpad`);
      return l;
    },
    transferPage(view, address, page, sink) {
      r.transfers(view, r.token(view, address, page.at).address, page, sink);
    },
    authorityPage(view, address, page, sink) {
      r.authorityEvents(view, r.token(view, address, page.at).address, page, sink);
    },
    holders(view, address, sort, page, sink) {
      const t = r.token(view, address, page.at);
      if (sort === 'balance')
        r.holdersByBalance(view, t.address, page, (h, key) =>
          sink(h && { wallet: h.wallet, balance: h.balance.toString() }, key),
        );
      else
        r.holdersByWalletId(view, t.address, page, (h, key) =>
          sink(h && { walletId: h.walletId, wallet: h.wallet, balance: h.balance.toString() }, key),
        );
      return {
        sort,
        orderedBy: sort === 'balance' ? 'balance desc, wallet asc' : `interned wallet id ${page.order}`,
        orderingNote: sort === 'balance' ? BY_BALANCE_NOTE : BY_ID_NOTE,
        holderCount: r.holderCount(view, t, page.at),
        reconciliation: r.fidelityOf(view, t.address),
      };
    },
    topHolders(view, address, page, sink) {
      const t = r.token(view, address, page.at);
      const supply = r.supply(view, t.address, page.at);
      r.holdersByBalance(view, t.address, page, (h, key) =>
        sink(
          h && {
            rank: h.rank,
            wallet: h.wallet,
            balance: h.balance.toString(),
            shareBps: supply > 0n ? ((h.balance * 10000n) / supply).toString() : null,
            shareBpsReason: supply > 0n ? null : 'supply_not_positive',
          },
          key,
        ),
      );
      return {
        holderCount: r.holderCount(view, t, page.at),
        supplyFromTransfers: supply.toString(),
        reconciliation: r.fidelityOf(view, t.address),
      };
    },
  };
  return out;
}
