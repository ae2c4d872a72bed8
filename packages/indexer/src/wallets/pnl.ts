/**
 * PnL rules of the wallets domain, held once: a stored weighted-average-cost {@link Position}
 * valued at the anchor (realised from the projection, unrealised against the mark on the default
 * venue), the per-quote sums of the PnL aggregate (never blended across quotes), and the daily
 * realised series. All figures are exact rationals in quote base units.
 */

import { type ApproxDecimal, approxDecimal } from '@chain-indexer/platform/numbers';
import {
  add,
  chooseVenue,
  cmp,
  firstBlockAtOrAfter,
  orient,
  type Rational,
  rational,
  ratJson,
  ratParse,
  stateAt,
  sub,
  tokenPools,
} from '../markets/index.js';
import { WALLET_PNL_DAILY, WALLET_POSITIONS } from '../schema/cursors.js';
import type { Position, PositionVersion } from '../schema/rows/wallets.js';
import { RECON } from '../schema/tables/tokens.js';
import { DAILY, POSITION, POSITION_HIST } from '../schema/tables/wallets.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import { type BalanceFidelity, fidelityFrom, tokenAt } from '../tokens/index.js';
import { boundedList, hexOf } from './walk.js';

/** Positions read by the PnL aggregate at most (bounded aggregate). */
export const PNL_SCAN_BOUND = 500;

/** An exact rational with its floor: `{numerator, denominator, floor}` (decimal strings). */
export interface RationalWithFloor {
  numerator: string;
  denominator: string;
  /** ⌊numerator / denominator⌋, for convenience. */
  floor: string;
  /** The decimal sibling (rounded, approximate). */
  approx: ApproxDecimal;
}
/** An exact rational price `{priceNumerator, priceDenominator}` (decimal strings). */
export interface PriceRational {
  priceNumerator: string;
  priceDenominator: string;
  /** The decimal sibling (rounded, approximate). */
  approx: ApproxDecimal;
}

/** A position valued at an anchor (quote base units; token quantities in token base units). */
export interface PositionView {
  token: string;
  /** Token symbol from its metadata; null when not indexed or not probed. */
  symbol: string | null;
  quote: string;
  /** Token base units held from trades. */
  quantity: string;
  cost: RationalWithFloor;
  /** Cost per token base unit; null when nothing is held. */
  averageCost: PriceRational | null;
  realised: RationalWithFloor;
  /** Mark value minus cost; zero when nothing is held; null without a mark. */
  unrealised: RationalWithFloor | null;
  unrealisedReason: 'no_price_on_default_venue' | null;
  /** Quote base units per token base unit on the default venue at the anchor. */
  markPrice: PriceRational | null;
  /** Pool key of the default venue the mark comes from. */
  markVenue: string | null;
  markReason: 'nothing_held' | 'no_price_on_default_venue' | null;
  buys: number;
  sells: number;
  boughtQuantity: string;
  soldQuantity: string;
  unexplainedSold: string;
  abnormal: boolean;
  abnormalReason: 'sold_more_than_bought_in_trades' | null;
  firstBlock: number;
  lastBlock: number;
  /**
   * The token's reconciliation state (issue Q): `diverges` means the token's balances move without
   * Transfer events (fee-on-transfer, rebasing), so quantities from trades need not be what the
   * wallet holds on chain.
   */
  reconciliation: BalanceFidelity;
}

/** Realised or unrealised PnL summed for one quote asset. */
export interface QuoteSum extends PriceRational {
  /** Positions without a mark (their unrealised PnL is not in the sum). */
  unpricedPositions: number;
}

/** The bounded PnL aggregate of a wallet. */
export interface PnlAggregate {
  realisedByQuote: Record<string, QuoteSum>;
  unrealisedByQuote: Record<string, QuoteSum>;
  scanBounds: { positionsScanned: number; positionBound: number };
  complete: boolean;
  incompleteReason: 'position_bound_reached' | null;
}

/** A day of realised PnL (only days with realised PnL exist). */
export interface DailyPnl {
  /** UTC day index (unix seconds / 86400, floored). */
  day: number;
  dayStartUnix: number;
  realised: { numerator: string; denominator: string; approx: ApproxDecimal };
}

/** Position filters applied after paging (filtered rows still advance the cursor). */
export interface PositionFilter {
  /** Hide positions holding fewer token base units than this. */
  minQuantity: bigint | null;
  /** Hide fully exited positions. */
  sellout: boolean;
  /** Hide positions that sold more than trades bought. */
  hideAbnormal: boolean;
}

const floorOf = (r: Rational) => (r.n >= 0n ? r.n / r.d : -((-r.n + r.d - 1n) / r.d));
const withFloor = (r: Rational): RationalWithFloor => ({
  numerator: r.n.toString(),
  denominator: r.d.toString(),
  floor: floorOf(r).toString(),
  approx: approxDecimal(r.n, r.d),
});

/**
 * Current price of `token` in `quote` (quote base units per token base unit) on the default venue
 * (markets venue rule) as of block `at` with timestamp `ts`; null when no venue has a price.
 */
