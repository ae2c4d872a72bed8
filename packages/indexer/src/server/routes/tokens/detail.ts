import { Type } from '@sinclair/typebox';
import { projectionReady } from '../../projections.js';
import { singleRoute } from '../../route-shapes.js';
import { Address, Amount, Count, Nullable, Obj, QuoteQuery } from '../../schemas.js';
import { TOKENS } from './common.js';

import { AS_OF_TOKEN } from './market/common.js';
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
 * GET /tokens/{address}: identity (metadata with typed absence), exact supply from transfers,
 * creation provenance, first-seen, launch, holderCount, the token's reconciliation state and the
 * embedded market `stats` block (the /stats body on the default venue; null with a typed
 * `statsReason` when it cannot be computed).
 */
export const tokenDetailRoute = singleRoute({
  id: 'tokens.detail',
  cached: true,
  path: '/tokens/{address}',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Token detail: identity with typed absence (bytes32 names, reverting/missing methods, non-UTF-8), exact supply (supplyFromTransfers: mints minus burns, token base units; Transfer(0x0,0x0,v) is a mint to 0x0, as Uniswap V2 locks MINIMUM_LIQUIDITY), creation provenance, first-seen, launch, holderCount {value, status, asOfBlock, burnSinkHolders}, reconciliation (whether transfer sums equal totalSupply()/balanceOf() at the last check: exact, diverges, not_yet_checked, not_checkable), metadataNow (metadata re-probed on change), stats (the /tokens/{address}/stats body at the same anchor and quote rule; null with statsReason projection_unavailable:markets, no_registered_pool or quote_ambiguous with statsCandidates).' +
    AS_OF_TOKEN,
  params: { address: Address },
  query: QuoteQuery,
  data: Obj({
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
  errors: ['not_found', 'quote_not_admitted'],
  requires: [TOKENS],
  asOf: true,
  read(ctx) {
    const detail = ctx.readers.queries.tokenDetail(
      ctx.view,
      ctx.params.address,
      ctx.query.quote,
      ctx.anchor.number,
      projectionReady(ctx.chain, 'markets'),
    );
    return detail;
  },
});
