/**
 * Swap walks as of an anchor: a pool's swaps (pool perspective), bars folded over them, a token's
 * trades across its pools against one quote (token perspective), and the token's traders ranked
 * by quote volume in a window.
 */

import { DomainError } from '../errors/index.js';
import { POOL_BARS, POOL_SWAPS, TOKEN_SWAPS, TOKEN_TRADERS } from '../schema/cursors.js';
import type { PoolRow, SwapPosition, SwapRow } from '../schema/rows/markets.js';
import { SWAP, TOKEN_SWAP } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { cmp, invert, type Rational, ratParse } from './rational.js';
import { counterOf, tokenIsBase } from './venue.js';
import { WINDOW_SECONDS, type WindowName, windowFrom } from './windows.js';

type Hex = `0x${string}`;

/**
 * The range of a page over a pool's rows keyed (pool key, block, …): the pool's rows up to the
 * page anchor, in the page's order, resuming after the page's resume key.
 */
export const poolPageRange = (k: Hex, page: PageQuery) => ({
  prefix: [k] as [Hex],
  lte: [k, page.at] as [Hex, number],
  reverse: page.order === 'desc',
  resume: { under: [k] as [Hex], suffix: page.after },
});

/** Swaps of pool `p` up to the page anchor, in the page's order. Resume key: (block u64, logIndex u32). */
export function walkPoolSwaps(view: View, p: PoolRow, page: PageQuery, sink: PageSink<SwapRow>): void {
  const k = p.key as Hex;
  view.each(SWAP, poolPageRange(k, page), (s, _key, raw) => sink(s, POOL_SWAPS.tail(raw)));
}

/** Swaps read per bar page at most: bounds one request's work (a bar may span many trades). */
export const MAX_TICKS_PER_PAGE = 50_000;
/** Largest trade-bar size. */
export const MAX_TRADE_BAR_SIZE = 100_000n;

