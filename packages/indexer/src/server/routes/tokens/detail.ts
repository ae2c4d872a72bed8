import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../errors.js';
import { requireProjection } from '../../projections.js';
import type { Ctx } from '../../route.js';
import { defineRoute, single } from '../../route.js';
import { Address, Amount, Count, Nullable, Obj, QuoteQuery, Single } from '../../schemas.js';
import { TOKENS } from './common.js';
import { statsBodyJson } from './market/common.js';
import { tokenStatsProps } from './market/schemas.js';
import {
  BalanceFidelity,
  Creation,
  FirstSeen,
  HolderCount,
  Launch,
  MetadataNow,
  TokenCoverage,
  TokenIdentity,
} from './schemas.js';

/**
 * The embedded market stats block: the /tokens/{address}/stats body (without `token`) at the same
 * anchor and quote rule, or null with a typed reason (projection_unavailable:markets while the
 * markets projection is not ready, no_registered_pool, quote_ambiguous with the candidates).
 * @throws DomainError quote_not_admitted (409) when the named quote pairs with none of the pools.
 */
function embeddedStats(ctx: Ctx<{ address: string }, { quote?: string }>): {
  stats: Record<string, unknown> | null;
  statsReason: string | null;
  statsCandidates: string[] | null;
} {
  try {
    requireProjection(ctx.chain, 'markets');
    const s = ctx.readers.markets.tokenStats(
      ctx.view,
      ctx.params.address,
      ctx.query.quote,
      ctx.anchor.number,
    );
    if (s.quote === null)
      return { stats: null, statsReason: 'quote_ambiguous', statsCandidates: s.candidates };
    const { token: _token, ...body } = statsBodyJson(s);
    return { stats: body, statsReason: null, statsCandidates: null };
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    if (e.code === 'projection_unavailable')
      return { stats: null, statsReason: 'projection_unavailable:markets', statsCandidates: null };
    if (e.code === 'not_found')
      return { stats: null, statsReason: 'no_registered_pool', statsCandidates: null };
    throw e;
  }
}

/**
 * GET /tokens/{address}: identity (metadata with typed absence), exact supply from transfers,
 * creation provenance, first-seen, launch, holderCount, the token's reconciliation state and the
 * embedded market `stats` block (the /stats body on the default venue; null with a typed
 * `statsReason` when it cannot be computed).
 */
export const tokenDetailRoute = defineRoute({
  id: 'tokens.detail',
  cached: true,
  method: 'GET',
  path: '/tokens/{address}',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Token detail: identity with typed absence (bytes32 names, reverting/missing methods, non-UTF-8), exact supply (supplyFromTransfers: mints minus burns, token base units; Transfer(0x0,0x0,v) is a mint to 0x0, as Uniswap V2 locks MINIMUM_LIQUIDITY), creation provenance, first-seen, launch, holderCount {value, status, asOfBlock, burnSinkHolders}, reconciliation (whether transfer sums equal totalSupply()/balanceOf() at the last check: exact, diverges, not_yet_checked, not_checkable), metadataNow (metadata re-probed on change), stats (the /tokens/{address}/stats body at the same anchor and quote rule; null with statsReason projection_unavailable:markets, no_registered_pool or quote_ambiguous with statsCandidates).',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(
    Obj({
      ...TokenIdentity,
      supplyFromTransfers: Amount,
      supplyFromTransfersUnit: Type.Literal('token base units'),
      transfers: Count('transfer-family logs of the token at the anchor'),
      negativeBalances: Count('wallets whose transfer sum is negative (balances not following events)'),
      creation: Nullable(Creation, 'see creationReason'),
      creationReason: Nullable(Type.Literal('creation_not_observed')),
      firstSeen: FirstSeen,
      launch: Nullable(Launch, 'see launchReason'),
      launchReason: Nullable(Type.Literal('no_registered_launch')),
      reconciliation: BalanceFidelity,
      coverage: TokenCoverage,
      metadataNow: MetadataNow,
      holderCount: HolderCount,
      stats: Nullable(
        Obj((({ token: _t, ...rest }) => rest)(tokenStatsProps), {
          description: 'the /tokens/{address}/stats body without token',
        }),
        'see statsReason',
      ),
      statsReason: Nullable(
        Type.Union([
          Type.Literal('projection_unavailable:markets'),
          Type.Literal('no_registered_pool'),
          Type.Literal('quote_ambiguous'),
        ]),
      ),
      statsCandidates: Nullable(
        Type.Array(Address),
        'the quote candidates when statsReason is quote_ambiguous',
      ),
    }),
  ),
  errors: ['not_found', 'quote_not_admitted'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const r = ctx.readers.tokens;
    const at = ctx.anchor.number;
    const t = r.token(ctx.view, ctx.params.address, at);
    const stats = r.stats(ctx.view, t.address, at);
    const launch = r.launch(ctx.view, t.address, at);
    const m = t.metadata;
    const body = {
      address: t.address,
      name: m?.name.value ?? null,
      nameReason: m ? m.name.reason : t.metadataReason,
      nameEncoding: m?.name.encoding ?? null,
      symbol: m?.symbol.value ?? null,
      symbolReason: m ? m.symbol.reason : t.metadataReason,
      symbolEncoding: m?.symbol.encoding ?? null,
      decimals: m?.decimals.value ?? null,
      decimalsReason: m ? m.decimals.reason : t.metadataReason,
      totalSupplyAtProbe: m?.totalSupply.value ?? null,
      totalSupplyAtProbeReason: m ? m.totalSupply.reason : t.metadataReason,
      metadataProbedAtBlock: t.metadataBlock,
      kind: t.confirmedAt ? 'erc20' : 'candidate',
      confirmedErc20: t.confirmedAt !== null,
      confirmedAt: t.confirmedAt,
      supplyFromTransfers: stats?.supplyFromTransfers ?? '0',
      supplyFromTransfersUnit: 'token base units',
      transfers: stats?.transfers ?? 0,
      negativeBalances: stats?.negativeBalances ?? 0,
      creation: t.creation,
      creationReason: t.creationReason,
      firstSeen: t.firstSeen,
      launch,
      launchReason: launch ? null : 'no_registered_launch',
      reconciliation: r.fidelityOf(ctx.view, t.address),
      coverage: r.coverage(ctx.view, t, at),
      metadataNow: r.metadataNow(ctx.view, t.address),
      holderCount: r.holderCount(ctx.view, t, at),
      ...embeddedStats(ctx),
    };
    return single(ctx.anchor, JSON.stringify(body));
  },
});
