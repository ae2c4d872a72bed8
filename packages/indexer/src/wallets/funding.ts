/**
 * The funding graph as of an anchor: the earliest incoming value transfer per asset (first
 * funding), every funder edge in both directions, and the siblings of a wallet (wallets sharing its
 * first native funder). An edge exists at the anchor when its first transfer is at or before it.
 */

import type { TableCursor } from '../schema/cursor.js';
import { WALLET_FUNDED_BY, WALLET_FUNDER_OF } from '../schema/cursors.js';
import type { FirstFunding, FundingEdge } from '../schema/rows/wallets.js';
import { EDGE_IN, EDGE_OUT, FIRST_FUNDING, NATIVE_ASSET } from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { boundedList, type Hex, hexOf } from './walk.js';

/** Edges listed at most by the unpaged funding answers (bounded aggregates). */
export const EDGE_LIST_BOUND = 1000;

/** An edge out of a funder, naming the funded wallet. */
export type FundedEdge = FundingEdge & { wallet: string };

/** Every funder edge into a wallet (bounded). */
export interface FundedByAll {
  edges: FundingEdge[];
  truncated: boolean;
  bound: number;
}

/** Wallets sharing a wallet's first native funder. */
export interface FundedSiblings {
  /** Sender of the wallet's earliest incoming native transfer; null when it has none. */
  funder: string | null;
  funderReason: 'no_incoming_native_transfer' | null;
  sharedAsset: { assetKind: 'native'; asset: null };
  siblings: FundedEdge[];
  truncated: boolean;
  bound: number;
}

/** Walks rows keyed (address, …) of one address in page order, skipping rows first seen after the anchor. */
function walkByFirstAddress<K extends [Hex, ...unknown[]], V>(
  view: View,
  c: TableCursor<K, V>,
  address: string,
  blockOf: (v: V) => number,
  page: PageQuery,
  sink: PageSink<V>,
): void {
  const a = hexOf(address);
  view.each(
    c.table,
    {
      prefix: [a] as never,
      reverse: page.order === 'desc',
      resume: { under: [a] as never, suffix: page.after },
    },
    (v, _k, raw) => (blockOf(v) > page.at ? true : sink(v, c.tail(raw))),
  );
}

/** First incoming value transfer per asset of `wallet` (asset order; native = the zero asset id). */
export function walkFundedBy(view: View, wallet: string, page: PageQuery, sink: PageSink<FirstFunding>) {
  walkByFirstAddress(view, WALLET_FUNDED_BY, wallet, (f) => f.block, page, sink);
}

/** The edge (funder → wallet, asset) from funding_edge_in, naming the funded wallet. */
function fundedEdge(view: View, funder: Hex, wallet: Hex, asset: Hex): FundedEdge {
  const e = view.get(EDGE_IN, wallet, funder, asset);
  if (!e) throw new Error(`funding index: edge ${funder} → ${wallet} (${asset}) has no funding_edge_in row`);
  return { ...e, wallet };
}

/** Everything `funder` funded: edges by (wallet, asset). */
export function walkFunderOf(view: View, funder: string, page: PageQuery, sink: PageSink<FundedEdge>) {
  const f = hexOf(funder);
  view.each(
    EDGE_OUT,
    { prefix: [f], reverse: page.order === 'desc', resume: { under: [f], suffix: page.after } },
    (_v, [, wallet, asset], raw) => {
      const e = fundedEdge(view, f, wallet, asset);
      return e.first.block > page.at ? true : sink(e, WALLET_FUNDER_OF.tail(raw));
    },
  );
}

/** Every funder edge into `wallet` by (funder, asset), at most {@link EDGE_LIST_BOUND}. */
export function fundedByAll(view: View, wallet: string, at: number): FundedByAll {
  const { rows, truncated } = boundedList(view, EDGE_IN, [hexOf(wallet)], EDGE_LIST_BOUND, (e) =>
    e.first.block <= at ? e : null,
  );
  return { edges: rows, truncated, bound: EDGE_LIST_BOUND };
}

/**
 * Wallets whose edge from the wallet's first native funder is native, by wallet, at most
 * {@link EDGE_LIST_BOUND}; the wallet itself excluded.
 */
export function fundedSiblings(view: View, wallet: string, at: number): FundedSiblings {
  const w = hexOf(wallet);
  const first = view.get(FIRST_FUNDING, w, NATIVE_ASSET);
  const sharedAsset = { assetKind: 'native', asset: null } as const;
  if (!first || first.block > at)
    return {
      funder: null,
      funderReason: 'no_incoming_native_transfer',
      sharedAsset,
      siblings: [],
      truncated: false,
      bound: EDGE_LIST_BOUND,
    };
  const funder = hexOf(first.funder);
  const { rows, truncated } = boundedList(view, EDGE_OUT, [funder], EDGE_LIST_BOUND, (_v, [, sib, asset]) => {
    if (sib === w || asset !== NATIVE_ASSET) return null;
    const e = fundedEdge(view, funder, sib, asset);
    return e.first.block <= at ? e : null;
  });
  return {
    funder: first.funder,
    funderReason: null,
    sharedAsset,
    siblings: rows,
    truncated,
    bound: EDGE_LIST_BOUND,
  };
}
