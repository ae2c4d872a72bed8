/**
 * The tokens reader: everything the token routes (and other domains) read of the tokens
 * projection, as of an anchor block, through a request's {@link View}. Holds the domain's rules
 * once: the two holder-count shapes of the spec, balance fidelity, the holder walks and their
 * shared cursor, the search ranking, launch state.
 *
 * Sources: ERC-20 `Transfer`, WETH `Deposit`/`Withdrawal`, `OwnershipTransferred`, launchpad
 * `LaunchCreated`/`GraduationStarted`/`Graduated` logs; metadata by eth_call at first sight;
 * reconciliation verdicts by eth_call `totalSupply()`/`balanceOf()` (src/tokens/reconcile.ts).
 */
import { DomainError } from '../errors/index.js';
import { lowerHex } from '../schema/codec.js';
import type { AuthorityEvent, LaunchRow, TokenRow, TokenStats, TransferRow } from '../schema/rows/tokens.js';
import {
  AUTHORITY,
  BALANCE_HIST,
  CREATOR_TOKEN,
  HOLDER_CUR,
  HOLDER_HIST,
  HOLDER_ID_CUR,
  HOLDER_ID_HIST,
  PAD_LAUNCH,
  RECON,
  SEARCH,
  STATS,
  searchTermRange,
  TOKEN,
  TOKEN_BY_COORD,
  TRANSFER,
  tokenAddressRange,
  WALLET_BY_ID,
} from '../schema/tables/tokens.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { walkVersioned } from '../storage/versioned.js';
import { type BalanceFidelity, fidelityFrom } from './fidelity.js';
import { LAUNCHPADS, type LaunchpadDeployment, type LaunchpadDeployments } from './launchpads.js';
import { balanceAt, launchAt, statsAt, tokenAt } from './read.js';
import { type TokenListRow, tokenListRow } from './render.js';
import { type TokenResponses, tokenResponses } from './responses.js';

const K = lowerHex;

/** The uniform holder count of every holder-bearing route (spec: `{value, status, asOfBlock, burnSinkHolders}`). */
export interface HolderCount {
  /** Wallets with a positive transfer-sum balance, burn sinks excluded; null when the token is not indexed. */
  value: number | null;
  status: 'exact' | 'backfilling' | 'token_not_indexed';
  asOfBlock: number;
  /** Burn sinks (0x0, 0x…dead) holding a non-zero balance; null when the token is not indexed. */
  burnSinkHolders: number | null;
}

/**
 * The overview's richer holder count (spec: `{status, count, retainedListSize, retainedListCap,
 * asOfBlock, burnSinkHolders}`). This index retains every holder (no capped list), so the
 * retained list is the whole set: `exact_retained_list` never caps, and
 * `unknown_retained_list_saturated` cannot occur.
 */
export interface OverviewHolderCount {
  status: 'exact' | 'backfilling' | 'token_not_indexed';
  count: number | null;
  retainedListSize: number | null;
  /** null: the index retains every holder (no cap). */
  retainedListCap: null;
  asOfBlock: number;
  burnSinkHolders: number | null;
}

/** A balance with what it covers (see {@link TokensReader.balanceCoverage}). */
export interface BalanceWithCoverage {
  /** Signed transfer-sum balance, base units; null when unknown (see `balanceReason`). */
  balance: bigint | null;
  balanceReason: 'not_observed_since_start_block' | null;
  coverage: 'since_creation' | 'since_first_sight' | 'not_observed';
}

/** What of a token's figures is complete. */
export interface TokenCoverage {
  /** The first indexed block of the chain (START_BLOCK). */
  indexedFromBlock: number;
  /** The token existed before the indexed range (its creation was not observed, START_BLOCK > 0). */
  predatesIndexedRange: boolean;
  /** Block whose totalSupply() seeded the supply (predating tokens); null otherwise. */
  supplySeededAtBlock: number | null;
  /** Seeds the node could not answer (pruned state): those balances started at zero. */
  seedFailures: number;
  /** Whether holder counts and balances cover every holder (false: only wallets seen since START_BLOCK). */
  holdersComplete: boolean;
}