export function markOf(
  view: View,
  token: string,
  quote: string,
  at: number,
  ts: number,
): { price: Rational; pool: string } | null {
  const pools = tokenPools(view, token, at).pools;
  const v = chooseVenue(view, pools, token, quote, { block: at, ts });
  if (!v) return null;
  const st = stateAt(view, v.pool.key, at);
  return st?.price ? { price: orient(v.pool, token, ratParse(st.price)), pool: v.pool.key } : null;
}

/** Values a stored position at block `at` (timestamp `ts`). */
export function positionView(view: View, p: Position, at: number, ts: number): PositionView {
  const qty = BigInt(p.qty);
  const cost = ratParse(p.cost);
  const mark = qty > 0n ? markOf(view, p.token, p.quote, at, ts) : null;
  const value = mark ? rational(mark.price.n * qty, mark.price.d) : null;
  const unrealised = value
    ? rational(value.n * cost.d - cost.n * value.d, value.d * cost.d)
    : qty === 0n
      ? rational(0n, 1n)
      : null;
  const abnormal = BigInt(p.unexplainedSold) > 0n;
  return {
    token: p.token,
    symbol: tokenAt(view, p.token, at)?.metadata?.symbol.value ?? null,
    quote: p.quote,
    quantity: p.qty,
    cost: withFloor(cost),
    averageCost: qty > 0n ? ratJson(rational(cost.n, cost.d * qty)) : null,
    realised: withFloor(ratParse(p.realised)),
    unrealised: unrealised ? withFloor(unrealised) : null,
    unrealisedReason: unrealised ? null : 'no_price_on_default_venue',
    markPrice: mark ? ratJson(mark.price) : null,
    markVenue: mark?.pool ?? null,
    markReason: mark ? null : qty === 0n ? 'nothing_held' : 'no_price_on_default_venue',
    buys: p.buys,
    sells: p.sells,
    boughtQuantity: p.boughtQty,
    soldQuantity: p.soldQty,
    unexplainedSold: p.unexplainedSold,
    abnormal,
    abnormalReason: abnormal ? 'sold_more_than_bought_in_trades' : null,
    firstBlock: p.firstBlock,
    lastBlock: p.lastBlock,
    reconciliation: fidelityFrom(view.get(RECON, p.token as `0x${string}`)),
  };
}

/** A (wallet, token, quote) key of wallets.position and wallets.position_history. */
type PairKey = readonly [`0x${string}`, `0x${string}`, `0x${string}`];

/**
 * The latest wallets.position_history version of pair `k` at or below block `at` (one reverse
 * seek) with its block, or undefined when the pair had not traded by then.
 */
function versionAt(view: View, k: PairKey, at: number): { block: number; v: PositionVersion } | undefined {
  if (at < 0) return undefined;
  const r = view.first(POSITION_HIST, {
    prefix: [k[0], k[1], k[2]],
    lte: [k[0], k[1], k[2], at],
    reverse: true,
  });
  return r ? { block: r.key[3] as number, v: r.value } : undefined;
}

/**
 * Position `p` (its current row, wallets.position) as it stood at the end of block `at`: the row
 * itself when its last trade is at or before `at`, else the latest wallets.position_history
 * version at or below `at` (one reverse seek); null when the wallet first traded it after `at`.
 * Quantities in token base units, cost and realised PnL exact rationals in quote base units.
 */
export function positionAt(view: View, wallet: string, p: Position, at: number): Position | null {
  if (p.firstBlock > at) return null;
  if (p.lastBlock <= at) return p;
  const r = versionAt(view, [hexOf(wallet), hexOf(p.token), hexOf(p.quote)], at);
  return r ? { token: p.token, quote: p.quote, lastBlock: r.block, ...r.v } : null;
}

/** Whether `filter` hides position `p`. */
export function hidden(p: Position, f: PositionFilter): boolean {
  const qty = BigInt(p.qty);
  return (
    (f.minQuantity !== null && qty < f.minQuantity) ||
    (f.sellout && qty === 0n) ||
    (f.hideAbnormal && BigInt(p.unexplainedSold) > 0n)
  );
}

/**
 * Positions of `wallet` by (token, quote) as they stood at the end of the page anchor (first
 * traded at or before it; {@link positionAt}); filtered rows go to the sink as null (they keep
 * their place in the page). @returns rows filtered out.
 */
export function walkPositions(
  view: View,
  wallet: string,
  page: PageQuery,
  filter: PositionFilter,
  ts: number,
  sink: PageSink<PositionView>,
): { filteredOut: number } {
  const w = hexOf(wallet);
  let filteredOut = 0;
  view.each(
    POSITION,
    {
      prefix: [w],
      reverse: page.order === 'desc',
      resume: { under: [w], suffix: page.after },
    },
    (cur, _k, raw) => {
      const p = positionAt(view, w, cur, page.at);
      if (!p) return true;
      const resume = WALLET_POSITIONS.tail(raw);
      if (hidden(p, filter)) {
        if (!sink(null, resume)) return false;
        filteredOut++;
        return true;
      }
      return sink(positionView(view, p, page.at, ts), resume);
    },
  );
  return { filteredOut };
}

