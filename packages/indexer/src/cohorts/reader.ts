/**
 * The cohorts reader: funding cohorts as of an anchor, read from the wallets projection's cohort
 * tables through a request's {@link View}. Admission rule (version {@link COHORT_RULE_VERSION}),
 * held here once: a cohort of token T and funder F is the set of wallets whose FIRST incoming
 * native transfer came from F (signal `shared_first_native_funder`) and that originated a buy of T
 * (signal `bought_token`, first buy coordinate); it exists when it has at least 2 members at the
 * anchor. Members screened by a current entity override (ENTITY_OVERRIDES_FILE) are dropped and
 * listed in `screenedOut`. The funding generation of T counts admitted candidacies; a
 * cohorts-by-token cursor is bound to it.
 */

import { DomainError } from '../errors/index.js';
import { lowerHex } from '../schema/codec.js';
import { COHORT_EDGES, COHORT_MEMBERS, COHORTS_BY_TOKEN } from '../schema/cursors.js';
import type { CohortCandidate } from '../schema/rows/wallets.js';
import {
  COHORT_CAND,
  COHORT_ID,
  COHORT_RULE_VERSION,
  cohortIdOf,
  EDGE_IN,
  GENERATION,
  GENERATION_HIST,
  NATIVE_ASSET,
  WALLET_COHORT,
} from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';

const K = lowerHex;
/** Candidates of one (token, funder) read at most. */
const MEMBER_SCAN_BOUND = 10_000;
/** Cohorts of one wallet listed at most. */
export const WALLET_COHORT_BOUND = 1000;

/** The published admission rule. */
export const ADMISSION_RULE = {
  ruleVersion: COHORT_RULE_VERSION,
  kind: 'Funding' as const,
  signals: ['shared_first_native_funder', 'bought_token'] as Array<
    'shared_first_native_funder' | 'bought_token'
  >,
  thresholds: { minMembers: 2 },
  description:
    'wallets whose first incoming native transfer came from the same funder and which originated a buy of the token',
};
export type AdmissionRule = typeof ADMISSION_RULE;

/** A cohort of a token (cohorts-by-token row). */
export interface CohortRow {
  id: string;
  kind: 'Funding';
  token: string;
  funder: string;
  size: number;
  primaryAsset: { assetKind: 'native'; asset: null; primary: true };
  generation: number;
}

/** Whether a cohort answer reflects the current rule and overrides. */
export interface Freshness {
  ruleVersion: number;
  overridesVersion: string;
  currentRuleVersion: number;
  currentOverridesVersion: string;
  stale: boolean;
  staleReasons: string[];
}

/** Cohort metadata. */
export interface CohortDetail {
  id: string;
  kind: 'Funding';
  token: string;
  funder: string;
  /** Members at the anchor, screened members excluded. */
  size: number;
  primaryAsset: { assetKind: 'native'; asset: null };
  generation: number;
  freshness: Freshness;
  stale: boolean;
  admissionRule: AdmissionRule;
}

/** The first native transfer from the funder to a member (funding evidence). */
export interface FundingEvidence {
  block: number;
  txIndex: number;
  logIndex: number | null;
  txHash: string;
  /** Wei, decimal string. */
  value: string;
}

/** A cohort member with the evidence that admitted it. */
export interface MemberRow {
  wallet: string;
  admittedBy: {
    signals: AdmissionRule['signals'];
    edge: (FundingEvidence & { from: string; to: string }) | null;
    funder: string;
    assetKind: 'native';
    asset: null;
    /** Block of the funding transfer; null when the edge is absent. */
    firstBlock: number | null;
    /** Block of the first buy. */
    lastBlock: number;
  };
  firstBuy: CohortCandidate;
}

/** An evidence edge: funding (funder → member) or buy (member → token). */
export type EvidenceEdge =
  | ({ kind: 'funding'; from: string; to: string; assetKind: 'native'; asset: null } & FundingEvidence)
  | ({ kind: 'buy'; from: string; to: string } & CohortCandidate);

/** What every member and edge page carries. */
export interface CohortPageExtras {
  freshness: Freshness;
  screened: boolean;
  screenedOut: Array<{ wallet: string; reason: 'entity_override' }>;
  cohortsComplete: boolean;
  cohortsIncompleteReason: 'member_bound_reached' | null;
  fundingGeneration: number;
}

/** A cohort membership of a wallet. */
export interface WalletCohort {
  id: string;
  token: string;
  funder: string;
  size: number;
}

/** A wallet's memberships at the anchor (cohorts of ≥ 2 members), with screening. */
export interface WalletCohorts {
  cohorts: WalletCohort[];
  screenedOut: Array<{ id: string; reason: 'entity_override' }>;
  screened: boolean;
  complete: boolean;
  /** Highest funding generation among the wallet's cohort tokens (0 without cohorts). */
  fundingGeneration: number;
}

