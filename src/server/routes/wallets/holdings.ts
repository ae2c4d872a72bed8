/** Holdings routes: assets, portfolio, overview, cohorts of a wallet. */
import { Type } from '@sinclair/typebox';
import { rational, ratJson } from '../../../markets/rational.js';
import { tokenPools } from '../../../markets/venue.js';
import type { Rocks, View } from '../../../storage/index.js';
import { prefixEnd } from '../../../storage/keys.js';
import { balanceAt, tokenAt } from '../../../tokens/read.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { COHORT_RULE_VERSION, cohortIdOf } from '../../../wallets/projection.js';
import { firstSeenKey, generationKey, WalletTable, walletPrefix } from '../../../wallets/tables.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest } from '../../page.js';
import { anchorJson, defineRoute, single } from '../../route.js';
import { Address, Paged, pageQuery, Single } from '../../schemas.js';
import { walletOf } from './common.js';

const W = { address: Address };
/** Assets a ranked sort reads at most (Limits: sortBudget). */
export const SORT_BUDGET = 500;

interface Asset {
  token: string;
  balance: bigint;
  symbol: string | null;
  decimals: number | null;
  usd: { n: bigint; d: bigint } | null;
  usdReason: string | null;
}

/** Non-zero balances of the wallet at the anchor, in token order, at most `max` tokens examined. */
function holdings(
  ctx: { view: View; chain: { store: { rocks: Rocks }; markets: { usdStablecoins: string[] } } },
  w: string,
  anchor: number,
  after: string | null,
  max: number,
) {
  const rocks = ctx.chain.store.rocks;
  const stables = new Set(ctx.chain.markets.usdStablecoins);
  const pre = walletPrefix(WalletTable.HOLDING, w);
  const out: Asset[] = [];
  let examined = 0;
  let more = false;
  rocks.each(
    after
      ? { gt: Buffer.concat([pre, Buffer.from(after.slice(2), 'hex')]), lt: prefixEnd(pre) }
      : { gte: pre, lt: prefixEnd(pre) },
    (k) => {
      if (examined >= max) {
        more = true;
        return false;
      }
      examined++;
      const token = `0x${k.toString('hex', 21, 41)}`;
      const bal = balanceAt(ctx.view, token, w, anchor);
      if (bal === 0n) return true;
      const t = tokenAt(ctx.view, token, anchor);
      const decimals = t?.metadata?.decimals.value ?? null;
      const usd = stables.has(token) && decimals !== null ? { n: bal, d: 10n ** BigInt(decimals) } : null;
      out.push({
        token,
        balance: bal,
        symbol: t?.metadata?.symbol.value ?? null,
        decimals,
        usd,
        usdReason: usd ? null : stables.has(token) ? 'decimals_unknown' : 'no_usd_route',
      });
      return true;
    },
  );
  return { assets: out, examined, more };
}

const assetJson = (a: Asset) => ({
  token: a.token,
  symbol: a.symbol,
  decimals: a.decimals,
  balance: a.balance.toString(),
  balanceUnit: 'token base units',
  balanceUsd: { value: a.usd ? ratJson(rational(a.usd.n, a.usd.d)) : null, reason: a.usdReason },
});

