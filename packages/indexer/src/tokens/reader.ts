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
import type { TokenRow } from '../schema/rows/tokens.js';
import {
  BALANCE_HIST,
  RECON,
  SEARCH,
  searchTermRange,
  TOKEN,
  tokenAddressRange,
} from '../schema/tables/tokens.js';
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
import { TOKEN_WALKS } from './walks.js';

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
    ...TOKEN_WALKS,
  };
  return { ...reader, ...tokenResponses(reader) };
}
