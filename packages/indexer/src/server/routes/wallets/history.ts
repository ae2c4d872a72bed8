/** Wallet history routes: transactions, transfers, trades, activity, first seen. */

import type { TSchema } from '@sinclair/typebox';
import type { AnyCursor } from '../../../schema/cursor.js';
import {
  WALLET_ACTIVITY,
  WALLET_TRADES,
  WALLET_TRANSACTIONS,
  WALLET_TRANSFERS,
} from '../../../schema/cursors.js';
import type { ActivityEvent, ActivityRow, WalletTxRow } from '../../../wallets/index.js';
import type { PageQuery, PageSink } from '../../page.js';
import type { Ctx, Route } from '../../route.js';
import { pagedRoute, singleRoute } from '../../route-shapes.js';
import { Address, Obj } from '../../schemas.js';
import {
  ActivityParent,
  FirstSeenProps,
  WALLETS,
  WalletExtra,
  WalletTrade,
  WalletTransaction,
  WalletTransfer,
} from './schemas.js';

const W = { address: Address };

/** A transaction row; the envelope is embedded as stored (byte-exact). */
const txJson = (t: WalletTxRow) =>
  `{"block":${t.block},"txIndex":${t.txIndex},"role":"${t.role}","transaction":${t.transaction}}`;
const eventJson = (e: ActivityEvent) =>
  e.type === 'transaction' ? `{"type":"transaction","transaction":${e.transaction}}` : JSON.stringify(e);
const activityJson = (a: ActivityRow) =>
  `{"block":${a.block},"txIndex":${a.txIndex},"txHash":${a.txHash ? `"${a.txHash}"` : 'null'},"events":[${a.events.map(eventJson).join(',')}]}`;

/**
 * A PAGE route of one wallet's rows (`/wallets/{address}/…`, scope wallet): the cursor is bound
 * to the wallet, and the page names it (`wallet`).
 */
export function walletPage<R>(o: {
  id: string;
  /** The walk's declared cursor (src/schema/cursors.ts). */
  cursor: AnyCursor;
  path: string;
  summary: string;
  row: TSchema;
  requires: string[];
  cached?: boolean;
  walk: (ctx: Ctx<{ address: string }>, wallet: string, q: PageQuery, sink: PageSink<R>) => unknown;
  render?: (row: R) => string;
}): Route {
  const { walk, ...rest } = o;
  return pagedRoute({
    ...rest,
    scope: 'wallet',
    group: 'Wallets',
    params: W,
    extra: WalletExtra,
    errors: ['bad_cursor', 'stale_cursor'],
    subject: (ctx) => ctx.params.address.toLowerCase(),
    walk(ctx, q, sink: PageSink<R>) {
      const wallet = ctx.params.address.toLowerCase();
      walk(ctx, wallet, q, sink);
      return { wallet };
    },
  });
}

/**
 * The read of a single-record wallet route (`/wallets/{address}/…`): `{wallet, ...fields}` with
 * the path's wallet lowercased and what `fields(ctx, wallet)` reads at the anchor.
 */
export const walletRead =
  (fields: (ctx: Ctx<{ address: string }>, wallet: string) => object) => (ctx: Ctx<{ address: string }>) => {
    const w = ctx.params.address.toLowerCase();
    return { wallet: w, ...fields(ctx, w) };
  };

export const walletTransactionsRoute = walletPage({
  id: 'wallets.transactions',
  cursor: WALLET_TRANSACTIONS,
  path: '/wallets/{address}/transactions',
  summary:
    'Top-level transactions where the wallet is origin or recipient, merged and deduplicated (role: origin, recipient, origin_and_recipient), chain order; the envelope as the node sent it. PAGE.',
  row: WalletTransaction,
  requires: [WALLETS],
  walk: (ctx, w, q, sink) => ctx.readers.wallets.transactions(ctx.view, w, q, sink),
  render: txJson,
});

export const walletTransfersRoute = walletPage({
  id: 'wallets.transfers',
  cursor: WALLET_TRANSFERS,
  path: '/wallets/{address}/transfers',
  summary:
    'Direction-aware transfer history (direction in/out/self): ERC-20 transfers (assetKind erc20, asset = token), WETH deposits/withdrawals, and top-level native value (assetKind native, asset null — a reserved kind, not a zero address); value in base units of the asset (wei for native). Chain order. PAGE.',
  row: WalletTransfer,
  requires: [WALLETS],
  walk: (ctx, w, q, sink) => ctx.readers.wallets.transfers(ctx.view, w, q, sink),
});

export const walletTradesRoute = walletPage({
  id: 'wallets.trades',
  cursor: WALLET_TRADES,
  path: '/wallets/{address}/trades',
  summary:
    'Swap history where the wallet is the transaction origin (never the router recipient): side, token, amounts (token and quote base units), price after the trade (quote base units per token base unit, exact rational), quote {address, decimals, decimalsProvenance} (decimals from token metadata: token_metadata_fallback). PAGE.',
  row: WalletTrade,
  requires: [WALLETS, 'markets'],
  walk: (ctx, w, q, sink) => ctx.readers.wallets.trades(ctx.view, w, q, sink),
});

export const walletActivityRoute = walletPage({
  id: 'wallets.activity',
  cursor: WALLET_ACTIVITY,
  cached: true,
  path: '/wallets/{address}/activity',
  summary:
    'Unified feed: one parent entry per transaction touching the wallet (as origin, recipient, transfer party or swap origin), with typed child events {type: transaction|transfer|trade} shaped as the /transactions, /transfers and /trades rows. Chain order. PAGE by (block, txIndex); page work is proportional to the page.',
  row: ActivityParent,
  requires: [WALLETS, 'markets'],
  walk: (ctx, w, q, sink) => ctx.readers.wallets.activity(ctx.view, w, q, sink),
  render: activityJson,
});

export const walletFirstSeenRoute = singleRoute({
  id: 'wallets.firstSeen',
  path: '/wallets/{address}/first-seen',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'When the wallet was first observed: coordinate, timestamp (unix seconds) and evidence (transaction_origin, incoming_native_transfer, incoming_token_transfer).',
  params: W,
  data: Obj({ wallet: Address, ...FirstSeenProps }),
  errors: ['not_found'],
  requires: [WALLETS],
  read: walletRead((ctx, w) => ctx.readers.wallets.firstSeen(ctx.view, w, ctx.anchor.number)),
});