export const walletAssetsRoute = defineRoute({
  id: 'wallets.assets',
  method: 'GET',
  path: '/wallets/{address}/assets',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Current holdings (non-zero transfer-sum balances, R9). sort=token (default, token order, asc/desc); sort=usd ranks by balanceUsd.value desc (USD stablecoins at par only; unpriced rows last); sort=balance ranks by raw balance desc. Ranked sorts are desc only and read at most ${SORT_BUDGET} assets (sortBudget; sortTruncated when the wallet holds more). limit 1..100.`,
  params: W,
  query: {
    ...pageQuery({ maxLimit: 100, defaultLimit: 50 }),
    sort: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('usd'), Type.Literal('balance')])),
  },
  response: Paged(Type.Object({}, { additionalProperties: true }), {
    sortBudget: Type.Integer(),
    sortTruncated: Type.Boolean(),
  }),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const sort = ctx.query.sort ?? 'token';
    if (sort !== 'token' && ctx.query.order === 'asc')
      throw new ApiError('bad_request', 'ranked sorts are descending only');
    const req = pageRequest(ctx, `${this.id}:${w}:${sort}`, {
      order: sort === 'token' ? 'asc' : 'desc',
      limit: 50,
    });
    const b = new PageBuilder(ctx, req);
    if (sort === 'token') {
      const after = req.after ? `0x${req.after.toString('hex')}` : null;
      const { assets } = holdings(
        ctx,
        w,
        req.anchor.number,
        req.order === 'asc' ? after : null,
        Number.MAX_SAFE_INTEGER,
      );
      const list = req.order === 'asc' ? assets : assets.reverse().filter((a) => !after || a.token < after);
      for (const a of list)
        if (!b.push(JSON.stringify(assetJson(a)), Buffer.from(a.token.slice(2), 'hex'))) break;
      return b.finish(`"wallet":"${w}","sort":"token","sortBudget":${SORT_BUDGET},"sortTruncated":false`);
    }
    const { assets, more } = holdings(ctx, w, req.anchor.number, null, SORT_BUDGET);
    // Ranked cursor: (class, key, tokenId) — class 0 priced / 1 unpriced, key the ranked value.
    const ranked = assets
      .map((a) => ({
        a,
        cls: sort === 'usd' && !a.usd ? 1 : 0,
        key: sort === 'usd' ? (a.usd ? (a.usd.n * 10n ** 36n) / a.usd.d : 0n) : a.balance,
      }))
      .sort(
        (x, y) => x.cls - y.cls || (y.key > x.key ? 1 : y.key < x.key ? -1 : x.a.token < y.a.token ? -1 : 1),
      );
    let start = 0;
    if (req.after) {
      const tok = `0x${req.after.toString('hex', 1 + 32)}`;
      start = ranked.findIndex((r) => r.a.token === tok) + 1;
    }
    for (const r of ranked.slice(start)) {
      const key = Buffer.concat([
        Buffer.from([r.cls]),
        Buffer.from((r.key < 0n ? 0n : r.key).toString(16).padStart(64, '0').slice(-64), 'hex'),
        Buffer.from(r.a.token.slice(2), 'hex'),
      ]);
      if (!b.push(JSON.stringify(assetJson(r.a)), key)) break;
    }
    return b.finish(`"wallet":"${w}","sort":"${sort}","sortBudget":${SORT_BUDGET},"sortTruncated":${more}`);
  },
});

export const walletPortfolioRoute = defineRoute({
  id: 'wallets.portfolio',
  method: 'GET',
  path: '/wallets/{address}/portfolio',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Net worth in USD from holdings that can be marked (USD stablecoins at par; exact rational), with coverage (marked and unmarked assets with reasons) and the basis split (cost basis from trades vs. inventory from transfers). predicate: all (default), liquid (tokens with a registered pool), verified_contracts (tokens with a verified ABI — none registered in this build, reported in coverage), no_privileged_action_observed (tokens without authority events); any other name is refused.',
  params: W,
  query: {
    predicate: Type.Optional(
      Type.Union(
        ['all', 'liquid', 'verified_contracts', 'no_privileged_action_observed'].map((p) => Type.Literal(p)),
      ),
    ),
  },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const predicate = ctx.query.predicate ?? 'all';
    const rocks = ctx.chain.store.rocks;
    const { assets, more } = holdings(ctx, w, ctx.anchor.number, null, SORT_BUDGET);
    const excluded: Array<{ token: string; reason: string }> = [];
    const included = assets.filter((a) => {
      if (predicate === 'liquid' && tokenPools(ctx.view, a.token, ctx.anchor.number).pools.length === 0)
        return excluded.push({ token: a.token, reason: 'no_registered_pool' }) && false;
      if (predicate === 'verified_contracts')
        return excluded.push({ token: a.token, reason: 'no_verified_contract_registry' }) && false;
      if (predicate === 'no_privileged_action_observed') {
        const p = tokenPrefix(TokenTable.AUTHORITY, a.token);
        if (rocks.scan({ gte: p, lt: prefixEnd(p), limit: 1 }).length)
          return excluded.push({ token: a.token, reason: 'privileged_action_observed' }) && false;
      }
      return true;
    });
    let total = rational(0n, 1n);
    for (const a of included)
      if (a.usd) total = rational(total.n * a.usd.d + a.usd.n * total.d, total.d * a.usd.d);
    return single(
      ctx.anchor,
      JSON.stringify({
        wallet: w,
        predicate,
        netWorthUsd: ratJson(total),
        netWorthUsdNote:
          'sum of USD-marked holdings only; unmarked holdings are listed in coverage, never guessed',
        coverage: {
          marked: included
            .filter((a) => a.usd)
            .map((a) => ({ token: a.token, method: 'usd_stablecoin_par' })),
          unmarked: included.filter((a) => !a.usd).map((a) => ({ token: a.token, reason: a.usdReason })),
          excludedByPredicate: excluded,
          assetsExamined: assets.length,
          complete: !more,
        },
        basisSplit: {
          method:
            'per holding: quantity from trades (weighted-average cost basis in /positions) vs. quantity from transfers (no cost basis)',
          holdings: included.map((a) => ({ token: a.token, balance: a.balance.toString() })),
        },
      }),
    );
  },
});

/** Cohort memberships of a wallet at the anchor (cohorts of ≥ 2 members), with screening. */
export function walletCohorts(
  ctx: { chain: { store: { rocks: Rocks } } },
  w: string,
  screened: ReadonlySet<string>,
) {
  const rocks = ctx.chain.store.rocks;
  const pre = walletPrefix(WalletTable.WALLET_COHORT, w);
  const out: Array<{ id: string; token: string; funder: string; size: number }> = [];
  rocks.each({ gte: pre, lt: prefixEnd(pre) }, (k) => {
    const token = `0x${k.toString('hex', 21, 41)}`;
    const funder = `0x${k.toString('hex', 41, 61)}`;
    const mp = Buffer.concat([Buffer.from([WalletTable.COHORT_CAND]), k.subarray(21, 61)]);
    const size = rocks.scan({ gte: mp, lt: prefixEnd(mp), limit: 10_000 }).length;
    if (size >= 2) out.push({ id: cohortIdOf(token, funder, COHORT_RULE_VERSION), token, funder, size });
    return out.length < 1000;
  });
  const isScreened = screened.has(w);
  return {
    cohorts: isScreened ? [] : out,
    screenedOut: isScreened ? out.map((c) => ({ id: c.id, reason: 'entity_override' })) : [],
  };
}

export const walletCohortsRoute = defineRoute({
  id: 'wallets.cohorts',
  method: 'GET',
  path: '/wallets/{address}/cohorts',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Funding cohorts the wallet belongs to (cohort ids, token, shared funder, size); memberships dropped by a current entity override are listed in screenedOut.',
  params: W,
  query: {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const r = walletCohorts(ctx, w, ctx.chain.overrides);
    return single(ctx.anchor, JSON.stringify({ wallet: w, ...r, screened: r.screenedOut.length > 0 }));
  },
});

export const walletOverviewRoute = defineRoute({
  id: 'wallets.overview',
  method: 'GET',
  path: '/wallets/{address}/overview',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'First-paint composite (bounded aggregate, not a page): first seen, top holdings (≤ 10 by raw balance among the first 500), cohort memberships with cohortsComplete, cohortsIncompleteReason and fundingGeneration.',
  params: W,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const rocks = ctx.chain.store.rocks;
    const fs = rocks.get(firstSeenKey(w));
    const { assets, more } = holdings(ctx, w, ctx.anchor.number, null, SORT_BUDGET);
    const top = [...assets]
      .sort((a, b) => (b.balance > a.balance ? 1 : b.balance < a.balance ? -1 : 0))
      .slice(0, 10)
      .map(assetJson);
    const c = walletCohorts(ctx, w, ctx.chain.overrides);
    const gens = c.cohorts.map((x) => {
      const g = rocks.get(generationKey(x.token));
      return g ? g.readUInt32BE(0) * 0x1_0000_0000 + g.readUInt32BE(4) : 0;
    });
    return {
      json: `{"anchor":${anchorJson(ctx.anchor)},"data":${JSON.stringify({
        wallet: w,
        firstSeen: fs ? JSON.parse(fs.toString()) : null,
        firstSeenReason: fs ? null : 'not_observed',
        topHoldings: top,
        holdingsComplete: !more,
        cohorts: c.cohorts,
        screenedOut: c.screenedOut,
        cohortsComplete: c.cohorts.length < 1000,
        cohortsIncompleteReason: c.cohorts.length < 1000 ? null : 'membership_bound_reached',
        fundingGeneration: gens.length ? Math.max(...gens) : 0,
      })}}`,
    };
  },
});
