/**
 * The token scan: supply, holders, holder concentration (top-10 share excluding venues and burn
 * sinks), creator and the creator's other tokens, authority events, launch state, bundles' share
 * of supply with evidence, the first buyers, and venues and liquidity with the USD mark. Read
 * through the tokens, cohorts, addresses and markets readers at the answer's anchor.
 */

import type {
  AuthorityEvent,
  HolderCount,
  HolderRow,
  LaunchRow,
  TokenListRow,
} from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { collect, isVenueLabel, type Share, shareOf } from './common.js';
import { BUY_RULE, type Bundles, type Buy, bundlesOf, firstBuys } from './token.js';
import { type TokenVenues, tokenVenues } from './venues.js';

/** Holders counted in the concentration figure. */
export const TOP_HOLDERS = 10;
/** Venue holders skipped at most while looking for the top holders. */
const VENUE_SKIP = 50;
/** The creator's other tokens listed at most. */
const CREATOR_TOKENS = 50;
/** Authority events listed at most. */
const AUTHORITY_EVENTS = 100;
/** First buyers listed. */
const FIRST_BUYERS = 10;

export const CONCENTRATION_RULE = `share of supply held by the ${TOP_HOLDERS} largest holders by transfer-sum balance at the anchor, burn sinks (0x0, 0x…dead) and venues (addresses labelled pool or launchpad:<name>) excluded`;

export interface TokenScan {
  kind: 'token';
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  firstSeen: { block: number; txIndex: number; logIndex: number | null; txHash: string; evidence: string };
  /** Minted minus burned from transfers at the anchor, base units. */
  supply: string;
  holders: HolderCount;
  concentration: {
    rule: string;
    top: Array<{ rank: number; wallet: string; balance: string; share: Share | null }>;
    topShare: Share | null;
    excluded: Array<{ wallet: string; balance: string; label: string }>;
    complete: boolean;
  };
  creator: {
    deployer: string | null;
    deployerReason: 'creation_not_observed' | null;
    via: 'transaction' | 'launchpad' | null;
    created: { block: number; txIndex: number; txHash: string } | null;
    otherTokens: TokenListRow[];
    otherTokensComplete: boolean;
  };
  authorityEvents: { rows: AuthorityEvent[]; complete: boolean };
  launch: LaunchRow | null;
  launchReason: 'not_launched_on_a_registered_launchpad' | null;
  bundles: Bundles;
  firstBuyers: { rule: string; rows: Buy[]; transfersRead: number; complete: boolean };
  venues: TokenVenues;
}

/** Top holders excluding venues (burn sinks are never in the balance ranking). */
function concentration(rc: ReadCtx, token: string, supply: bigint): TokenScan['concentration'] {
  const { rows, more } = collect<HolderRow>(
    (q, sink) => rc.readers.tokens.holdersByBalance(rc.view, token, q, sink),
    rc.anchor.block,
    TOP_HOLDERS + VENUE_SKIP,
    'desc',
  );
  const top: TokenScan['concentration']['top'] = [];
  const excluded: TokenScan['concentration']['excluded'] = [];
  for (const h of rows) {
    if (top.length >= TOP_HOLDERS) break;
    const venue = rc.readers.addresses
      .labels(rc.view, h.wallet, rc.anchor.block)
      .find((l) => isVenueLabel(l.label));
    if (venue) excluded.push({ wallet: h.wallet, balance: h.balance.toString(), label: venue.label });
    else
      top.push({
        rank: top.length + 1,
        wallet: h.wallet,
        balance: h.balance.toString(),
        share: shareOf(h.balance, supply),
      });
  }
  const sum = top.reduce((s, h) => s + BigInt(h.balance), 0n);
  return {
    rule: CONCENTRATION_RULE,
    top,
    topShare: shareOf(sum, supply),
    excluded,
    complete: top.length >= TOP_HOLDERS || !more,
  };
}

/** Scans token `address` at the anchor. @throws DomainError not_found when it is not indexed. */
export function tokenScan(rc: ReadCtx, address: string): TokenScan {
  const a = address.toLowerCase();
  const { tokens } = rc.readers;
  const at = rc.anchor.block;
  const t = tokens.token(rc.view, a, at);
  const supply = tokens.supply(rc.view, a, at);
  const deployer = t.creation?.deployer.toLowerCase() ?? null;
  const others = deployer
    ? collect<TokenListRow>(
        (q, sink) => tokens.creatorTokens(rc.view, deployer, q, sink),
        at,
        CREATOR_TOKENS + 1,
      )
    : { rows: [], more: false };
  const otherTokens = others.rows.filter((r) => r.address.toLowerCase() !== a).slice(0, CREATOR_TOKENS);
  const auth = collect<AuthorityEvent>(
    (q, sink) => tokens.authorityEvents(rc.view, a, q, sink),
    at,
    AUTHORITY_EVENTS,
  );
  const launch = tokens.launch(rc.view, a, at);
  const fb = firstBuys(rc, a);
  const m = t.metadata;
  return {
    kind: 'token',
    address: a,
    name: m?.name.value ?? null,
    symbol: m?.symbol.value ?? null,
    decimals: m?.decimals.value ?? null,
    firstSeen: t.firstSeen,
    supply: supply.toString(),
    holders: tokens.holderCount(rc.view, t, at),
    concentration: concentration(rc, a, supply),
    creator: {
      deployer,
      deployerReason: t.creation ? null : t.creationReason,
      via: t.creation?.via ?? null,
      created: t.creation
        ? { block: t.creation.block, txIndex: t.creation.txIndex, txHash: t.creation.txHash }
        : null,
      otherTokens,
      otherTokensComplete: !others.more,
    },
    authorityEvents: { rows: auth.rows, complete: !auth.more },
    launch,
    launchReason: launch ? null : 'not_launched_on_a_registered_launchpad',
    bundles: bundlesOf(rc, a),
    firstBuyers: {
      rule: BUY_RULE,
      rows: fb.buys.slice(0, FIRST_BUYERS),
      transfersRead: fb.transfersRead,
      complete: fb.complete,
    },
    venues: tokenVenues(rc, a),
  };
}
