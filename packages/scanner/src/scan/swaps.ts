/**
 * Buyers and traders from every indexed swap (the markets reader's swap index, all protocols and
 * every quote), not only from transfers out of labelled venues: a token's first buys in chain
 * order (the wallet finder's candidates) and the wallets that traded against a quote asset in a
 * window (the alpha ranking's candidates). The trader of a swap is its transaction origin, the
 * wallet the wallets projection books the position to.
 */
import type { PoolRow, SwapRow, TokenTrade } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { collect } from './common.js';

/** Swaps read at most per quote by a first-buys walk (chain order from the first). */
export const SWAP_SCAN = 5000;

/** A wallet's first buy of a token in an indexed swap. */
export interface SwapBuy {
  /** The swap's transaction origin (the wallet its position is booked to). */
  wallet: string;
  /** The pool (key) and protocol the swap was on, and the currency paid. */
  pool: string;
  protocol: string;
  quote: string;
  /** Token and quote base units moved. */
  amountToken: string;
  amountQuote: string;
  block: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
}

export const SWAP_BUY_RULE = `a buy is an indexed swap (any protocol: V2, V3, V4, launchpad curve; any quote) in which the trader received the token; the trader is the transaction origin; a wallet counts once, at its first buy in chain order (the first ${SWAP_SCAN} swaps against each quote are read)`;

const before = (a: TokenTrade, b: TokenTrade) =>
  a.block - b.block || a.txIndex - b.txIndex || a.logIndex - b.logIndex;

/**
 * First buys of `token` in chain order across every quote it trades against. When a quote's walk
 * stops at its bound, buys after that quote's last swap read are dropped (their order against the
 * unread swaps is unknown) and `complete` is false.
 * @throws DomainError not_found when the token is not indexed (through the markets reader).
 */
export function firstSwapBuys(
  rc: ReadCtx,
  token: string,
): { buys: SwapBuy[]; quotes: string[]; swapsRead: number; complete: boolean } {
  const t = token.toLowerCase();
  const m = rc.readers.markets;
  const quotes = m.tokenVenues(rc.view, t, undefined, rc.anchor.block).quotes.map((q) => q.quote);
  const trades: Array<TokenTrade & { quote: string }> = [];
  let cutoff: TokenTrade | null = null;
  for (const quote of quotes) {
    const { rows, more } = collect<TokenTrade>(
      (q, sink) => void m.tokenSwaps(rc.view, t, quote, q, sink),
      rc.anchor.block,
      SWAP_SCAN,
    );
    for (const r of rows) trades.push({ ...r, quote });
    const last = rows[rows.length - 1];
    if (more && last && (!cutoff || before(last, cutoff) < 0)) cutoff = last;
  }
  trades.sort(before);
  const seen = new Set<string>();
  const buys: SwapBuy[] = [];
  for (const x of trades) {
    if (cutoff && before(x, cutoff) > 0) break;
    const w = x.executor.toLowerCase();
    if (x.side !== 'buy' || seen.has(w)) continue;
    seen.add(w);
    buys.push({
      wallet: w,
      pool: x.pool,
      protocol: x.protocol,
      quote: x.quote,
      amountToken: x.amountToken,
      amountQuote: x.amountQuote,
      block: x.block,
      txIndex: x.txIndex,
      logIndex: x.logIndex,
      txHash: x.txHash,
    });
  }
  return { buys, quotes, swapsRead: trades.length, complete: cutoff === null };
}

/** Pools of a quote asset read at most, and swap rows read at most, by a window's trader walk. */
export const TRADER_POOLS = 2048;
export const TRADER_SWAP_SCAN = 20_000;

/** The wallets that traded against `quote` since `fromTs`, with the tokens each traded. */
export interface WindowTraders {
  /** wallet → the tokens it swapped against the quote in the window. */
  traders: Map<string, Set<string>>;
  /** Distinct tokens paired with the quote in its registered pools. */
  tokens: number;
  swapsScanned: number;
  /** False when a bound (pools, swaps) stopped the walk. */
  complete: boolean;
}

/**
 * Every swap against `quote` with a timestamp ≥ `fromTs` up to the anchor: the quote's registered
 * pools (markets reader), grouped by the token they pair it with, walked newest first through the
 * token's swaps against the quote (or, for a currency with no token row such as the native
 * currency, through each pool's own swaps); bounded by {@link TRADER_POOLS} and
 * {@link TRADER_SWAP_SCAN}.
 */
export function windowTraders(rc: ReadCtx, quote: string, fromTs: number): WindowTraders {
  const q = quote.toLowerCase();
  const m = rc.readers.markets;
  const at = rc.anchor.block;
  const pools = collect<PoolRow>((pg, sink) => m.currencyPools(rc.view, q, pg, sink), at, TRADER_POOLS);
  const byToken = new Map<string, PoolRow[]>();
  for (const p of pools.rows) {
    const t = p.currency0 === q ? p.currency1 : p.currency0;
    if (t === q) continue;
    byToken.set(t, [...(byToken.get(t) ?? []), p]);
  }
  const traders = new Map<string, Set<string>>();
  let scanned = 0;
  let complete = !pools.more;
  /** Visits one swap (newest first); false stops this walk. */
  const visit = (token: string, ts: number, origin: string): boolean => {
    if (ts < fromTs) return false;
    if (++scanned > TRADER_SWAP_SCAN) {
      complete = false;
      return false;
    }
    const w = origin.toLowerCase();
    const set = traders.get(w) ?? new Set<string>();
    set.add(token);
    traders.set(w, set);
    return true;
  };
  const page = { at, after: null, order: 'desc' as const, limit: TRADER_SWAP_SCAN + 1 };
  for (const [token, ps] of [...byToken].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (scanned >= TRADER_SWAP_SCAN) {
      complete = false;
      break;
    }
    if (rc.readers.tokens.find(rc.view, token, at)) {
      try {
        m.tokenSwaps(rc.view, token, q, page, (x) =>
          x === null ? true : visit(token, x.timestamp, x.executor),
        );
      } catch (err) {
        // The pair lies outside the token's bounded pool membership (2,048 pools): not read.
        if ((err as { code?: string }).code !== 'quote_not_admitted') throw err;
        complete = false;
      }
      continue;
    }
    for (const p of ps) {
      if (p.protocol === 'launchpad') continue; // a curve's token always has a token row
      const ref = p.protocol === 'v4' ? { manager: p.contract, poolId: p.poolId! } : { address: p.contract };
      m.poolSwaps(rc.view, ref, page, (s: SwapRow | null) =>
        s === null ? true : visit(token, s.timestamp, s.origin),
      );
    }
  }
  return { traders, tokens: byToken.size, swapsScanned: Math.min(scanned, TRADER_SWAP_SCAN), complete };
}
