/** Funding graph routes: funded-by, funded-by-all, funded-siblings, funder-of. */

import { Type } from '@sinclair/typebox';
import { WALLET_FUNDED_BY, WALLET_FUNDER_OF } from '../../../schema/cursors.js';
import { EDGE_LIST_BOUND } from '../../../wallets/index.js';
import { pagedRoute, singleRoute } from '../../route-shapes.js';
import { Address, Count, Nullable, Obj, ReasonOf } from '../../schemas.js';
import { walletPage, walletRead } from './history.js';
import { FirstFunding, FundedEdge, FundingEdge, WALLETS } from './schemas.js';

const W = { address: Address };
const Truncated = Type.Boolean({ description: `the list stopped at the bound (${EDGE_LIST_BOUND} edges)` });
const Bound = Count('edges listed at most');

export const walletFundedByRoute = walletPage({
  id: 'wallets.fundedBy',
  cursor: WALLET_FUNDED_BY,
  path: '/wallets/{address}/funded-by',
  summary:
    'Earliest incoming value transfer per asset (native: assetKind native, asset null; ERC-20: assetKind erc20, asset = token) and its sender; value in base units of the asset. PAGE by asset.',
  row: FirstFunding,
  requires: [WALLETS],
  walk: (ctx, w, q, sink) => ctx.readers.wallets.fundedBy(ctx.view, w, q, sink),
});

export const walletFundedByAllRoute = singleRoute({
  id: 'wallets.fundedByAll',
  path: '/wallets/{address}/funded-by-all',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Every funder edge into the wallet: {funder, assetKind, asset, first transfer, lastBlock, count, total (base units)}, by (funder, asset); bounded at ${EDGE_LIST_BOUND} edges (truncated flag).`,
  params: W,
  data: Obj({ wallet: Address, edges: Type.Array(FundingEdge), truncated: Truncated, bound: Bound }),
  errors: [],
  requires: [WALLETS],
  read: walletRead((ctx, w) => ctx.readers.wallets.fundedByAll(ctx.view, w, ctx.anchor.number)),
});

export const walletFunderOfRoute = pagedRoute({
  id: 'wallets.funderOf',
  cursor: WALLET_FUNDER_OF,
  path: '/wallets/{address}/funder-of',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Everything this wallet funded: edges {wallet, funder, assetKind, asset, first, lastBlock, count, total (base units)}. PAGE by (wallet, asset).',
  params: W,
  row: FundedEdge,
  extra: { funder: { ...Address, description: 'the wallet asked about' } },
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS],
  subject: (ctx) => ctx.params.address.toLowerCase(),
  walk(ctx, q, sink) {
    const funder = ctx.params.address.toLowerCase();
    ctx.readers.wallets.funderOf(ctx.view, funder, q, sink);
    return { funder };
  },
});

export const walletFundedSiblingsRoute = singleRoute({
  id: 'wallets.fundedSiblings',
  path: '/wallets/{address}/funded-siblings',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Wallets sharing the wallet's first native funder (the sender of its earliest incoming native transfer), each with its native edge from that funder; bounded at ${EDGE_LIST_BOUND}.`,
  params: W,
  data: Obj({
    wallet: Address,
    funder: Nullable(Address, 'the first native funder; see funderReason'),
    funderReason: ReasonOf(['no_incoming_native_transfer']),
    sharedAsset: Obj({
      assetKind: Type.Literal('native'),
      asset: Type.Null({ description: 'native value' }),
    }),
    siblings: Type.Array(FundedEdge, {
      description: "native edges from the funder, by wallet (the wallet's own excluded)",
    }),
    truncated: Truncated,
    bound: Bound,
  }),
  errors: [],
  requires: [WALLETS],
  read: walletRead((ctx, w) => ctx.readers.wallets.fundedSiblings(ctx.view, w, ctx.anchor.number)),
});
