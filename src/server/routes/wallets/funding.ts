/** Funding graph routes: funded-by, funded-by-all, funded-siblings, funder-of. */
import { Type } from '@sinclair/typebox';
import { prefixEnd } from '../../../storage/keys.js';
import type { FundingEdge } from '../../../wallets/model.js';
import { firstFundingKey, NATIVE_ASSET, WalletTable, walletPrefix } from '../../../wallets/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { anchorJson, defineRoute, single } from '../../route.js';
import { Address, Paged, pageQuery, Single } from '../../schemas.js';
import { walletOf } from './common.js';

const W = { address: Address };
/** Edges listed at most by the unpaginated funding routes (bounded aggregates). */
export const EDGE_LIST_BOUND = 1000;

const asOf = (anchor: number) => (v: Buffer) => {
  const e = JSON.parse(v.toString()) as { first?: { block: number }; block?: number };
  return (e.first?.block ?? e.block ?? 0) <= anchor;
};

export const walletFundedByRoute = defineRoute({
  id: 'wallets.fundedBy',
  method: 'GET',
  path: '/wallets/{address}/funded-by',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Earliest incoming value transfer per asset (native: assetKind native, asset null; ERC-20: assetKind erc20, asset = token) and its sender. PAGE by asset.',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.FIRST_FUNDING, w);
    const ok = asOf(req.anchor.number);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) =>
      ok(v) ? [v.toString(), k.subarray(21)] : null,
    ).finish(`"wallet":"${w}"`);
  },
});

function edges(
  ctx: Parameters<typeof walletOf>[0],
  table: number,
  w: string,
): { rows: FundingEdge[]; truncated: boolean } {
  const pre = walletPrefix(table, w);
  const rows: FundingEdge[] = [];
  let truncated = false;
  ctx.chain.store.rocks.each({ gte: pre, lt: prefixEnd(pre) }, (_k, v) => {
    const e = JSON.parse(v.toString()) as FundingEdge;
    if (e.first.block > ctx.anchor.number) return true;
    if (rows.length >= EDGE_LIST_BOUND) {
      truncated = true;
      return false;
    }
    rows.push(e);
    return true;
  });
  return { rows, truncated };
}

export const walletFundedByAllRoute = defineRoute({
  id: 'wallets.fundedByAll',
  method: 'GET',
  path: '/wallets/{address}/funded-by-all',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Every funder edge into the wallet: {funder, assetKind, asset, first transfer, lastBlock, count, total (base units)}; bounded at ${EDGE_LIST_BOUND} edges (truncated flag).`,
  params: W,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const { rows, truncated } = edges(ctx, WalletTable.EDGE_IN, w);
    return single(ctx.anchor, JSON.stringify({ wallet: w, edges: rows, truncated, bound: EDGE_LIST_BOUND }));
  },
});

export const walletFunderOfRoute = defineRoute({
  id: 'wallets.funderOf',
  method: 'GET',
  path: '/wallets/{address}/funder-of',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Everything this wallet funded: edges {wallet, assetKind, asset, first, lastBlock, count, total}. PAGE by (wallet, asset).',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.EDGE_OUT, w);
    const ok = asOf(req.anchor.number);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) =>
      ok(v) ? [v.toString(), k.subarray(21)] : null,
    ).finish(`"funder":"${w}"`);
  },
});

export const walletFundedSiblingsRoute = defineRoute({
  id: 'wallets.fundedSiblings',
  method: 'GET',
  path: '/wallets/{address}/funded-siblings',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Wallets sharing the wallet's first native funder (the sender of its earliest incoming native transfer), with the shared edge; bounded at ${EDGE_LIST_BOUND}.`,
  params: W,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const f = ctx.chain.store.rocks.get(firstFundingKey(w, NATIVE_ASSET));
    const first = f ? (JSON.parse(f.toString()) as { funder: string; block: number }) : null;
    if (!first || first.block > ctx.anchor.number) {
      return {
        json: `{"anchor":${anchorJson(ctx.anchor)},"data":{"wallet":"${w}","funder":null,"funderReason":"no_incoming_native_transfer","siblings":[]}}`,
      };
    }
    const { rows, truncated } = edges(ctx, WalletTable.EDGE_OUT, first.funder);
    const siblings = rows.filter(
      (e) => (e as FundingEdge & { wallet: string }).wallet !== w && e.assetKind === 'native',
    );
    return single(
      ctx.anchor,
      JSON.stringify({
        wallet: w,
        funder: first.funder,
        sharedAsset: { assetKind: 'native', asset: null },
        siblings,
        truncated,
      }),
    );
  },
});
