/**
 * A wallet's history as of an anchor: top-level transactions (origin or recipient), direction-aware
 * transfers, trades it originated, and the activity feed that merges the three per transaction
 * (one parent per (block, txIndex)). Rules held here once: the trade's token/quote sides (the
 * configured quote priority), the trader's perspective of pool amounts, and the activity merge.
 */

import type { ApproxDecimal } from '@chain-indexer/platform/numbers';
import { invert, positionOf, priceFieldsJson, ratParse } from '../markets/index.js';
import { WALLET_ACTIVITY, WALLET_TRADES, WALLET_TRANSACTIONS, WALLET_TRANSFERS } from '../schema/cursors.js';
import type { PoolRow, SwapPosition, SwapRow } from '../schema/rows/markets.js';
import type { WalletTransferRow } from '../schema/rows/wallets.js';
import { TX } from '../schema/tables/chain.js';
import { POOL, SWAP } from '../schema/tables/markets.js';
import { WALLET_TRADE, WALLET_TRANSFER } from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { tokenAt } from '../tokens/index.js';
import { type Hex, hexOf, walletWalk } from './walk.js';

const NATIVE = '0x0000000000000000000000000000000000000000';
const ROLES = ['', 'origin', 'recipient', 'origin_and_recipient'] as const;

/** A top-level transaction of the wallet; `transaction` is the envelope JSON as the node sent it. */
export interface WalletTxRow {
  block: number;
  txIndex: number;
  role: 'origin' | 'recipient' | 'origin_and_recipient';
  /** The stored envelope, byte-exact (serve it as is). */
  transaction: string;
}

/** A swap the wallet originated, from its perspective. */
export interface TradeRow extends SwapPosition {
  /** Pool key (hex). */
  pool: string;
  protocol: string;
  side: 'buy' | 'sell';
  token: string;
  /** Token base units moved. */
  amountToken: string;
  /** Quote base units moved. */
  amountQuote: string;
  /** Price after the trade: quote base units per token base unit. */
  priceNumerator: string;
  priceDenominator: string;
  priceApprox: ApproxDecimal;
  quote: {
    address: string;
    decimals: number | null;
    decimalsProvenance: 'native_currency' | 'token_metadata_fallback' | 'unavailable';
  };
  origin: string;
  routerRecipient: string | null;
}

/** A child event of an activity parent. */
export type ActivityEvent =
  | { type: 'transaction'; transaction: string }
  | ({ type: 'transfer' } & WalletTransferRow)
  | ({ type: 'trade' } & TradeRow);

/** One transaction touching the wallet, with the wallet's events in it. */
export interface ActivityRow {
  block: number;
  txIndex: number;
  txHash: string | null;
  events: ActivityEvent[];
}

/** Which side of a pool is the quote: the higher-priority quote asset, else currency1. */
export function sidesOf(priority: ReadonlyMap<string, number>, pool: PoolRow) {
  const p0 = priority.get(pool.currency0);
  const p1 = priority.get(pool.currency1);
  const quoteIs0 = p0 !== undefined && (p1 === undefined || p0 < p1);
  return {
    quoteIs0,
    token: quoteIs0 ? pool.currency1 : pool.currency0,
    quote: quoteIs0 ? pool.currency0 : pool.currency1,
  };
}

/** A swap row from the trader's perspective (pool amounts are the pool's: the trader got −amount). */
export function tradeRow(
  view: View,
  priority: ReadonlyMap<string, number>,
  pool: PoolRow,
  s: SwapRow,
): TradeRow {
  const { quoteIs0, token, quote } = sidesOf(priority, pool);
  const gotToken = -BigInt(quoteIs0 ? s.amount1 : s.amount0);
  const gotQuote = -BigInt(quoteIs0 ? s.amount0 : s.amount1);
  const price = quoteIs0 ? invert(ratParse(s.price)) : ratParse(s.price);
  const native = quote === NATIVE;
  const decimals = native ? 18 : (tokenAt(view, quote, s.block)?.metadata?.decimals.value ?? null);
  return {
    ...positionOf(s),
    pool: pool.key,
    protocol: pool.protocol,
    side: gotToken > 0n ? 'buy' : 'sell',
    token,
    amountToken: (gotToken < 0n ? -gotToken : gotToken).toString(),
    amountQuote: (gotQuote < 0n ? -gotQuote : gotQuote).toString(),
    ...priceFieldsJson(price),
    quote: {
      address: quote,
      decimals,
      decimalsProvenance: native
        ? 'native_currency'
        : decimals !== null
          ? 'token_metadata_fallback'
          : 'unavailable',
    },
    origin: s.origin,
    routerRecipient: s.recipient,
  };
}