/** Sums rationals per quote (never across quotes); a null is an unpriced position. */
function sumByQuote(rows: Array<{ quote: string; r: RationalWithFloor | null }>): Record<string, QuoteSum> {
  const out = new Map<string, { sum: Rational; missing: number }>();
  for (const { quote, r } of rows) {
    const cur = out.get(quote) ?? { sum: rational(0n, 1n), missing: 0 };
    if (r) cur.sum = add(cur.sum, rational(BigInt(r.numerator), BigInt(r.denominator)));
    else cur.missing++;
    out.set(quote, cur);
  }
  return Object.fromEntries(
    [...out].map(([q, v]) => [q, { ...ratJson(v.sum), unpricedPositions: v.missing }]),
  );
}

/**
 * Realised and unrealised totals per quote over at most {@link PNL_SCAN_BOUND} positions, each as
 * it stood at the end of block `at` (timestamp `ts`).
 */
export function pnlAggregate(view: View, wallet: string, at: number, ts: number): PnlAggregate {
  const { rows, truncated } = boundedList(view, POSITION, [hexOf(wallet)], PNL_SCAN_BOUND, (cur) => {
    const p = positionAt(view, wallet, cur, at);
    return p ? positionView(view, p, at, ts) : null;
  });
  return {
    realisedByQuote: sumByQuote(rows.map((p) => ({ quote: p.quote, r: p.realised }))),
    unrealisedByQuote: sumByQuote(rows.map((p) => ({ quote: p.quote, r: p.unrealised }))),
    scanBounds: { positionsScanned: rows.length, positionBound: PNL_SCAN_BOUND },
    complete: !truncated,
    incompleteReason: truncated ? 'position_bound_reached' : null,
  };
}

/** Positions of `wallet` in `token` (one per quote) as they stood at the end of block `at`. */
export function tokenPositions(view: View, wallet: string, token: string, at: number, ts: number) {
  return view
    .rows(POSITION, { prefix: [hexOf(wallet), hexOf(token)], limit: 10_000 })
    .map((r) => positionAt(view, wallet, r.value, at))
    .filter((p) => p !== null)
    .map((p) => positionView(view, p, at, ts));
}

/**
 * Realised PnL of (wallet, token, quote) on UTC day `day`, the day holding block `at`, as of the
 * end of `at`: its realised PnL in wallets.position_history at `at` minus the one before the day's
 * first block (markets.minute_first_block) — two reverse seeks; a walk over the day's versions
 * only when that difference is zero. Exact rational, quote base units; null when no trade of the
 * day at or before `at` realised PnL (the day has no row at `at`).
 */
function dayUpTo(view: View, k: PairKey, day: number, at: number): Rational | null {
  const from = firstBlockAtOrAfter(view, day * 86400) ?? at;
  const end = versionAt(view, k, at);
  if (!end || end.block < from) return null;
  const before = ratParse(versionAt(view, k, from - 1)?.v.realised ?? '0/1');
  const r = sub(ratParse(end.v.realised), before);
  if (r.n !== 0n) return r;
  // Zero: the day has a row only when some trade of it realised PnL (amounts that cancel out).
  let prev = before;
  let realising = false;
  view.each(POSITION_HIST, { gte: [k[0], k[1], k[2], from], lte: [k[0], k[1], k[2], at] }, (v) => {
    const cur = ratParse(v.realised);
    realising = cmp(cur, prev) !== 0;
    prev = cur;
    return !realising;
  });
  return realising ? r : null;
}

/**
 * Daily realised PnL of one (token, quote) for days in [fromDay, toDay] as of the end of the page
 * anchor (timestamp `ts`), paged by day: days before the anchor's day are final (wallets.daily_pnl),
 * the anchor's own day counts its trades up to the anchor only ({@link dayUpTo}), later days are
 * absent. Exact rationals, quote base units.
 */
export function walkDaily(
  view: View,
  q: { wallet: string; token: string; quote: string; fromDay: number; toDay: number },
  page: PageQuery,
  ts: number,
  sink: PageSink<DailyPnl>,
): void {
  const k = [hexOf(q.wallet), hexOf(q.token), hexOf(q.quote)] as const;
  const anchorDay = Math.floor(ts / 86400);
  view.each(
    DAILY,
    {
      gte: [...k, q.fromDay],
      lte: [...k, Math.min(q.toDay, anchorDay)],
      reverse: page.order === 'desc',
      resume: { under: [...k], suffix: page.after },
    },
    (v, key, raw) => {
      const day = key[3] as number;
      const r = day < anchorDay ? ratParse(v) : dayUpTo(view, k, day, page.at);
      if (!r) return true;
      return sink(
        {
          day,
          dayStartUnix: day * 86400,
          realised: {
            numerator: r.n.toString(),
            denominator: r.d.toString(),
            approx: approxDecimal(r.n, r.d),
          },
        },
        WALLET_PNL_DAILY.tail(raw),
      );
    },
  );
}