/** A bar folded over consecutive ticks (pool perspective: base = currency0, quote = currency1). */
export interface Bar {
  first: { block: number; logIndex: number };
  last: { block: number; logIndex: number };
  trades: number;
  open: Rational;
  high: Rational;
  low: Rational;
  close: Rational;
  /** Σ|amount0| and Σ|amount1| of the bar's trades, base units. */
  volumeBase: bigint;
  volumeQuote: bigint;
  /** False for the trailing bar still forming at the anchor. */
  complete: boolean;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/** @throws DomainError bad_request for a size ≤ 0, or a trade size above {@link MAX_TRADE_BAR_SIZE}. */
export function checkBarSize(rule: 'trade' | 'volume', size: bigint): void {
  if (size <= 0n) throw new DomainError('bad_request', 'size must be positive');
  if (rule === 'trade' && size > MAX_TRADE_BAR_SIZE)
    throw new DomainError('bad_request', `trade bars: size at most ${MAX_TRADE_BAR_SIZE}`);
}

/**
 * Bars of pool `p`, ascending from the tick after the cursor: rule `trade` closes a bar every
 * `size` trades; `volume` when its quote volume (Σ|amount1|) reaches `size`. The trailing bar is
 * published incomplete and ends the walk. Resume key: the bar's last tick (block u64, logIndex u32).
 * @throws DomainError bad_request (size ≤ 0, trade size > 100000); query_too_broad when a page
 * would read more than {@link MAX_TICKS_PER_PAGE} ticks.
 */
export function walkBars(
  view: View,
  p: PoolRow,
  rule: 'trade' | 'volume',
  size: bigint,
  page: PageQuery,
  sink: PageSink<Bar>,
): void {
  checkBarSize(rule, size);
  let bar: Bar | null = null;
  let seen = 0;
  let full = false;
  const emit = (complete: boolean) => {
    if (!bar) return true;
    const b: Bar = { ...bar, complete };
    bar = null;
    return sink(b, POOL_BARS.encode(b.last.block, b.last.logIndex));
  };
  const k = p.key as Hex;
  view.eachValue(
    SWAP,
    {
      prefix: [k],
      lte: [k, page.at],
      resume: { under: [k], suffix: page.after },
    },
    (s) => {
      if (++seen > MAX_TICKS_PER_PAGE) return false;
      const price = ratParse(s.price);
      const at = { block: s.block, logIndex: s.logIndex };
      const b: Bar = bar ?? {
        first: at,
        last: at,
        trades: 0,
        open: price,
        high: price,
        low: price,
        close: price,
        volumeBase: 0n,
        volumeQuote: 0n,
        complete: false,
      };
      bar = b;
      if (cmp(price, b.high) > 0) b.high = price;
      if (cmp(price, b.low) < 0) b.low = price;
      b.close = price;
      b.last = at;
      b.volumeBase += abs(BigInt(s.amount0));
      b.volumeQuote += abs(BigInt(s.amount1));
      b.trades++;
      const done = rule === 'trade' ? BigInt(b.trades) >= size : b.volumeQuote >= size;
      if (done && !emit(true)) {
        full = true;
        return false;
      }
      return true;
    },
  );
  // The trailing bar is still forming at the anchor: published as incomplete, and the walk ends.
  if (!full && bar) emit(false);
  if (seen > MAX_TICKS_PER_PAGE && !full)
    throw new DomainError(
      'query_too_broad',
      `a page of bars would read more than ${MAX_TICKS_PER_PAGE} ticks; use a smaller size`,
    );
}

/** A trade in token perspective (side, amounts, price quote per token). */
export interface TokenTrade extends SwapPosition {
  pool: string;
  protocol: PoolRow['protocol'];
  /** The transaction origin. */
  executor: string;
  side: 'buy' | 'sell';
  /** Token and quote base units moved (absolute). */
  amountToken: string;
  amountQuote: string;
  /** Quote base units per token base unit after the trade. */
  price: Rational;
}

/** The chain position of a swap (a fresh object: block, timestamp, txIndex, logIndex, txHash). */
export const positionOf = (s: SwapPosition): SwapPosition => ({
  block: s.block,
  timestamp: s.timestamp,
  txIndex: s.txIndex,
  logIndex: s.logIndex,
  txHash: s.txHash,
});

/** Orients a swap of pool `p` for `token`: a buy is the trader receiving the token. */
export function tokenTrade(p: PoolRow, token: string, s: SwapRow): TokenTrade {
  const base = tokenIsBase(p, token);
  const amtToken = BigInt(base ? s.amount0 : s.amount1);
  const amtQuote = BigInt(base ? s.amount1 : s.amount0);
  return {
    ...positionOf(s),
    pool: p.key,
    protocol: p.protocol,
    executor: s.origin,
    side: amtToken < 0n ? 'buy' : 'sell',
    amountToken: abs(amtToken).toString(),
    amountQuote: abs(amtQuote).toString(),
    price: base ? ratParse(s.price) : invert(ratParse(s.price)),
  };
}

/**
 * Visits the token's swaps on `pools` (its membership) against `quote` up to `at`, through the
 * TOKEN_SWAP index, in the given direction, resuming after `after` (the key after the token).
 * `visit` gets the pool, the swap and the resume key; false stops.
 */
function eachTokenSwap(
  view: View,
  token: string,
  pools: PoolRow[],
  quote: string,
  walk: { at: number; reverse: boolean; after: Buffer | null },
  visit: (p: PoolRow | null, s: SwapRow | null, resume: Buffer) => boolean,
): void {
  const t = token as Hex;
  const byKey = new Map(pools.map((p) => [p.key, p]));
  view.each(
    TOKEN_SWAP,
    {
      prefix: [t],
      lte: [t, walk.at],
      reverse: walk.reverse,
      resume: { under: [t], suffix: walk.after },
    },
    (poolKey, [, block, logIndex], raw) => {
      const p = byKey.get(poolKey);
      const resume = TOKEN_SWAPS.tail(raw);
      if (!p || counterOf(p, token) !== quote) return visit(null, null, resume);
      return visit(p, view.get(SWAP, p.key as Hex, block, logIndex) ?? null, resume);
    },
  );
}

/** The token's trades against `quote` across `pools`, chain order. Resume key: (block, logIndex). */
export function walkTokenTrades(
  view: View,
  token: string,
  pools: PoolRow[],
  quote: string,
  page: PageQuery,
  sink: PageSink<TokenTrade>,
): void {
  eachTokenSwap(
    view,
    token,
    pools,
    quote,
    { at: page.at, reverse: page.order === 'desc', after: page.after },
    (p, s, resume) => (p && s ? sink(tokenTrade(p, token, s), resume) : true),
  );
}

/** Swaps scanned for the traders ranking at most (bounded aggregate). */
export const TRADERS_SCAN_LIMIT = 50_000;

/** A trader of the token in a window. */
export interface TraderRow {
  rank: number;
  trader: string;
  trades: number;
  buys: number;
  sells: number;
  volumeToken: string;
  volumeQuote: string;
}

/** The ranking's bound: distinct traders found and whether every swap of the window was read. */
export interface TradersScan {
  distinctTraders: { lowerBound: number; exact: boolean };
  swapsScanned: number;
}

/**
 * Distinct traders (transaction origins) of `token` against `quote` in `window` (the windows rule:
 * trades with timestamp ≥ windowFrom), ranked by quote volume desc, ties by address. Reads at most
 * {@link TRADERS_SCAN_LIMIT} index rows newest first. Resume key: the rank (u32).
 */
export function walkTraders(
  view: View,
  token: string,
  pools: PoolRow[],
  quote: string,
  window: WindowName,
  anchorTs: number,
  page: PageQuery,
  sink: PageSink<TraderRow>,
): TradersScan {
  const from = windowFrom(anchorTs, WINDOW_SECONDS[window]);
  const agg = new Map<string, { trades: number; buys: number; sells: number; vt: bigint; vq: bigint }>();
  let scanned = 0;
  let complete = true;
  eachTokenSwap(view, token, pools, quote, { at: page.at, reverse: true, after: null }, (p, s) => {
    if (++scanned > TRADERS_SCAN_LIMIT) {
      complete = false;
      return false;
    }
    if (!p || !s) return true;
    if (s.timestamp < from) return false;
    const t = tokenTrade(p, token, s);
    const a = agg.get(s.origin) ?? { trades: 0, buys: 0, sells: 0, vt: 0n, vq: 0n };
    a.trades++;
    if (t.side === 'buy') a.buys++;
    else a.sells++;
    a.vt += BigInt(t.amountToken);
    a.vq += BigInt(t.amountQuote);
    agg.set(s.origin, a);
    return true;
  });
  const ranked = [...agg.entries()].sort((x, y) =>
    y[1].vq > x[1].vq ? 1 : y[1].vq < x[1].vq ? -1 : x[0] < y[0] ? -1 : 1,
  );
  const start = page.after ? TOKEN_TRADERS.decode(page.after)[0] : 0;
  for (let i = start; i < ranked.length; i++) {
    const [trader, a] = ranked[i];
    const key = TOKEN_TRADERS.encode(i + 1);
    const row: TraderRow = {
      rank: i + 1,
      trader,
      trades: a.trades,
      buys: a.buys,
      sells: a.sells,
      volumeToken: a.vt.toString(),
      volumeQuote: a.vq.toString(),
    };
    if (!sink(row, key)) break;
  }
  return {
    distinctTraders: { lowerBound: agg.size, exact: complete },
    swapsScanned: Math.min(scanned, TRADERS_SCAN_LIMIT),
  };
}
