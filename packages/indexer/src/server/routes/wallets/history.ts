/** Wallet history routes: transactions, transfers, trades, activity, first seen. */
import type { ActivityEvent, ActivityRow, WalletTxRow } from '../../../wallets/index.js';
import { paged } from '../../page.js';
import { defineRoute, single } from '../../route.js';
import { Address, Obj, Paged, pageQuery, Single } from '../../schemas.js';
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

export const walletTransactionsRoute = defineRoute({
  id: 'wallets.transactions',
  method: 'GET',
  path: '/wallets/{address}/transactions',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Top-level transactions where the wallet is origin or recipient, merged and deduplicated (role: origin, recipient, origin_and_recipient), chain order; the envelope as the node sent it. PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(WalletTransaction, WalletExtra),
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    return paged(
      ctx,
      `${this.id}:${w}`,
      (q, sink) => {
        ctx.readers.wallets.transactions(ctx.view, w, q, sink);
        return { wallet: w };
      },
      txJson,
    );
  },
});

export const walletTransfersRoute = defineRoute({
  id: 'wallets.transfers',
  method: 'GET',
  path: '/wallets/{address}/transfers',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Direction-aware transfer history (direction in/out/self): ERC-20 transfers (assetKind erc20, asset = token), WETH deposits/withdrawals, and top-level native value (assetKind native, asset null — a reserved kind, not a zero address); value in base units of the asset (wei for native). Chain order. PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(WalletTransfer, WalletExtra),
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    return paged(ctx, `${this.id}:${w}`, (q, sink) => {
      ctx.readers.wallets.transfers(ctx.view, w, q, sink);
      return { wallet: w };
    });
  },
});

export const walletTradesRoute = defineRoute({
  id: 'wallets.trades',
  method: 'GET',
  path: '/wallets/{address}/trades',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Swap history where the wallet is the transaction origin (never the router recipient): side, token, amounts (token and quote base units), price after the trade (quote base units per token base unit, exact rational), quote {address, decimals, decimalsProvenance} (decimals from token metadata: token_metadata_fallback). PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(WalletTrade, WalletExtra),
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS, 'markets'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    return paged(ctx, `${this.id}:${w}`, (q, sink) => {
      ctx.readers.wallets.trades(ctx.view, w, q, sink);
      return { wallet: w };
    });
  },
});

export const walletActivityRoute = defineRoute({
  id: 'wallets.activity',
  cached: true,
  method: 'GET',
  path: '/wallets/{address}/activity',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Unified feed: one parent entry per transaction touching the wallet (as origin, recipient, transfer party or swap origin), with typed child events {type: transaction|transfer|trade} shaped as the /transactions, /transfers and /trades rows. Chain order. PAGE by (block, txIndex); page work is proportional to the page.',
  params: W,
  query: pageQuery(),
  response: Paged(ActivityParent, WalletExtra),
  errors: ['bad_cursor', 'stale_cursor'],
  requires: [WALLETS, 'markets'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    return paged(
      ctx,
      `${this.id}:${w}`,
      (q, sink) => {
        ctx.readers.wallets.activity(ctx.view, w, q, sink);
        return { wallet: w };
      },
      activityJson,
    );
  },
});

export const walletFirstSeenRoute = defineRoute({
  id: 'wallets.firstSeen',
  method: 'GET',
  path: '/wallets/{address}/first-seen',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'When the wallet was first observed: coordinate, timestamp (unix seconds) and evidence (transaction_origin, incoming_native_transfer, incoming_token_transfer).',
  params: W,
  response: Single(Obj({ wallet: Address, ...FirstSeenProps })),
  errors: ['not_found'],
  requires: [WALLETS],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    const f = ctx.readers.wallets.firstSeen(ctx.view, w, ctx.anchor.number);
    return single(ctx.anchor, JSON.stringify({ wallet: w, ...f }));
  },
});
