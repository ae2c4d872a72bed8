/**
 * Funding cohorts (admission rule and its evidence: src/cohorts/reader.ts). A cohorts-by-token
 * cursor is bound to the token's funding generation (409 stale_cursor once it moves).
 */

import { type TSchema, Type } from '@sinclair/typebox';
import { ADMISSION_RULE } from '../../../cohorts/index.js';
import type { AnyCursor } from '../../../schema/cursor.js';
import { COHORT_EDGES, COHORT_MEMBERS, COHORTS_BY_TOKEN } from '../../../schema/cursors.js';
import type { Route } from '../../route.js';
import { type PagedRouteSpec, pagedRoute, singleRoute } from '../../route-shapes.js';
import { Address, CohortId, Count } from '../../schemas.js';
import {
  AdmissionRule,
  CohortDetail,
  CohortPageExtras,
  CohortRow,
  EvidenceEdge,
  MemberRow,
  WALLETS,
} from './schemas.js';

const cursorQ = {
  cursor: Type.Optional(Type.String({ maxLength: 1024, description: 'opaque cursor from page.nextCursor' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
};

/**
 * A PAGE route of one cohort's rows (`/cohorts/{id}/…`): scope read, group Cohorts, the wallets
 * projection, the cohort page extras, 404 for an unknown cohort, the cursor bound to the id.
 */
function cohortPage<R>(o: {
  id: string;
  /** The walk's declared cursor (src/schema/cursors.ts). */
  cursor: AnyCursor;
  path: string;
  summary: string;
  row: TSchema;
  walk: PagedRouteSpec<{ id: typeof CohortId }, typeof cursorQ, R>['walk'];
}): Route {
  return pagedRoute({
    id: o.id,
    cursor: o.cursor,
    path: o.path,
    scope: 'read',
    group: 'Cohorts',
    summary: o.summary,
    params: { id: CohortId },
    query: cursorQ,
    row: o.row,
    extra: CohortPageExtras,
    errors: ['not_found', 'bad_cursor', 'stale_cursor'],
    requires: [WALLETS],
    subject: (ctx) => ctx.params.id,
    walk: o.walk,
  });
}

export const cohortsByTokenRoute = pagedRoute({
  id: 'cohorts.byToken',
  cursor: COHORTS_BY_TOKEN,
  path: '/cohorts',
  scope: 'read',
  group: 'Cohorts',
  summary: `Funding cohorts seeded by members funded in this token, ascending cohort id. Admission rule v${ADMISSION_RULE.ruleVersion}: ${ADMISSION_RULE.description}; at least ${ADMISSION_RULE.thresholds.minMembers} members. The cursor is bound to the token's funding generation: 409 stale_cursor when a new generation exists. primary marks the anchor asset (native).`,
  query: { token: Address, ...cursorQ },
  row: CohortRow,
  extra: {
    token: Address,
    admissionRule: AdmissionRule,
    fundingGeneration: Count('funding generation of the token at the anchor'),
  },
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS],
  subject: (ctx) => ctx.query.token.toLowerCase(),
  walk(ctx, q, sink) {
    const token = ctx.query.token.toLowerCase();
    const { fundingGeneration } = ctx.readers.cohorts.byToken(ctx.view, token, q, sink);
    return { token, admissionRule: ADMISSION_RULE, fundingGeneration };
  },
});

export const cohortDetailRoute = singleRoute({
  id: 'cohorts.detail',
  path: '/cohorts/{id}',
  scope: 'read',
  group: 'Cohorts',
  summary:
    'Cohort metadata: kind (Funding), size, primary asset, generation, freshness {ruleVersion, overridesVersion, currentRuleVersion, currentOverridesVersion, stale, staleReasons} and hoisted stale.',
  params: { id: CohortId },
  data: CohortDetail,
  errors: ['not_found'],
  requires: [WALLETS],
  read(ctx) {
    const d = ctx.readers.cohorts.detail(ctx.view, ctx.params.id, ctx.anchor.number);
    return d;
  },
});

export const cohortMembersRoute = cohortPage({
  id: 'cohorts.members',
  cursor: COHORT_MEMBERS,
  path: '/cohorts/{id}/members',
  summary:
    'Member wallets by address with admittedBy {signals, edge, funder, assetKind, asset, firstBlock (funding), lastBlock (first buy)} and firstBuy; screened members dropped and listed in screenedOut.',
  row: MemberRow,
  walk: (ctx, q, sink) => ctx.readers.cohorts.members(ctx.view, ctx.params.id, q, sink),
});

export const cohortEdgesRoute = cohortPage({
  id: 'cohorts.edges',
  cursor: COHORT_EDGES,
  path: '/cohorts/{id}/edges',
  summary:
    'Evidence edges, two per member by member address: funding (funder → member, first native transfer, value in wei) and buy (member → token, first buy coordinate); screened members’ edges withheld (screenedOut).',
  row: EvidenceEdge,
  walk: (ctx, q, sink) => ctx.readers.cohorts.edges(ctx.view, ctx.params.id, q, sink),
});
