/** Wallet history routes: transactions, transfers, trades, activity, first seen. */
import { Type } from '@sinclair/typebox';
import { quoteAssetsOf } from '../../../markets/config.js';
import type { PoolRow, SwapRow } from '../../../markets/model.js';
import { invert, ratJson, ratParse } from '../../../markets/rational.js';
import { poolKey, swapKey } from '../../../markets/tables.js';
import { KeyBuilder, prefixEnd, readU64 } from '../../../storage/keys.js';
import { txKey } from '../../../storage/tables.js';
import { tokenAt } from '../../../tokens/read.js';
import {
  decodeActivity,
  firstSeenKey,
  WalletTable,
  walletPrefix,
  walletTradeKey,
  walletTransferKey,
} from '../../../wallets/tables.js';
import { ApiError } from '../../errors.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute, type Route, single } from '../../route.js';
import { Address, Paged, pageQuery, Single } from '../../schemas.js';
import { walletOf } from './common.js';

const W = { address: Address };
const ROLES = ['', 'origin', 'recipient', 'origin_and_recipient'];

export const walletTransactionsRoute = defineRoute({
  id: 'wallets.transactions',
  method: 'GET',
  path: '/wallets/{address}/transactions',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Top-level transactions where the wallet is origin or recipient, merged and deduplicated (role: origin, recipient, origin_and_recipient), chain order. PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.TX, w);
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) => {
      const n = readU64(k, 21);
      if (n > req.anchor.number) return null;
      const i = k.readUInt32BE(29);
      return [
        `{"block":${n},"txIndex":${i},"role":"${ROLES[v[0]]}","transaction":${rocks.get(txKey(n, i))!.toString()}}`,
        k.subarray(21),
      ];
    }).finish(`"wallet":"${w}"`);
  },
});

export const walletTransfersRoute = defineRoute({
  id: 'wallets.transfers',
  method: 'GET',
  path: '/wallets/{address}/transfers',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Direction-aware transfer history (direction in/out/self): ERC-20 transfers (assetKind erc20, asset = token), WETH deposits/withdrawals, and top-level native value (assetKind native, asset null — a reserved kind, not a zero address). Chain order. PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.TRANSFER, w);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) =>
      readU64(k, 21) > req.anchor.number ? null : [v.toString(), k.subarray(21)],
    ).finish(`"wallet":"${w}"`);
  },
});

/** A trade row from the wallet's perspective. */
export function tradeRow(
  ctx: Parameters<Route['handler']>[0],
  pool: PoolRow,
  s: SwapRow,
): Record<string, unknown> {
  const prio = new Map(quoteAssetsOf(ctx.chain.markets).map((a, i) => [a, i]));
  const p0 = prio.get(pool.currency0);
  const p1 = prio.get(pool.currency1);
  const quoteIs0 = p0 !== undefined && (p1 === undefined || p0 < p1);
  const token = quoteIs0 ? pool.currency1 : pool.currency0;
  const quote = quoteIs0 ? pool.currency0 : pool.currency1;
  const gotToken = -BigInt(quoteIs0 ? s.amount1 : s.amount0);
  const gotQuote = -BigInt(quoteIs0 ? s.amount0 : s.amount1);
  const price = quoteIs0 ? invert(ratParse(s.price)) : ratParse(s.price);
  const qt = tokenAt(ctx.view, quote, s.block);
  const decimals = qt?.metadata?.decimals.value ?? null;
  return {
    block: s.block,
    timestamp: s.timestamp,
    txIndex: s.txIndex,
    logIndex: s.logIndex,
    txHash: s.txHash,
    pool: pool.key,
    protocol: pool.protocol,
    side: gotToken > 0n ? 'buy' : 'sell',
    token,
    amountToken: (gotToken < 0n ? -gotToken : gotToken).toString(),
    amountQuote: (gotQuote < 0n ? -gotQuote : gotQuote).toString(),
    ...ratJson(price),
    quote: {
      address: quote,
      decimals: quote === '0x0000000000000000000000000000000000000000' ? 18 : decimals,
      decimalsProvenance:
        quote === '0x0000000000000000000000000000000000000000'
          ? 'native_currency'
          : decimals !== null
            ? 'token_metadata_fallback'
            : 'unavailable',
    },
    origin: s.origin,
    routerRecipient: s.recipient,
  };
}

