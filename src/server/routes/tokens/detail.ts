import { Type } from '@sinclair/typebox';
import { holderCountJson, launchAt, statsAt } from '../../../tokens/read.js';
import { reconciliationOf } from '../../../tokens/reconcile.js';
import { launchJson, tokenIdentity } from '../../../tokens/render.js';
import { ApiError, ServiceError } from '../../errors.js';
import type { Ctx } from '../../route.js';
import { defineRoute, single } from '../../route.js';
import { Address, QuoteQuery, Single } from '../../schemas.js';
import { fullCoverage, tokenOr404 } from './common.js';
import { marketOf, marketQuoteOf } from './market/common.js';
import { tokenStats } from './market/stats.js';

/**
 * The embedded market stats block: the /tokens/{address}/stats body at the same anchor and quote
 * rule, or null with a typed reason (projection_unavailable:markets while the markets projection
 * is not ready, no_registered_pool, quote_ambiguous with the candidates).
 * @throws ApiError quote_not_admitted (409) when the named quote pairs with none of the pools.
 */
function embeddedStats(ctx: Ctx<{ address: string }, { quote?: string }>): {
  stats: Record<string, unknown> | null;
  statsReason: string | null;
  statsCandidates?: string[];
} {
  try {
    const m = marketOf(ctx);
    const { quote, how, candidates } = marketQuoteOf(ctx as never, m, ctx.query.quote);
    if (!quote) return { stats: null, statsReason: 'quote_ambiguous', statsCandidates: candidates };
    return {
      stats: { quote, quoteResolution: how, candidates, ...tokenStats(ctx as never, m, quote) },
      statsReason: null,
    };
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    if (e.code === 'projection_unavailable')
      return { stats: null, statsReason: 'projection_unavailable:markets' };
    if (e.code === 'not_found') return { stats: null, statsReason: 'no_registered_pool' };
    throw e;
  }
}

/**
 * GET /tokens/{address}: identity (metadata with typed absence), exact supply from transfers,
 * creation provenance, first-seen, launch, holderCount, and the embedded market `stats` block (the
 * /stats body on the default venue; null with a typed `statsReason` when it cannot be computed).
 */
export const tokenDetailRoute = defineRoute({
  id: 'tokens.detail',
  method: 'GET',
  path: '/tokens/{address}',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Token detail (reconciliation: the last eth_call check of totalSupply and top balances against the indexed sums; balancesFollowEvents false flags fee-on-transfer/rebasing tokens): identity with typed absence (bytes32 names, reverting/missing methods, non-UTF-8), exact supply (supplyFromTransfers: mints minus burns to 0x0, base units), creation provenance, first-seen, launch, holderCount {value, status, asOfBlock, burnSinkHolders}, stats (the /tokens/{address}/stats body at the same anchor and quote rule; null with statsReason projection_unavailable:markets, no_registered_pool or quote_ambiguous with statsCandidates).',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'quote_not_admitted', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    const rocks = ctx.chain.store.rocks;
    const A = ctx.anchor.number;
    const stats = statsAt(ctx.view, t.address, A);
    const launch = launchAt(ctx.view, t.address, A);
    const recon = reconciliationOf(ctx.chain.store, t.address);
    const body = {
      ...tokenIdentity(t),
      supplyFromTransfers: stats?.supplyFromTransfers ?? '0',
      supplyFromTransfersUnit: 'token base units',
      transfers: stats?.transfers ?? 0,
      negativeBalances: stats?.negativeBalances ?? 0,
      creation: t.creation,
      creationReason: t.creationReason,
      firstSeen: t.firstSeen,
      launch: launch ? launchJson(launch) : null,
      launchReason: launch ? null : 'no_registered_launch',
      reconciliation: recon,
      reconciliationReason: recon ? null : 'not_checked_yet',
      balancesFollowEvents: recon
        ? recon.status === 'consistent'
          ? true
          : recon.status === 'mismatch'
            ? false
            : null
        : null,
      ...embeddedStats(ctx),
    };
    const json = JSON.stringify(body);
    return single(
      ctx.anchor,
      `${json.slice(0, -1)},"holderCount":${holderCountJson(stats, t, A, fullCoverage(ctx))}}`,
    );
  },
});
