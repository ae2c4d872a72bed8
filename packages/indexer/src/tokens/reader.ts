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
import type { TableCursor } from '../schema/cursor.js';
import {
  TOKEN_AUTHORITY_EVENTS,
  TOKEN_CATALOGUE,
  TOKEN_CREATOR_TOKENS,
  TOKEN_HOLDERS_BY_BALANCE,
  TOKEN_HOLDERS_BY_WALLET_ID,
  TOKEN_PAD_LAUNCHES,
  TOKEN_TRANSFERS,
} from '../schema/cursors.js';
import type { TokenRow } from '../schema/rows/tokens.js';
import {
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
  tokenAddressRange,
  WALLET_BY_ID,
} from '../schema/tables/tokens.js';
import type { View } from '../storage/index.js';
import type { PageQuery } from '../storage/page.js';
import { walkVersioned } from '../storage/versioned.js';
import { fidelityFrom } from './fidelity.js';
import { LAUNCHPADS, type LaunchpadDeployments } from './launchpads.js';
import type {
  BalanceWithCoverage,
  HolderCount,
  HolderIdRow,
  HolderRow,
  LaunchpadEntry,
  MetadataNow,
  OverviewHolderCount,
  TokenCoverage,
  TokensPrimitives,
} from './primitives.js';
import { balanceAt, launchAt, statsAt, tokenAt } from './read.js';
import { tokenListRow } from './render.js';
import { type TokenResponses, tokenResponses } from './responses.js';

export type {
  BalanceWithCoverage,
  HolderCount,
  HolderIdRow,
  HolderRow,
  LaunchpadEntry,
  OverviewHolderCount,
  TokenCoverage,
  TokensPrimitives,
};

const K = lowerHex;

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

/** The tokens reader: its primitives and the token routes' one-call answers (./responses.ts). */
export type TokensReader = TokensPrimitives & TokenResponses;

/** The metadata re-probe of a reconciliation row (metadata "on change"). */
const metadataNowOf = (r: ReturnType<typeof RECON.value.decode> | undefined): MetadataNow => ({
  now: r?.metadataNow ?? null,
  changed: r?.metadataChanged ?? false,
  checkedAtBlock: r?.checkedAtBlock ?? null,
});

/** Creates the tokens reader (stateless; `launchpads` are this chain's registered deployments). */
export function createTokensReader(deps: { launchpads: LaunchpadDeployments }): TokensReader {
  const lastChange = (view: View, token: string) => view.get(STATS, K(token))?.lastChangeBlock ?? 0;
  /**
   * Walks the table of cursor `c` keyed (prefix…, block u64, …) in chain order, skipping rows
   * after the anchor; the resume key is the cursor's tail.
   */
  const chainOrder = <V>(
    view: View,
    // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
    c: TableCursor<any, V>,
    prefix: unknown[],
    blockAt: (k: unknown[]) => number,
    page: PageQuery,
    visit: (v: V, resume: Buffer) => boolean,
  ) => {
    view.each(
      c.table,
      {
        prefix: prefix as never,
        reverse: page.order === 'desc',
        resume: { under: prefix as never, suffix: page.after },
      },
      (v, k, raw) => {
        if (blockAt(k) > page.at) return true;
        return visit(v, c.tail(raw));
      },
    );
  };

  /** Walks a token's rows of the cursor's table (keyed token address, block u64, …) in chain order. */
  const byToken = <V>(
    view: View,
    // biome-ignore lint/suspicious/noExplicitAny: tables of different key tuples share the walk
    c: TableCursor<any, V>,
    token: string,
    page: PageQuery,
    sink: (v: V, resume: Buffer) => boolean,
  ) => chainOrder(view, c, [K(token)], (k) => k[1] as number, page, sink);

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
    metadataNow: (view, token) => metadataNowOf(view.get(RECON, K(token))),
    reconciliation(view, token) {
      const r = view.get(RECON, K(token));
      return { fidelity: fidelityFrom(r), metadataNow: metadataNowOf(r) };
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
      // Cursor key: the index's sort key (inverted balance, wallet) then the rank, shared with /top-holders.
      const C = TOKEN_HOLDERS_BY_BALANCE;
      const after = page.after ? C.head(page.after, 2) : null;
      let rank = page.after ? C.decode(page.after)[2] : 0;
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
      for (const r of rows) {
        rank++;
        const [balance, wallet] = C.decodeHead(r.sortKey, 2) as [bigint, `0x${string}`];
        const row: HolderRow = { rank, wallet, balance };
        if (!sink(row, C.encode(balance, wallet, rank))) return;
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
        const [walletId] = TOKEN_HOLDERS_BY_WALLET_ID.decode(r.sortKey);
        const row: HolderIdRow = {
          walletId,
          wallet: view.get(WALLET_BY_ID, walletId) ?? '0x',
          balance: r.value.balance,
        };
        if (!sink(row, TOKEN_HOLDERS_BY_WALLET_ID.encode(walletId))) return;
      }
    },
    transfers(view, token, page, sink) {
      byToken(view, TOKEN_TRANSFERS, token, page, sink);
    },
    authorityEvents(view, token, page, sink) {
      byToken(view, TOKEN_AUTHORITY_EVENTS, token, page, sink);
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
          return t ? sink(tokenListRow(t), TOKEN_CREATOR_TOKENS.tail(raw)) : true;
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
          return t ? sink(tokenListRow(t), TOKEN_CATALOGUE.tail(raw)) : true;
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
          return l ? sink(l, TOKEN_PAD_LAUNCHES.tail(raw)) : true;
        },
      );
    },
  };
  return { ...reader, ...tokenResponses(reader) };
}