export const walletTradesRoute = defineRoute({
  id: 'wallets.trades',
  method: 'GET',
  path: '/wallets/{address}/trades',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Swap history where the wallet is the transaction origin (never the router recipient): side, token, amounts, price (quote per token, rational), quote {address, decimals, decimalsProvenance} (decimals from token metadata: token_metadata_fallback). PAGE.',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.TRADE, w);
    const rocks = ctx.chain.store.rocks;
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: prefixEnd(pre) }, (k, v) => {
      const n = readU64(k, 21);
      if (n > req.anchor.number) return null;
      const pk = `0x${v.toString('hex')}`;
      const s = JSON.parse(rocks.get(swapKey(pk, n, k.readUInt32BE(29)))!.toString()) as SwapRow;
      const pool = JSON.parse(rocks.get(poolKey(pk))!.toString()) as PoolRow;
      return [JSON.stringify(tradeRow(ctx, pool, s)), k.subarray(21)];
    }).finish(`"wallet":"${w}"`);
  },
});

export const walletActivityRoute = defineRoute({
  id: 'wallets.activity',
  method: 'GET',
  path: '/wallets/{address}/activity',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Unified feed: one parent entry per transaction touching the wallet (as origin, recipient or transfer party), with typed child events {type: transaction|transfer|trade}. Chain order. PAGE by (block, txIndex).',
  params: W,
  query: pageQuery(),
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  /**
   * Walks the ACTIVITY index (one row per parent, keyed (block, txIndex)) inside
   * `[wallet, wallet ‖ anchor+1)`, resuming strictly after the cursor's (block, txIndex): a page reads
   * `limit` index rows plus each parent's own children by exact key, so its work is proportional to
   * the page, never to the wallet's history. Children: `transaction` when the wallet is origin or
   * recipient, then its transfers in that transaction (TRANSFER key order), then its trades (log
   * order). Cursor key: block u64 ‖ txIndex u32.
   */
  handler(ctx) {
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const rocks = ctx.chain.store.rocks;
    const pre = walletPrefix(WalletTable.ACTIVITY, w);
    const hi = Buffer.concat([pre, new KeyBuilder(8).u64(req.anchor.number + 1).done()]);
    return walkRange(ctx, req, { prefix: pre, gte: pre, lt: hi }, (k, v) => {
      const n = readU64(k, 21);
      const i = k.readUInt32BE(29);
      const refs = decodeActivity(v);
      const children: string[] = [];
      const tx = rocks.get(txKey(n, i));
      const txHash = tx ? (JSON.parse(tx.toString()) as { hash: string }).hash : null;
      if (tx && refs.roles !== 0) children.push(`{"type":"transaction","transaction":${tx.toString()}}`);
      if (refs.transfers.length) {
        for (const t of rocks.getMany(refs.transfers.map((o) => walletTransferKey(w, n, o))))
          if (t) children.push(`{"type":"transfer",${t.toString().slice(1)}`);
      }
      if (refs.trades.length) {
        const pks = rocks.getMany(refs.trades.map((l) => walletTradeKey(w, n, l)));
        refs.trades.forEach((l, j) => {
          const pk = pks[j] ? `0x${pks[j]!.toString('hex')}` : null;
          const sv = pk ? rocks.get(swapKey(pk, n, l)) : undefined;
          if (!pk || !sv) return;
          const pool = JSON.parse(rocks.get(poolKey(pk))!.toString()) as PoolRow;
          const s = JSON.parse(sv.toString()) as SwapRow;
          children.push(JSON.stringify({ type: 'trade', ...tradeRow(ctx, pool, s) }));
        });
      }
      return [
        `{"block":${n},"txIndex":${i},"txHash":${txHash ? `"${txHash}"` : 'null'},"events":[${children.join(',')}]}`,
        k.subarray(21),
      ];
    }).finish(`"wallet":"${w}"`);
  },
});

export const walletFirstSeenRoute = defineRoute({
  id: 'wallets.firstSeen',
  method: 'GET',
  path: '/wallets/{address}/first-seen',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'When the wallet was first observed: coordinate, timestamp and evidence (transaction_origin, incoming_native_transfer, incoming_token_transfer).',
  params: W,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const v = ctx.chain.store.rocks.get(firstSeenKey(w));
    const row = v ? (JSON.parse(v.toString()) as { block: number }) : null;
    if (!row || row.block > ctx.anchor.number)
      throw new ApiError('not_found', `wallet ${w} is not observed at the anchored block`);
    return single(ctx.anchor, JSON.stringify({ wallet: w, ...row }));
  },
});
