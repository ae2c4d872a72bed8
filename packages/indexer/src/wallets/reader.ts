/**
 * The wallets reader: everything the wallet routes read of the wallets projection (and of the
 * token balances, markets and traces it joins), as of an anchor block, through a request's
 * {@link View}. The domain rules live in its modules, each once: PnL valuation and sums
 * (`pnl.ts`), trade perspective and the activity merge (`history.ts`), the funding graph
 * (`funding.ts`), holdings, USD marks and the portfolio (`holdings.ts`). The overview's cohort
 * memberships are joined above the domains (src/queries/wallet-overview.ts).
 *
 * Sources: top-level transactions, ERC-20 `Transfer` and WETH `Deposit`/`Withdrawal` logs, the
 * markets projection's swaps (the wallet is the transaction origin), and the traces lane's
 * internal transfers (callTracer replay).
 */

import type { InternalRow } from '../chain/index.js';
import { internalRowOf } from '../chain/index.js';
import { DomainError } from '../errors/index.js';
import { WALLET_INTERNAL } from '../schema/cursors.js';
import { type TracesLaneStatus, tracesCheckpointIn } from '../schema/rows/traces.js';
import type { FirstFunding, WalletFirstSeen, WalletTransferRow } from '../schema/rows/wallets.js';
import { TRACE_BY_ADDRESS, TRACE_INTERNAL } from '../schema/tables/traces.js';
import { FIRST_SEEN } from '../schema/tables/wallets.js';
import { blockTimestamp } from '../storage/headers.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import {
  type FundedByAll,
  type FundedEdge,
  type FundedSiblings,
  fundedByAll,
  fundedSiblings,
  walkFundedBy,
  walkFunderOf,
} from './funding.js';
import {
  type ActivityRow,
  type TradeRow,
  type WalletTxRow,
  walkActivity,
  walkTrades,
  walkTransactions,
  walkTransfers,
} from './history.js';
import {
  type AssetRow,
  type AssetSort,
  type Portfolio,
  type PortfolioPredicate,
  portfolio,
  topHoldings,
  walkAssets,
} from './holdings.js';
import {
  type DailyPnl,
  type PnlAggregate,
  type PositionFilter,
  type PositionView,
  pnlAggregate,
  tokenPositions,
  walkDaily,
  walkPositions,
} from './pnl.js';
import { hexOf } from './walk.js';

const INTERNAL_ROLES = ['', 'sender', 'recipient', 'creator', 'created'] as const;

/** An internal transfer or creation the address took part in. */
export type AddressInternalRow = InternalRow & {
  block: number;
  txIndex: number;
  role: 'sender' | 'recipient' | 'creator' | 'created';
};

/** What the traces lane covers for an address walk. */
export type InternalCoverage =
  | { coverage: 'retained'; coveredToBlock: number }
  | {
      coverage: 'not_available';
      reason: 'traces_disabled' | 'node_lacks_debug_trace';
      detail: string | null;
    };

/** The wallets domain's part of the first-paint composite (src/queries adds the cohorts). */
export interface WalletOverview {
  firstSeen: WalletFirstSeen | null;
  firstSeenReason: 'not_observed' | null;
  /** At most 10, largest raw balance first, among the first 500 holdings. */
  topHoldings: AssetRow[];
  holdingsComplete: boolean;
}

export interface WalletsReader {
  /** Top-level transactions where the wallet is origin or recipient, chain order. */
  transactions(view: View, wallet: string, page: PageQuery, sink: PageSink<WalletTxRow>): void;
  /** Direction-aware transfers (ERC-20, WETH, top-level native value), chain order. */
  transfers(view: View, wallet: string, page: PageQuery, sink: PageSink<WalletTransferRow>): void;
  /** Swaps the wallet originated, chain order. */
  trades(view: View, wallet: string, page: PageQuery, sink: PageSink<TradeRow>): void;
  /** One parent per transaction touching the wallet with its typed child events, by (block, txIndex). */
  activity(view: View, wallet: string, page: PageQuery, sink: PageSink<ActivityRow>): void;
  /** When the wallet was first observed. @throws DomainError not_found when after `at` or never. */
  firstSeen(view: View, wallet: string, at: number): WalletFirstSeen;
  /** Earliest incoming value transfer per asset, by asset. */
  fundedBy(view: View, wallet: string, page: PageQuery, sink: PageSink<FirstFunding>): void;
  /** Every funder edge into the wallet (bounded). */
  fundedByAll(view: View, wallet: string, at: number): FundedByAll;
  /** Everything the wallet funded, by (wallet, asset). */
  funderOf(view: View, wallet: string, page: PageQuery, sink: PageSink<FundedEdge>): void;
  /** Wallets sharing the wallet's first native funder (bounded). */
  fundedSiblings(view: View, wallet: string, at: number): FundedSiblings;
  /** Positions by (token, quote) valued at the page anchor; filters never change paging. */
  positions(
    view: View,
    wallet: string,
    filter: PositionFilter,
    page: PageQuery,
    sink: PageSink<PositionView>,
  ): { filteredOut: number };
  /** Realised and unrealised totals per quote (bounded). */
  pnl(view: View, wallet: string, at: number): PnlAggregate;
  /** Positions in one token, one per quote. @throws DomainError not_found when it never traded it. */
  pnlToken(view: View, wallet: string, token: string, at: number): PositionView[];
  /** Daily realised PnL of one (token, quote), days in [fromDay, toDay]. */
  pnlDaily(
    view: View,
    q: { wallet: string; token: string; quote: string; fromDay: number; toDay: number },
    page: PageQuery,
    sink: PageSink<DailyPnl>,
  ): void;
  /** Holdings (non-zero balances) sorted by token, USD value or balance. */
  assets(
    view: View,
    wallet: string,
    sort: AssetSort,
    page: PageQuery,
    sink: PageSink<AssetRow>,
  ): { sortBudget: number; sortTruncated: boolean };
  /** Net worth in USD with coverage. */
  portfolio(view: View, wallet: string, predicate: PortfolioPredicate, at: number): Portfolio;
  /** First seen and top holdings (src/queries/wallet-overview.ts adds the cohort memberships). */
  overview(view: View, wallet: string, at: number): WalletOverview;
  /**
   * Internal transfers and creations the address took part in, chain order, up to the traces
   * lane checkpoint; `not_available` when the lane is disabled or the node cannot replay.
   */
  internal(
    view: View,
    address: string,
    page: PageQuery,
    sink: PageSink<AddressInternalRow>,
  ): InternalCoverage;
}

