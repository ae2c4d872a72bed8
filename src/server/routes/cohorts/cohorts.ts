/**
 * Funding cohorts. Admission rule (version 1), published here and in the contract: a cohort of
 * token T and funder F is the set of wallets whose FIRST incoming native transfer came from F
 * (signal `shared_first_native_funder`) and that bought T in a trade they originated
 * (signal `bought_token`); a cohort exists when it has at least 2 members. Members screened by
 * a current entity override (ENTITY_OVERRIDES_FILE) are dropped and listed in `screenedOut`.
 * The funding generation of T counts admitted candidacies; a cohort-by-token cursor is bound to it.
 */
import { Type } from '@sinclair/typebox';
import { KeyBuilder, prefixEnd } from '../../../storage/keys.js';
import type { FundingEdge } from '../../../wallets/model.js';
import { COHORT_RULE_VERSION, cohortIdOf } from '../../../wallets/projection.js';
import { cohortIdKey, edgeInKey, generationKey, NATIVE_ASSET, WalletTable } from '../../../wallets/tables.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { type Ctx, defineRoute, single } from '../../route.js';
import { Address, CohortId, Paged, Single } from '../../schemas.js';

export const ADMISSION_RULE = {
  ruleVersion: COHORT_RULE_VERSION,
  kind: 'Funding',
  signals: ['shared_first_native_funder', 'bought_token'],
  thresholds: { minMembers: 2 },
  description:
    'wallets whose first incoming native transfer came from the same funder and which originated a buy of the token',
};
const cursorQ = {
  cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
};

function generationOf(ctx: Ctx<unknown, unknown>, token: string): number {
  const g = ctx.chain.store.rocks.get(generationKey(token));
  return g ? g.readUInt32BE(0) * 0x1_0000_0000 + g.readUInt32BE(4) : 0;
}

function membersOf(ctx: Ctx<unknown, unknown>, token: string, funder: string) {
  const pre = new KeyBuilder(41).u8(WalletTable.COHORT_CAND).hex(token).hex(funder).done();
  return ctx.chain.store.rocks
    .scan({ gte: pre, lt: prefixEnd(pre), limit: 10_000 })
    .map(([k, v]) => ({
      wallet: `0x${k.toString('hex', 41, 61)}`,
      buy: JSON.parse(v.toString()) as { block: number; txIndex: number; logIndex: number; txHash: string },
    }))
    .filter((m) => m.buy.block <= ctx.anchor.number);
}

function freshness(ctx: Ctx<unknown, unknown>) {
  const f = {
    ruleVersion: COHORT_RULE_VERSION,
    overridesVersion: ctx.chain.overridesVersion,
    currentRuleVersion: COHORT_RULE_VERSION,
    currentOverridesVersion: ctx.chain.overridesVersion,
    stale: false,
    staleReasons: [] as string[],
  };
  return f;
}

function resolve(ctx: Ctx<{ id: string }, unknown>) {
  requireProjection(ctx.chain, 'wallets');
  const v = ctx.chain.store.rocks.get(cohortIdKey(ctx.params.id));
  if (!v) throw new ApiError('not_found', `no cohort ${ctx.params.id}`);
  const { token, funder } = JSON.parse(v.toString()) as { token: string; funder: string };
  const members = membersOf(ctx, token, funder);
  if (members.length < 2)
    throw new ApiError('not_found', `cohort ${ctx.params.id} has fewer than 2 members at the anchored block`);
  const screenedOut = members.filter((m) => ctx.chain.overrides.has(m.wallet));
  return { token, funder, members: members.filter((m) => !ctx.chain.overrides.has(m.wallet)), screenedOut };
}

const common = (ctx: Ctx<unknown, unknown>, token: string, screenedOut: Array<{ wallet: string }>) => ({
  freshness: freshness(ctx),
  screened: screenedOut.length > 0,
  screenedOut: screenedOut.map((m) => ({ wallet: m.wallet, reason: 'entity_override' })),
  cohortsComplete: true,
  cohortsIncompleteReason: null,
  fundingGeneration: generationOf(ctx, token),
});