export interface CohortsReader {
  readonly admissionRule: AdmissionRule;
  /** Funding generation of `token` (0 before its first candidacy). */
  generation(view: View, token: string): number;
  /**
   * Cohorts of `token` by ascending id; resume key: id (8 bytes) ‖ generation u32.
   * @throws DomainError stale_cursor when the token's funding generation moved since the cursor.
   */
  byToken(
    view: View,
    token: string,
    page: PageQuery,
    sink: PageSink<CohortRow>,
  ): { fundingGeneration: number };
  /** Cohort metadata. @throws DomainError not_found (unknown id, or < 2 members at the anchor). */
  detail(view: View, id: string, at: number): CohortDetail;
  /** Members by wallet (resume key: wallet). @throws DomainError not_found. */
  members(view: View, id: string, page: PageQuery, sink: PageSink<MemberRow>): CohortPageExtras;
  /** Evidence edges, two per member (resume key: wallet ‖ 0 funding / 1 buy). @throws DomainError not_found. */
  edges(view: View, id: string, page: PageQuery, sink: PageSink<EvidenceEdge>): CohortPageExtras;
  /**
   * Cohorts `wallet` belongs to at the end of block `at` (at most {@link WALLET_COHORT_BOUND}):
   * its own candidacies and the members counted at or below `at`, and each token's funding
   * generation at `at`; entity overrides are the current configuration.
   */
  walletCohorts(view: View, wallet: string, at: number): WalletCohorts;
}

/** What the cohorts reader needs besides a request's view. */
export interface CohortsReaderDeps {
  /** Wallets screened out of cohorts (entity overrides). */
  overrides: ReadonlySet<string>;
  /** Version of the overrides file ('0' when none). */
  overridesVersion: string;
}

interface Member {
  wallet: string;
  buy: CohortCandidate;
}

const generationOf = (view: View, token: string) => view.get(GENERATION, K(token)) ?? 0;
/**
 * The funding generation of `token` at the end of block `at` (wallets.funding_generation_history,
 * one reverse seek; 0 before its first candidacy).
 */
const generationAt = (view: View, token: string, at: number) => {
  const t = K(token);
  return view.first(GENERATION_HIST, { prefix: [t], lte: [t, at], reverse: true })?.value ?? 0;
};

/** Candidates of (token, funder) whose first buy is at or before `at`, by wallet (bounded). */
const membersOf = (view: View, token: string, funder: string, at: number): Member[] =>
  view
    .rows(COHORT_CAND, { prefix: [K(token), K(funder)], limit: MEMBER_SCAN_BOUND })
    .filter((r) => r.value.block <= at)
    .map((r) => ({ wallet: r.key[2], buy: r.value }));

/** The first native transfer funder → wallet (the funding signal's evidence), or null. */
const fundingOf = (view: View, wallet: string, funder: string): FundingEvidence | null =>
  view.get(EDGE_IN, K(wallet), K(funder), NATIVE_ASSET)?.first ?? null;