/** What the wallets reader needs besides a request's view. */
export interface WalletsReaderDeps {
  /** Quote assets by priority (decides a pool's token and quote sides). */
  quoteAssets: readonly string[];
  /** USD stablecoins (marked at par). */
  usdStablecoins: readonly string[];
  /** The traces lane's state (internal transfers coverage). */
  traces: () => TracesLaneStatus;
}

/** Creates the wallets reader (stateless). */
export function createWalletsReader(deps: WalletsReaderDeps): WalletsReader {
  const priority = new Map(deps.quoteAssets.map((a, i) => [a.toLowerCase(), i]));
  const stables = new Set(deps.usdStablecoins.map((a) => a.toLowerCase()));
  const tsOf = (view: View, at: number) => blockTimestamp(view, at) ?? 0;
  const firstSeenAt = (view: View, wallet: string, at: number) => {
    const f = view.get(FIRST_SEEN, hexOf(wallet));
    return f && f.block <= at ? f : null;
  };
  return {
    transactions: walkTransactions,
    transfers: walkTransfers,
    trades: (view, wallet, page, sink) => walkTrades(view, priority, wallet, page, sink),
    activity: (view, wallet, page, sink) => walkActivity(view, priority, wallet, page, sink),
    firstSeen(view, wallet, at) {
      const f = firstSeenAt(view, wallet, at);
      if (!f)
        throw new DomainError('not_found', `wallet ${hexOf(wallet)} is not observed at the anchored block`);
      return f;
    },
    fundedBy: walkFundedBy,
    fundedByAll,
    funderOf: walkFunderOf,
    fundedSiblings,
    positions: (view, wallet, filter, page, sink) =>
      walkPositions(view, wallet, page, filter, tsOf(view, page.at), sink),
    pnl: (view, wallet, at) => pnlAggregate(view, wallet, at, tsOf(view, at)),
    pnlToken(view, wallet, token, at) {
      const rows = tokenPositions(view, wallet, token, at, tsOf(view, at));
      if (!rows.length)
        throw new DomainError(
          'not_found',
          `wallet ${hexOf(wallet)} has no traded position in ${hexOf(token)}`,
        );
      return rows;
    },
    pnlDaily: (view, q, page, sink) => walkDaily(view, q, page, tsOf(view, page.at), sink),
    assets: (view, wallet, sort, page, sink) => walkAssets(view, stables, wallet, sort, page, sink),
    portfolio: (view, wallet, predicate, at) => portfolio(view, stables, wallet, predicate, at),
    overview(view, wallet, at) {
      const fs = firstSeenAt(view, wallet, at);
      const h = topHoldings(view, stables, wallet, at);
      return {
        firstSeen: fs,
        firstSeenReason: fs ? null : 'not_observed',
        topHoldings: h.top,
        holdingsComplete: h.complete,
      };
    },
    internal(view, address, page, sink) {
      const lane = deps.traces();
      if (lane.state !== 'following')
        return {
          coverage: 'not_available',
          reason: lane.state === 'disabled' ? 'traces_disabled' : 'node_lacks_debug_trace',
          detail: lane.reason,
        };
      const covered = Math.min(tracesCheckpointIn(view, lane) ?? -1, page.at);
      const a = hexOf(address);
      if (covered < 0) return { coverage: 'retained', coveredToBlock: covered };
      view.each(
        TRACE_BY_ADDRESS,
        {
          prefix: [a],
          lte: [a, covered],
          reverse: page.order === 'desc',
          resume: { under: [a], suffix: page.after },
        },
        (_v, key, raw) => {
          const [, block, txIndex, ordinal, role] = key as [string, number, number, number, number];
          const r = view.get(TRACE_INTERNAL, block, txIndex, ordinal);
          if (!r) return true;
          const row = {
            block,
            txIndex,
            role: INTERNAL_ROLES[role] as AddressInternalRow['role'],
            ...internalRowOf(r),
          };
          return sink(row, WALLET_INTERNAL.tail(raw));
        },
      );
      return { coverage: 'retained', coveredToBlock: covered };
    },
  };
}