export const cohortsByTokenRoute = defineRoute({
  id: 'cohorts.byToken',
  method: 'GET',
  path: '/cohorts',
  scope: 'read',
  group: 'Cohorts',
  summary: `Funding cohorts seeded by members funded in this token, ascending cohort id. Admission rule v${COHORT_RULE_VERSION}: ${ADMISSION_RULE.description}; at least ${ADMISSION_RULE.thresholds.minMembers} members. The cursor is bound to the token's funding generation: 409 stale_cursor when a new generation exists. primary marks the anchor asset (native).`,
  query: { token: Address, ...cursorQ },
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    requireProjection(ctx.chain, 'wallets');
    const token = ctx.query.token.toLowerCase();
    const gen = generationOf(ctx, token);
    const req = pageRequest(ctx as never, `${this.id}:${token}`, { limit: 100 });
    if (req.after && req.after.readUInt32BE(8) !== gen) {
      throw new ApiError(
        'stale_cursor',
        `the funding generation of ${token} moved to ${gen}; restart from page one`,
      );
    }
    const pre = new KeyBuilder(21).u8(WalletTable.COHORT_CAND).hex(token).done();
    const groups = new Map<string, number>();
    ctx.chain.store.rocks.each({ gte: pre, lt: prefixEnd(pre) }, (k, v) => {
      if ((JSON.parse(v.toString()) as { block: number }).block > req.anchor.number) return true;
      const f = `0x${k.toString('hex', 21, 41)}`;
      groups.set(f, (groups.get(f) ?? 0) + 1);
      return true;
    });
    const list = [...groups]
      .filter(([, n]) => n >= 2)
      .map(([funder, size]) => ({ id: cohortIdOf(token, funder, COHORT_RULE_VERSION), funder, size }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const afterId = req.after ? req.after.toString('hex', 0, 8) : null;
    const b = new PageBuilder(ctx as never, req);
    for (const c of list) {
      if (afterId && c.id <= afterId) continue;
      const key = Buffer.alloc(12);
      Buffer.from(c.id, 'hex').copy(key, 0);
      key.writeUInt32BE(gen, 8);
      if (
        !b.push(
          JSON.stringify({
            id: c.id,
            kind: 'Funding',
            token,
            funder: c.funder,
            size: c.size,
            primaryAsset: { assetKind: 'native', asset: null, primary: true },
            generation: gen,
          }),
          key,
        )
      )
        break;
    }
    return b.finish(
      `"token":"${token}","admissionRule":${JSON.stringify(ADMISSION_RULE)},"fundingGeneration":${gen}`,
    );
  },
});

export const cohortDetailRoute = defineRoute({
  id: 'cohorts.detail',
  method: 'GET',
  path: '/cohorts/{id}',
  scope: 'read',
  group: 'Cohorts',
  summary:
    'Cohort metadata: kind (Funding), size, primary asset, generation, freshness {ruleVersion, overridesVersion, currentRuleVersion, currentOverridesVersion, stale, staleReasons} and hoisted stale.',
  params: { id: CohortId },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const c = resolve(ctx);
    const f = freshness(ctx);
    return single(
      ctx.anchor,
      JSON.stringify({
        id: ctx.params.id,
        kind: 'Funding',
        token: c.token,
        funder: c.funder,
        size: c.members.length,
        primaryAsset: { assetKind: 'native', asset: null },
        generation: generationOf(ctx, c.token),
        freshness: f,
        stale: f.stale,
        admissionRule: ADMISSION_RULE,
      }),
    );
  },
});

export const cohortMembersRoute = defineRoute({
  id: 'cohorts.members',
  method: 'GET',
  path: '/cohorts/{id}/members',
  scope: 'read',
  group: 'Cohorts',
  summary:
    'Member wallets with admittedBy {signals, edge, funder, assetKind, asset, firstBlock (funding), lastBlock (first buy)}; screened members dropped and listed in screenedOut.',
  params: { id: CohortId },
  query: cursorQ,
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const c = resolve(ctx);
    const req = pageRequest(ctx as never, `${this.id}:${ctx.params.id}`, { limit: 100 });
    const b = new PageBuilder(ctx as never, req);
    const after = req.after ? `0x${req.after.toString('hex')}` : null;
    for (const m of c.members) {
      if (after && m.wallet <= after) continue;
      const e = ctx.chain.store.rocks.get(edgeInKey(m.wallet, c.funder, NATIVE_ASSET));
      const edge = e ? (JSON.parse(e.toString()) as FundingEdge) : null;
      const row = {
        wallet: m.wallet,
        admittedBy: {
          signals: ADMISSION_RULE.signals,
          edge: edge ? { from: c.funder, to: m.wallet, ...edge.first } : null,
          funder: c.funder,
          assetKind: 'native',
          asset: null,
          firstBlock: edge?.first.block ?? null,
          lastBlock: m.buy.block,
        },
        firstBuy: m.buy,
      };
      if (!b.push(JSON.stringify(row), Buffer.from(m.wallet.slice(2), 'hex'))) break;
    }
    return b.finish(JSON.stringify(common(ctx, c.token, c.screenedOut)).slice(1, -1));
  },
});

export const cohortEdgesRoute = defineRoute({
  id: 'cohorts.edges',
  method: 'GET',
  path: '/cohorts/{id}/edges',
  scope: 'read',
  group: 'Cohorts',
  summary:
    'Evidence edges: funding (funder → member, first native transfer) and buy (member → token, first buy coordinate); screened members’ edges withheld (screenedOut).',
  params: { id: CohortId },
  query: cursorQ,
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const c = resolve(ctx);
    const req = pageRequest(ctx as never, `${this.id}:${ctx.params.id}`, { limit: 100 });
    const b = new PageBuilder(ctx as never, req);
    const after = req.after ? req.after.toString('hex') : null;
    for (const m of c.members) {
      const e = ctx.chain.store.rocks.get(edgeInKey(m.wallet, c.funder, NATIVE_ASSET));
      const edge = e ? (JSON.parse(e.toString()) as FundingEdge) : null;
      const rows: Array<[string, unknown]> = [
        [
          `${m.wallet.slice(2)}00`,
          {
            kind: 'funding',
            from: c.funder,
            to: m.wallet,
            assetKind: 'native',
            asset: null,
            ...(edge?.first ?? {}),
          },
        ],
        [`${m.wallet.slice(2)}01`, { kind: 'buy', from: m.wallet, to: c.token, ...m.buy }],
      ];
      for (const [k, r] of rows) {
        if (after && k <= after) continue;
        if (!b.push(JSON.stringify(r), Buffer.from(k, 'hex')))
          return b.finish(JSON.stringify(common(ctx, c.token, c.screenedOut)).slice(1, -1));
      }
    }
    return b.finish(JSON.stringify(common(ctx, c.token, c.screenedOut)).slice(1, -1));
  },
});