/** Cohorts of `token` at `at` (≥ 2 members), by ascending id. */
function cohortsOfToken(view: View, token: string, at: number) {
  const sizes = new Map<string, number>();
  view.each(COHORT_CAND, { prefix: [K(token)] }, (v, [, funder]) => {
    if (v.block <= at) sizes.set(funder, (sizes.get(funder) ?? 0) + 1);
  });
  return [...sizes]
    .filter(([, n]) => n >= ADMISSION_RULE.thresholds.minMembers)
    .map(([funder, size]) => ({ id: cohortIdOf(K(token), funder, COHORT_RULE_VERSION), funder, size }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** A member row with the evidence that admitted it. */
function memberRow(view: View, funder: string, m: Member): MemberRow {
  const f = fundingOf(view, m.wallet, funder);
  return {
    wallet: m.wallet,
    admittedBy: {
      signals: ADMISSION_RULE.signals,
      edge: f ? { from: funder, to: m.wallet, ...f } : null,
      funder,
      assetKind: 'native',
      asset: null,
      firstBlock: f?.block ?? null,
      lastBlock: m.buy.block,
    },
    firstBuy: m.buy,
  };
}

/** The evidence edges of a member with their kinds (0 funding, 1 buy: the cursor's second part). */
function evidenceOf(
  view: View,
  c: { token: string; funder: string },
  m: Member,
): Array<[number, EvidenceEdge]> {
  const f = fundingOf(view, m.wallet, c.funder);
  // The candidacy requires the funding (first native funder), so its edge row exists.
  const rows: Array<[number, EvidenceEdge]> = f
    ? [[0, { kind: 'funding', from: c.funder, to: m.wallet, assetKind: 'native', asset: null, ...f }]]
    : [];
  rows.push([1, { kind: 'buy', from: m.wallet, to: c.token, ...m.buy }]);
  return rows;
}

/** Creates the cohorts reader (stateless). */
export function createCohortsReader(deps: CohortsReaderDeps): CohortsReader {
  const freshness = (): Freshness => ({
    ruleVersion: COHORT_RULE_VERSION,
    overridesVersion: deps.overridesVersion,
    currentRuleVersion: COHORT_RULE_VERSION,
    currentOverridesVersion: deps.overridesVersion,
    stale: false,
    staleReasons: [],
  });
  const resolve = (view: View, id: string, at: number) => {
    const c = view.get(COHORT_ID, K(`0x${id}`));
    if (!c) throw new DomainError('not_found', `no cohort ${id}`);
    const all = membersOf(view, c.token, c.funder, at);
    if (all.length < ADMISSION_RULE.thresholds.minMembers)
      throw new DomainError('not_found', `cohort ${id} has fewer than 2 members at the anchored block`);
    return {
      ...c,
      members: all.filter((m) => !deps.overrides.has(m.wallet)),
      screenedOut: all.filter((m) => deps.overrides.has(m.wallet)),
      complete: all.length < MEMBER_SCAN_BOUND,
    };
  };
  const extras = (view: View, c: ReturnType<typeof resolve>): CohortPageExtras => ({
    freshness: freshness(),
    screened: c.screenedOut.length > 0,
    screenedOut: c.screenedOut.map((m) => ({ wallet: m.wallet, reason: 'entity_override' })),
    cohortsComplete: c.complete,
    cohortsIncompleteReason: c.complete ? null : 'member_bound_reached',
    fundingGeneration: generationOf(view, c.token),
  });

  return {
    admissionRule: ADMISSION_RULE,
    generation: generationOf,
    byToken(view, token, page, sink) {
      const gen = generationOf(view, token);
      const after = page.after ? COHORTS_BY_TOKEN.decode(page.after) : null;
      if (after && after[1] !== gen)
        throw new DomainError(
          'stale_cursor',
          `the funding generation of ${K(token)} moved to ${gen}; restart from page one`,
        );
      const afterId = after ? after[0].slice(2) : null;
      for (const c of cohortsOfToken(view, token, page.at)) {
        if (afterId && c.id <= afterId) continue;
        const key = COHORTS_BY_TOKEN.encode(`0x${c.id}`, gen);
        const row: CohortRow = {
          id: c.id,
          kind: 'Funding',
          token: K(token),
          funder: c.funder,
          size: c.size,
          primaryAsset: { assetKind: 'native', asset: null, primary: true },
          generation: gen,
        };
        if (!sink(row, key)) break;
      }
      return { fundingGeneration: gen };
    },
    detail(view, id, at) {
      const c = resolve(view, id, at);
      const f = freshness();
      return {
        id,
        kind: 'Funding',
        token: c.token,
        funder: c.funder,
        size: c.members.length,
        primaryAsset: { assetKind: 'native', asset: null },
        generation: generationOf(view, c.token),
        freshness: f,
        stale: f.stale,
        admissionRule: ADMISSION_RULE,
      };
    },
    members(view, id, page, sink) {
      const c = resolve(view, id, page.at);
      const after = page.after ? COHORT_MEMBERS.decode(page.after)[0] : null;
      for (const m of c.members) {
        if (after && m.wallet <= after) continue;
        if (!sink(memberRow(view, c.funder, m), COHORT_MEMBERS.encode(K(m.wallet)))) break;
      }
      return extras(view, c);
    },
    edges(view, id, page, sink) {
      const c = resolve(view, id, page.at);
      const after = page.after ? COHORT_EDGES.decode(page.after) : null;
      walk: for (const m of c.members)
        for (const [kind, r] of evidenceOf(view, c, m)) {
          if (after && (m.wallet < after[0] || (m.wallet === after[0] && kind <= after[1]))) continue;
          if (!sink(r, COHORT_EDGES.encode(K(m.wallet), kind))) break walk;
        }
      return extras(view, c);
    },
    walletCohorts(view, wallet, at) {
      const out: WalletCohort[] = [];
      let complete = true;
      view.each(WALLET_COHORT, { prefix: [K(wallet)] }, (_v, [, token, funder]) => {
        if (out.length >= WALLET_COHORT_BOUND) {
          complete = false;
          return false;
        }
        // A candidacy of the wallet's own that starts after `at` is no membership at `at`.
        const own = view.get(COHORT_CAND, K(token), K(funder), K(wallet));
        if (!own || own.block > at) return true;
        const size = membersOf(view, token, funder, at).length;
        if (size >= ADMISSION_RULE.thresholds.minMembers)
          out.push({ id: cohortIdOf(token, funder, COHORT_RULE_VERSION), token, funder, size });
        return true;
      });
      const screened = deps.overrides.has(K(wallet));
      const gens = out.map((c) => generationAt(view, c.token, at));
      return {
        cohorts: screened ? [] : out,
        screenedOut: screened ? out.map((c) => ({ id: c.id, reason: 'entity_override' as const })) : [],
        screened,
        complete,
        fundingGeneration: gens.length ? Math.max(...gens) : 0,
      };
    },
  };
}