/** A balance-ordered holder row; `rank` is 1-based across the whole walk. */
export interface HolderRow {
  rank: number;
  wallet: string;
  /** Transfer-sum balance, base units (positive). */
  balance: bigint;
}

/** A wallet-id ordered holder row (every non-zero balance, negatives and burn sinks included). */
export interface HolderIdRow {
  walletId: number;
  wallet: string;
  /** Signed transfer-sum balance, base units. */
  balance: bigint;
}

/** A registered launchpad and its deployments on this chain. */
export interface LaunchpadEntry {
  name: string;
  displayName: string;
  deployments: LaunchpadDeployment[];
  deploymentsReason: 'not_configured_for_this_chain' | null;
}

/** Search match classes (lower ranks first). */
export const MATCH_CLASSES = {
  exact_symbol: 1,
  exact_name: 2,
  address_prefix: 3,
  symbol_prefix: 4,
  name_prefix: 5,
} as const;
/** Index rows examined per match class of a search (bounds the work of a broad prefix). */
const SEARCH_SCAN_ROWS = 500;

/** The reader's primitives (other domains and the scanner read through these). */
export interface TokensPrimitives {
  /** The token row at `at`, or null when it was first seen after `at`. */
  find(view: View, address: string, at: number): TokenRow | null;
  /** The token row at `at`. @throws DomainError not_found. */
  token(view: View, address: string, at: number): TokenRow;
  /** Per-token counters as of the end of block `at` (null before its first transfer). */
  stats(view: View, token: string, at: number): TokenStats | null;
  /** Exact supply from transfers at `at`, base units (mints minus burns). */
  supply(view: View, token: string, at: number): bigint;
  /** The uniform holder count at `at` (token null: not indexed). */
  holderCount(view: View, token: TokenRow | null, at: number): HolderCount;
  /** The overview's holder count at `at`. */
  overviewHolderCount(view: View, token: TokenRow | null, at: number): OverviewHolderCount;
  /** The token's balance fidelity (last reconciliation verdict). */
  fidelityOf(view: View, token: string): BalanceFidelity;
  /** Node re-probe of metadata made with the last reconciliation (metadata "on change"). */
  metadataNow(
    view: View,
    token: string,
  ): {
    now: { name: string | null; symbol: string | null; decimals: number | null } | null;
    changed: boolean;
    checkedAtBlock: number | null;
  };
  /** Signed transfer-sum balance of `wallet` at `at`, base units (R9). */
  balance(view: View, token: string, wallet: string, at: number): bigint;
  /**
   * The balance with its coverage: a token created before START_BLOCK only knows wallets it has
   * seen since (seeded with balanceOf at the block before their first observed transfer); a wallet
   * it has not seen has an unknown balance (null with a reason), never a zero.
   */
  balanceCoverage(view: View, token: TokenRow, wallet: string, at: number): BalanceWithCoverage;
  /** What of a token's figures is complete: whether it predates the indexed range and was seeded. */
  coverage(view: View, token: TokenRow, at: number): TokenCoverage;
  /** Balance-ordered holders at the page's anchor (desc only; burn sinks excluded). */
  holdersByBalance(view: View, token: string, page: PageQuery, sink: PageSink<HolderRow>): void;
  /** Every non-zero balance in interned wallet-id order. */
  holdersByWalletId(view: View, token: string, page: PageQuery, sink: PageSink<HolderIdRow>): void;
  /** Transfers in chain order. */
  transfers(view: View, token: string, page: PageQuery, sink: PageSink<TransferRow>): void;
  /** Authority events in chain order. */
  authorityEvents(view: View, token: string, page: PageQuery, sink: PageSink<AuthorityEvent>): void;
  /** Tokens a deployer created, by creation coordinate. */
  creatorTokens(view: View, deployer: string, page: PageQuery, sink: PageSink<TokenListRow>): void;
  /** Every token observed, in first-seen coordinate order. */
  catalogue(view: View, page: PageQuery, sink: PageSink<TokenListRow>): void;
  /**
   * Search by symbol, name or 0x-address prefix at `at`, ranked by match class, then confirmed
   * ERC-20 first, then older first-seen coordinate.
   * @throws DomainError bad_request for an address prefix longer than 40 hex digits.
   */
  search(
    view: View,
    q: string,
    at: number,
    limit: number,
  ): { rows: Array<TokenListRow & { matchClass: number }>; truncated: boolean };
  /** The launch of `token` as of `at`, or null when no registered launchpad launched it. */
  launch(view: View, token: string, at: number): LaunchRow | null;
  /** The registered launchpad table with this chain's deployments. */
  launchpads(): LaunchpadEntry[];
  /** Launches of one pad in chain order (state as of the page anchor). @throws DomainError not_found. */
  padLaunches(view: View, pad: string, page: PageQuery, sink: PageSink<LaunchRow>): void;
}