/** The trade at (pool key, block, log index), or null when its swap or pool row is absent. */
function tradeAt(
  view: View,
  priority: ReadonlyMap<string, number>,
  pk: Hex,
  block: number,
  logIndex: number,
): TradeRow | null {
  const s = view.get(SWAP, pk, block, logIndex);
  const pool = s ? view.get(POOL, pk) : undefined;
  return s && pool ? tradeRow(view, priority, pool, s) : null;
}

/** Top-level transactions of the wallet in chain order. */
export function walkTransactions(view: View, wallet: string, page: PageQuery, sink: PageSink<WalletTxRow>) {
  walletWalk(view, WALLET_TRANSACTIONS, wallet, page, (roles, [, block, txIndex], resume) => {
    const transaction = view.get(TX, block, txIndex);
    if (transaction === undefined) return true;
    return sink({ block, txIndex, role: ROLES[roles] as WalletTxRow['role'], transaction }, resume);
  });
}

/** Direction-aware transfers of the wallet in chain order. */
export function walkTransfers(
  view: View,
  wallet: string,
  page: PageQuery,
  sink: PageSink<WalletTransferRow>,
) {
  walletWalk(view, WALLET_TRANSFERS, wallet, page, (row, _k, resume) => sink(row, resume));
}

/** Swaps the wallet originated, in chain order. */
export function walkTrades(
  view: View,
  priority: ReadonlyMap<string, number>,
  wallet: string,
  page: PageQuery,
  sink: PageSink<TradeRow>,
) {
  walletWalk(view, WALLET_TRADES, wallet, page, (pk, [, block, logIndex], resume) => {
    const t = tradeAt(view, priority, pk, block, logIndex);
    return t ? sink(t, resume) : true;
  });
}

/** `"hash"` of a stored transaction record (the node's JSON text), without parsing the record. */
const HASH_FIELD = /"hash"\s*:\s*"(0x[0-9a-fA-F]{64})"/;
function txHashOf(tx: string): string {
  const m = HASH_FIELD.exec(tx);
  return m ? m[1] : (JSON.parse(tx) as { hash: string }).hash;
}

/**
 * The activity feed: one parent per transaction touching the wallet, from the ACTIVITY index (one
 * row per parent), so a page reads `limit` index rows plus each parent's children by exact key.
 * Children: `transaction` when the wallet is origin or recipient, then its transfers in that
 * transaction (TRANSFER key order), then its trades (log order). Resume key: block u64 ‖ txIndex u32.
 */
export function walkActivity(
  view: View,
  priority: ReadonlyMap<string, number>,
  wallet: string,
  page: PageQuery,
  sink: PageSink<ActivityRow>,
) {
  const w = hexOf(wallet);
  walletWalk(view, WALLET_ACTIVITY, w, page, (refs, [, block, txIndex], resume) => {
    const events: ActivityEvent[] = [];
    const tx = view.get(TX, block, txIndex);
    const txHash = tx !== undefined ? txHashOf(tx) : null;
    if (tx !== undefined && refs.roles !== 0) events.push({ type: 'transaction', transaction: tx });
    const transfers = view.getMany(
      WALLET_TRANSFER,
      refs.transfers.map((o): [Hex, number, number] => [w, block, o]),
    );
    for (const t of transfers) if (t) events.push({ type: 'transfer', ...t });
    const pools = view.getMany(
      WALLET_TRADE,
      refs.trades.map((l): [Hex, number, number] => [w, block, l]),
    );
    refs.trades.forEach((logIndex, j) => {
      const pk = pools[j];
      const t = pk ? tradeAt(view, priority, pk, block, logIndex) : null;
      if (t) events.push({ type: 'trade', ...t });
    });
    return sink({ block, txIndex, txHash, events }, resume);
  });
}
