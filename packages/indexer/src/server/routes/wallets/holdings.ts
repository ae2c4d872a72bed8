/** Holdings routes: assets, portfolio, overview, cohorts of a wallet. */

import { Type } from '@sinclair/typebox';
import { WALLET_ASSETS_BY_TOKEN, WALLET_ASSETS_RANKED } from '../../../schema/cursors.js';
import { type AssetRow, SORT_BUDGET } from '../../../wallets/index.js';
import { ApiError } from '../../errors.js';
import { type PageSink, paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { singleRoute } from '../../route-shapes.js';
import { Address, Count, Enum, Nullable, Obj, Paged, pageQuery, ReasonOf } from '../../schemas.js';
import { ScreenedCohort, WalletCohort } from '../cohorts/schemas.js';
import { walletRead } from './history.js';
import { AS_OF_HOLDINGS, Asset, FirstSeen, PriceRational, WALLETS, WalletExtra } from './schemas.js';

const W = { address: Address };
const PREDICATES = ['all', 'liquid', 'verified_contracts', 'no_privileged_action_observed'] as const;

export const walletAssetsRoute = defineRoute({
  id: 'wallets.assets',
  method: 'GET',
  cached: true,
  path: '/wallets/{address}/assets',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Current holdings (non-zero transfer-sum balances in token base units, R9). sort=token (default, token order, asc/desc); sort=usd ranks by balanceUsd.value desc (USD stablecoins at par only; unpriced rows last); sort=balance ranks by raw balance desc. Ranked sorts are desc only and read at most ${SORT_BUDGET} assets (sortBudget; sortTruncated when the wallet holds more). limit 1..100.${AS_OF_HOLDINGS}`,
  params: W,
  query: {
    ...pageQuery({ maxLimit: 100, defaultLimit: 50 }),
    sort: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('usd'), Type.Literal('balance')])),
  },
  response: Paged(Asset, {
    ...WalletExtra,
    sort: Enum(['token', 'usd', 'balance'], 'the sort applied'),
    sortBudget: Count('assets a ranked sort reads at most'),
    sortTruncated: Type.Boolean({ description: 'a ranked sort stopped at the budget (more holdings exist)' }),
  }),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor'],
  requires: [WALLETS, 'tokens'],
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    const sort = ctx.query.sort ?? 'token';
    if (sort !== 'token' && ctx.query.order === 'asc')
      throw new ApiError('bad_request', 'ranked sorts are descending only');
    const order = sort === 'token' ? 'asc' : 'desc';
    return paged(
      ctx,
      (sort === 'token' ? WALLET_ASSETS_BY_TOKEN : WALLET_ASSETS_RANKED).tag(this.id, w, sort),
      (q, sink: PageSink<AssetRow>) => {
        const r = ctx.readers.wallets.assets(ctx.view, w, sort, q, sink);
        return { wallet: w, sort, sortBudget: r.sortBudget, sortTruncated: r.sortTruncated };
      },
      JSON.stringify,
      { order, limit: 50 },
    );
  },
});

const Token = (extra: Record<string, ReturnType<typeof Enum>>) => Obj({ token: Address, ...extra });

export const walletPortfolioRoute = singleRoute({
  id: 'wallets.portfolio',
  path: '/wallets/{address}/portfolio',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Net worth in USD from holdings that can be marked (USD stablecoins at par; exact rational), with coverage (marked and unmarked assets with reasons) and the basis split (cost basis from trades vs. inventory from transfers). predicate: all (default), liquid (tokens with a registered pool), verified_contracts (tokens with a verified ABI — none registered in this build, reported in coverage), no_privileged_action_observed (tokens without authority events); any other name is refused.' +
    AS_OF_HOLDINGS,
  params: W,
  query: { predicate: Type.Optional(Type.Union(PREDICATES.map((p) => Type.Literal(p)))) },
  data: Obj({
    wallet: Address,
    predicate: Enum(PREDICATES, 'the predicate applied'),
    netWorthUsd: PriceRational('USD (stablecoins at par)'),
    netWorthUsdNote: Type.String({ description: 'what the sum covers' }),
    coverage: Obj({
      marked: Type.Array(Token({ method: Enum(['usd_stablecoin_par'], 'how the holding is marked') })),
      unmarked: Type.Array(
        Token({ reason: Enum(['decimals_unknown', 'no_usd_route'], 'why it has no mark') }),
      ),
      excludedByPredicate: Type.Array(
        Token({
          reason: Enum(
            ['no_registered_pool', 'no_verified_contract_registry', 'privileged_action_observed'],
            'why the predicate excluded it',
          ),
        }),
      ),
      assetsExamined: Count('holdings (non-zero balances) examined'),
      complete: Type.Boolean({ description: `every holding was examined (at most ${SORT_BUDGET} tokens)` }),
    }),
    basisSplit: Obj({
      method: Type.String({ description: 'how the basis is split' }),
      holdings: Type.Array(
        Obj({
          token: Address,
          balance: { ...Asset.properties.balance },
        }),
      ),
    }),
  }),
  errors: ['bad_request'],
  requires: [WALLETS, 'tokens', 'markets'],
  asOf: true,
  read(ctx) {
    const w = ctx.params.address.toLowerCase();
    const p = ctx.readers.wallets.portfolio(ctx.view, w, ctx.query.predicate ?? 'all', ctx.anchor.number);
    return { wallet: w, ...p };
  },
});

export const walletCohortsRoute = singleRoute({
  id: 'wallets.cohorts',
  path: '/wallets/{address}/cohorts',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Funding cohorts the wallet belongs to at the anchor (cohort id, token, shared funder, size ≥ 2); memberships dropped by a current entity override are listed in screenedOut. Bounded at 1000 memberships (complete). As of a block: atBlock / atBlockHash (the wallet’s own candidacy and the members at or below N, fundingGeneration from wallets.funding_generation_history at N; entity overrides are the current configuration).',
  params: W,
  data: Obj({
    wallet: Address,
    cohorts: Type.Array(WalletCohort),
    screenedOut: Type.Array(ScreenedCohort),
    screened: Type.Boolean({ description: 'the wallet is screened by an entity override' }),
    complete: Type.Boolean({ description: 'every membership was read (at most 1000)' }),
    fundingGeneration: Count("highest funding generation among the cohorts' tokens (0 without cohorts)"),
  }),
  errors: [],
  requires: [WALLETS],
  asOf: true,
  read: walletRead((ctx, w) => ctx.readers.cohorts.walletCohorts(ctx.view, w, ctx.anchor.number)),
});

export const walletOverviewRoute = singleRoute({
  id: 'wallets.overview',
  cached: true,
  path: '/wallets/{address}/overview',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'First-paint composite (bounded aggregate, not a page): first seen, top holdings (≤ 10 by raw balance among the first 500), cohort memberships with cohortsComplete, cohortsIncompleteReason and fundingGeneration.' +
    AS_OF_HOLDINGS +
    ' First seen at or below N; cohorts as /wallets/{address}/cohorts at N.',
  params: W,
  data: Obj({
    wallet: Address,
    firstSeen: Nullable(FirstSeen, 'see firstSeenReason'),
    firstSeenReason: ReasonOf(['not_observed'], 'not_observed: the wallet is not in the index at the anchor'),
    topHoldings: Type.Array(Asset, { description: 'at most 10, largest raw balance first' }),
    holdingsComplete: Type.Boolean({ description: 'every holding was examined (at most 500)' }),
    cohorts: Type.Array(WalletCohort),
    screenedOut: Type.Array(ScreenedCohort),
    cohortsComplete: Type.Boolean({ description: 'every membership was read (at most 1000)' }),
    cohortsIncompleteReason: ReasonOf(['membership_bound_reached']),
    fundingGeneration: Count("highest funding generation among the cohorts' tokens (0 without cohorts)"),
  }),
  errors: [],
  requires: [WALLETS, 'tokens'],
  asOf: true,
  read: walletRead((ctx, w) => ctx.readers.queries.walletOverview(ctx.view, w, ctx.anchor.number)),
});