const u32 = (n: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n, 0);
  return b;
};

/** The tokens reader: its primitives and the token routes' one-call answers (./responses.ts). */
export type TokensReader = TokensPrimitives & TokenResponses;

/** Creates the tokens reader (stateless; `launchpads` are this chain's registered deployments). */
export function createTokensReader(deps: { launchpads: LaunchpadDeployments }): TokensReader {
  const lastChange = (view: View, token: string) => view.get(STATS, K(token))?.lastChangeBlock ?? 0;
  /** Walks a table keyed (prefix…, block u64, …) in chain order, skipping rows after the anchor. */
  const chainOrder = <V>(
    view: View,
    // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
    t: import('../storage/index.js').Table<any, V>,
    prefix: unknown[],
    blockAt: (k: unknown[]) => number,
    prefixLen: number,
    page: PageQuery,
    visit: (v: V, resume: Buffer) => boolean,
  ) => {
    view.each(
      t,
      {
        prefix: prefix as never,
        reverse: page.order === 'desc',
        resume: { under: prefix as never, suffix: page.after },
      },
      (v, k, raw) => {
        if (blockAt(k) > page.at) return true;
        return visit(v, Buffer.from(raw.subarray(prefixLen)));
      },
    );
  };

  /** Walks a token's rows of `t` (keyed token address, block u64, …) in chain order. */
  const byToken = <V>(
    view: View,
    // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
    t: import('../storage/index.js').Table<any, V>,
    token: string,
    page: PageQuery,
    sink: (v: V, resume: Buffer) => boolean,
  ) =>
    chainOrder(
      view,
      t,
      [K(token)],
      (k) => k[1] as number,
      21,
      page,
      (v, key) => sink(v, key),
    );

  const reader: TokensPrimitives = {
    find: (view, address, at) => tokenAt(view, K(address), at),
    token(view, address, at) {
      const t = tokenAt(view, K(address), at);
      if (!t)
        throw new DomainError('not_found', `token ${address} is not indexed at the anchored block ${at}`);
      return t;
    },
    stats: (view, token, at) => statsAt(view, K(token), at),
    supply: (view, token, at) => BigInt(statsAt(view, K(token), at)?.supplyFromTransfers ?? '0'),
    holderCount(view, t, at) {
      if (!t) return { value: null, status: 'token_not_indexed', asOfBlock: at, burnSinkHolders: null };
      const s = statsAt(view, t.address, at);
      // Exact when every transfer of the token was seen; a token with code before START_BLOCK
      // knows only the wallets seen since (backfilling).
      return {
        value: s?.holders ?? 0,
        status: t.predatesIndexedRange ? 'backfilling' : 'exact',
        asOfBlock: at,
        burnSinkHolders: s?.burnSinkHolders ?? 0,
      };
    },
    overviewHolderCount(view, t, at) {
      const h = reader.holderCount(view, t, at);
      return {
        status: h.status,
        count: h.value,
        retainedListSize: h.value,
        retainedListCap: null,
        asOfBlock: at,
        burnSinkHolders: h.burnSinkHolders,
      };
    },
    fidelityOf: (view, token) => fidelityFrom(view.get(RECON, K(token))),
    metadataNow(view, token) {
      const r = view.get(RECON, K(token));
      return {
        now: r?.metadataNow ?? null,
        changed: r?.metadataChanged ?? false,
        checkedAtBlock: r?.checkedAtBlock ?? null,
      };
    },
    balance: (view, token, wallet, at) => balanceAt(view, K(token), K(wallet), at),
    balanceCoverage(view, t, wallet, at) {
      const predates = t.predatesIndexedRange === true;
      // The latest balance row at or before the anchor (the walk runs backwards from it).
      const seen = view.first(BALANCE_HIST, {
        prefix: [K(t.address), K(wallet)],
        lte: [K(t.address), K(wallet), at],
        reverse: true,
        limit: 1,
      });
      if (predates && !seen)
        return { balance: null, balanceReason: 'not_observed_since_start_block', coverage: 'not_observed' };
      return {
        balance: seen ? seen.value : 0n,
        balanceReason: null,
        coverage: predates ? 'since_first_sight' : 'since_creation',
      };
    },
    coverage(view, t, at) {
      const first = view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
      const predates = t.predatesIndexedRange === true;
      const s = statsAt(view, t.address, at);
      return {
        indexedFromBlock: first,
        predatesIndexedRange: predates,
        supplySeededAtBlock: s?.seededAtBlock ?? null,
        seedFailures: s?.seedFailures ?? 0,
        holdersComplete: !predates,
      };
    },
    holdersByBalance(view, token, page, sink) {
      // Cursor key: sort key (32-byte inverted balance ‖ wallet) ‖ u32 rank, shared with /top-holders.
      const after = page.after ? page.after.subarray(0, 52) : null;
      let rank = page.after ? page.after.readUInt32BE(52) : 0;
      const rows = walkVersioned(view, {
        cur: HOLDER_CUR,
        hist: HOLDER_HIST,
        prefix: [K(token)],
        sortKeyLen: 52,
        fromOf: (v) => v,
        toOf: (v) => v,
        anchor: page.at,
        after,
        reverse: false,
        want: page.limit + 1,
        lastChangeBlock: lastChange(view, token),
      });
      const MAX = (1n << 256n) - 1n;
      for (const r of rows) {
        rank++;
        const row: HolderRow = {
          rank,
          wallet: `0x${r.sortKey.toString('hex', 32, 52)}`,
          balance: MAX - BigInt(`0x${r.sortKey.toString('hex', 0, 32)}`),
        };
        if (!sink(row, Buffer.concat([r.sortKey, u32(rank)]))) return;
      }
    },
    holdersByWalletId(view, token, page, sink) {
      const rows = walkVersioned(view, {
        cur: HOLDER_ID_CUR,
        hist: HOLDER_ID_HIST,
        prefix: [K(token)],
        sortKeyLen: 8,
        fromOf: (v) => v.block,
        toOf: (v) => v.block,
        anchor: page.at,
        after: page.after,
        reverse: page.order === 'desc',
        want: page.limit + 1,
        lastChangeBlock: lastChange(view, token),
      });
      for (const r of rows) {
        const walletId = r.sortKey.readUInt32BE(0) * 0x1_0000_0000 + r.sortKey.readUInt32BE(4);
        const row: HolderIdRow = {
          walletId,
          wallet: view.get(WALLET_BY_ID, walletId) ?? '0x',
          balance: r.value.balance,
        };
        if (!sink(row, r.sortKey)) return;
      }
    },
    transfers(view, token, page, sink) {
      byToken(view, TRANSFER, token, page, sink);
    },
    authorityEvents(view, token, page, sink) {
      byToken(view, AUTHORITY, token, page, sink);
    },
    creatorTokens(view, deployer, page, sink) {
      view.each(
        CREATOR_TOKEN,
        {
          prefix: [K(deployer)],
          reverse: page.order === 'desc',
          resume: { under: [K(deployer)], suffix: page.after },
        },
        (_v, [, block, , token], raw) => {
          if (block > page.at) return true;
          const t = tokenAt(view, token, page.at);
          return t ? sink(tokenListRow(t), Buffer.from(raw.subarray(21))) : true;
        },
      );
    },
    catalogue(view, page, sink) {
      view.each(
        TOKEN_BY_COORD,
        {
          reverse: page.order === 'desc',
          resume: { under: [], suffix: page.after },
        },
        (_v, [block, , , token], raw) => {
          if (block > page.at) return true;
          const t = tokenAt(view, token, page.at);
          return t ? sink(tokenListRow(t), Buffer.from(raw.subarray(1))) : true;
        },
      );
    },
    search(view, query, at, limit) {
      const q = query.toLowerCase();
      if (q.startsWith('0x') && q.length > 42)
        throw new DomainError('bad_request', 'an address prefix has at most 40 hex digits');
      const found = new Map<string, { t: TokenRow; cls: number }>();
      const consider = (addr: string, cls: number) => {
        const prev = found.get(addr);
        if (prev && prev.cls <= cls) return;
        const t = tokenAt(view, addr, at);
        if (t) found.set(addr, { t, cls });
      };
      const byTerm = (kind: 1 | 2, exactCls: number, prefixCls: number) => {
        let n = 0;
        view.each(SEARCH, searchTermRange(kind, q), (_v, [, term, token]) => {
          consider(token, term === q ? exactCls : prefixCls);
          return ++n < SEARCH_SCAN_ROWS;
        });
      };
      byTerm(1, MATCH_CLASSES.exact_symbol, MATCH_CLASSES.symbol_prefix);
      byTerm(2, MATCH_CLASSES.exact_name, MATCH_CLASSES.name_prefix);
      if (/^0x[0-9a-f]{0,40}$/.test(q)) {
        let n = 0;
        view.eachValue(TOKEN, tokenAddressRange(q.slice(2)), (_v, raw) => {
          consider(`0x${raw.toString('hex', 1, 21)}`, MATCH_CLASSES.address_prefix);
          return ++n < SEARCH_SCAN_ROWS;
        });
      }
      const ranked = [...found.values()].sort(
        (a, b) =>
          a.cls - b.cls ||
          Number(b.t.confirmedAt !== null) - Number(a.t.confirmedAt !== null) ||
          a.t.firstSeen.block - b.t.firstSeen.block ||
          a.t.firstSeen.txIndex - b.t.firstSeen.txIndex ||
          (a.t.firstSeen.logIndex ?? -1) - (b.t.firstSeen.logIndex ?? -1),
      );
      return {
        rows: ranked.slice(0, limit).map((r) => ({ matchClass: r.cls, ...tokenListRow(r.t) })),
        truncated: ranked.length > limit,
      };
    },
    launch: (view, token, at) => launchAt(view, K(token), at),
    launchpads: () =>
      LAUNCHPADS.map((l) => {
        const d = deps.launchpads.get(l.name);
        return {
          name: l.name,
          displayName: l.displayName,
          deployments: d ? [d] : [],
          deploymentsReason: d ? null : 'not_configured_for_this_chain',
        };
      }),
    padLaunches(view, name, page, sink) {
      const pad = LAUNCHPADS.find((l) => l.name === name);
      if (!pad) throw new DomainError('not_found', `no registered launchpad "${name}"; see /launchpads`);
      view.each(
        PAD_LAUNCH,
        {
          prefix: [pad.index],
          reverse: page.order === 'desc',
          resume: { under: [pad.index], suffix: page.after },
        },
        (token, [, block], raw) => {
          if (block > page.at) return true;
          const l = launchAt(view, token, page.at);
          return l ? sink(l, Buffer.from(raw.subarray(3))) : true;
        },
      );
    },
  };
  return { ...reader, ...tokenResponses(reader) };
}
