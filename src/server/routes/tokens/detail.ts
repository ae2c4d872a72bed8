import { Type } from '@sinclair/typebox';
import { holderCountJson, launchAt, statsAt } from '../../../tokens/read.js';
import { reconciliationOf } from '../../../tokens/reconcile.js';
import { launchJson, tokenIdentity } from '../../../tokens/render.js';
import { defineRoute, single } from '../../route.js';
import { Address, QuoteQuery, Single } from '../../schemas.js';
import { fullCoverage, tokenOr404 } from './common.js';

/**
 * GET /tokens/{address}: identity (metadata with typed absence), exact supply from transfers,
 * creation provenance, first-seen, launch, holderCount. The embedded market `stats` block is
 * null with `statsReason` until the markets projection exists (issue E).
 */
export const tokenDetailRoute = defineRoute({
  id: 'tokens.detail',
  method: 'GET',
  path: '/tokens/{address}',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Token detail (reconciliation: the last eth_call check of totalSupply and top balances against the indexed sums; balancesFollowEvents false flags fee-on-transfer/rebasing tokens): identity with typed absence (bytes32 names, reverting/missing methods, non-UTF-8), exact supply (supplyFromTransfers: mints minus burns to 0x0, base units), creation provenance, first-seen, launch, holderCount {value, status, asOfBlock, burnSinkHolders}, stats (null with statsReason until the markets projection exists).',
  params: { address: Address },
  query: QuoteQuery,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    const rocks = ctx.chain.store.rocks;
    const A = ctx.anchor.number;
    const stats = statsAt(rocks, t.address, A);
    const launch = launchAt(rocks, t.address, A);
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
      stats: null,
      statsReason: 'projection_unavailable:markets',
    };
    const json = JSON.stringify(body);
    return single(
      ctx.anchor,
      `${json.slice(0, -1)},"holderCount":${holderCountJson(stats, t, A, fullCoverage(ctx))}}`,
    );
  },
});
