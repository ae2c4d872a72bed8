/**
 * Wallet lists: the KOL feed (recent trades of wallets labelled `kol`), the wallet finder (a
 * token's buyers matching published filters: early buyers, realised PnL, win rate) and the alpha
 * ranking (wallets ranked by realised PnL over a window). Each answer publishes its rule, its
 * candidate set and every input of its figures. Read through the wallets, tokens and addresses
 * readers at one anchor.
 */
import type { PositionView, TradeRow } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { collect, type Share, shareOf } from './common.js';
import {
  firstSwapBuys,
  SWAP_BUY_RULE,
  type SwapBuy,
  TRADER_POOLS,
  TRADER_SWAP_SCAN,
  windowTraders,
} from './swaps.js';

/** A rational `numerator/denominator` (quote base units). */
export interface Ratio {
  numerator: string;
  denominator: string;
}

const ratio = (s: { numerator: string; denominator: string }) => ({
  n: BigInt(s.numerator),
  d: BigInt(s.denominator),
});
const addR = (a: { n: bigint; d: bigint }, b: { n: bigint; d: bigint }) => ({
  n: a.n * b.d + b.n * a.d,
  d: a.d * b.d,
});
const cmpR = (a: { n: bigint; d: bigint }, b: { n: bigint; d: bigint }) => {
  const x = a.n * b.d - b.n * a.d;
  return x > 0n ? 1 : x < 0n ? -1 : 0;
};
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
const out = (r: { n: bigint; d: bigint }): Ratio => {
  const g = gcd(r.n, r.d) || 1n;
  return { numerator: (r.n / g).toString(), denominator: (r.d / g).toString() };
};

/** Whether a LABELS_FILE label marks a KOL (`kol` or `kol:<name>`). */
const isKol = (l: string) => l.toLowerCase() === 'kol' || l.toLowerCase().startsWith('kol:');

/** Trades read per KOL wallet (the most recent). */
const KOL_TRADES_EACH = 50;

export interface KolFeed {
  rule: string;
  wallets: Array<{ wallet: string; labels: string[] }>;
  trades: Array<TradeRow & { wallet: string }>;
  limit: number;
}

/** Recent trades of LABELS_FILE wallets labelled kol, newest first, at most `limit`. */
export function kolFeed(rc: ReadCtx, limit: number): KolFeed {
  const wallets = [...rc.config.labelled]
    .filter(([, ls]) => ls.some(isKol))
    .map(([wallet, ls]) => ({ wallet, labels: [...ls] }))
    .sort((a, b) => (a.wallet < b.wallet ? -1 : 1));
  const trades: KolFeed['trades'] = [];
  for (const { wallet } of wallets) {
    const { rows } = collect<TradeRow>(
      (q, sink) => rc.readers.wallets.trades(rc.view, wallet, q, sink),
      rc.anchor.block,
      Math.min(limit, KOL_TRADES_EACH),
      'desc',
    );
    for (const t of rows) trades.push({ ...t, wallet });
  }
  trades.sort((a, b) => b.block - a.block || b.txIndex - a.txIndex || b.logIndex - a.logIndex);
  return {
    rule: 'wallets whose LABELS_FILE labels include kol or kol:<name>; their swaps (the wallet is the transaction origin), newest first',
    wallets,
    trades: trades.slice(0, limit),
    limit,
  };
}

/** Positions of a wallet read at most for its win rate. */
const WIN_RATE_POSITIONS = 500;

/** Win rate: positions with a sell whose realised PnL is positive, over positions with a sell. */
export function winRate(
  rc: ReadCtx,
  wallet: string,
): { wins: number; sold: number; rate: Share | null; complete: boolean } {
  const { rows, more } = collect<PositionView>(
    (q, sink) =>
      void rc.readers.wallets.positions(
        rc.view,
        wallet,
        { minQuantity: null, sellout: false, hideAbnormal: false },
        q,
        sink,
      ),
    rc.anchor.block,
    WIN_RATE_POSITIONS,
  );
  const sold = rows.filter((p) => p.sells > 0);
  const wins = sold.filter((p) => BigInt(p.realised.numerator) > 0n).length;
  return { wins, sold: sold.length, rate: shareOf(BigInt(wins), BigInt(sold.length)), complete: !more };
}

export interface FinderFilters {
  /** Keep the first N buyers (by first buy). */
  earlyBuyers: number | null;
  /** Keep wallets whose realised PnL in the token (any quote) is at least this, quote base units. */
  minRealised: bigint | null;
  /** Keep wallets whose win rate is at least this many basis points (over at least one sold position). */
  minWinRateBps: number | null;
}

export interface FinderRow {
  wallet: string;
  buyRank: number;
  firstBuy: SwapBuy;
  positions: Array<{ quote: string; realised: Ratio; buys: number; sells: number; quantity: string }>;
  winRate: { wins: number; sold: number; rate: Share | null; complete: boolean };
}

/** Buyers the finder examines at most. */
export const FINDER_CANDIDATES = 500;

/** Buyers of `token` matching every given filter, in first-buy order, at most `limit`. */
export function walletFinder(
  rc: ReadCtx,
  token: string,
  f: FinderFilters,
  limit: number,
): {
  token: string;
  filters: { earlyBuyers: number | null; minRealised: string | null; minWinRateBps: number | null };
  rule: string;
  buys: { rule: string; quotes: string[]; swapsRead: number; complete: boolean };
  candidates: number;
  candidatesComplete: boolean;
  matched: number;
  wallets: FinderRow[];
} {
  const t = token.toLowerCase();
  rc.readers.tokens.token(rc.view, t, rc.anchor.block); // 404 when not indexed
  const fb = firstSwapBuys(rc, t);
  const buyers = fb.buys.slice(0, FINDER_CANDIDATES);
  const rows: FinderRow[] = [];
  let matched = 0;
  for (const [i, b] of buyers.entries()) {
    if (f.earlyBuyers !== null && i >= f.earlyBuyers) break;
    let positions: PositionView[] = [];
    try {
      positions = rc.readers.wallets.pnlToken(rc.view, b.wallet, t, rc.anchor.block);
    } catch (err) {
      if ((err as { code?: string }).code !== 'not_found') throw err;
    }
    if (
      f.minRealised !== null &&
      !positions.some((p) => cmpR(ratio(p.realised), { n: f.minRealised!, d: 1n }) >= 0)
    )
      continue;
    const wr = winRate(rc, b.wallet);
    if (f.minWinRateBps !== null && (wr.rate === null || wr.rate.bps < f.minWinRateBps)) continue;
    matched++;
    if (rows.length < limit)
      rows.push({
        wallet: b.wallet,
        buyRank: i + 1,
        firstBuy: b,
        positions: positions.map((p) => ({
          quote: p.quote,
          realised: out(ratio(p.realised)),
          buys: p.buys,
          sells: p.sells,
          quantity: p.quantity,
        })),
        winRate: wr,
      });
  }
  return {
    token: t,
    filters: {
      earlyBuyers: f.earlyBuyers,
      minRealised: f.minRealised?.toString() ?? null,
      minWinRateBps: f.minWinRateBps,
    },
    rule: `candidates: the token's buyers in first-buy order (see buys.rule; the first ${FINDER_CANDIDATES}); earlyBuyers keeps the first N; minRealised keeps wallets with a (token, quote) position whose realised PnL ≥ the value (quote base units); minWinRateBps keeps wallets whose positions with a sell are profitable (realised > 0) at least that share of the time`,
    buys: { rule: SWAP_BUY_RULE, quotes: fb.quotes, swapsRead: fb.swapsRead, complete: fb.complete },
    candidates: buyers.length,
    candidatesComplete: fb.complete && fb.buys.length <= FINDER_CANDIDATES,
    matched,
    wallets: rows,
  };
}

export interface AlphaRow {
  rank: number;
  wallet: string;
  realised: Ratio;
  inputs: Array<{ token: string; days: Array<{ day: number; realised: Ratio }> }>;
}

/** The alpha formula, published with every answer. */
export const ALPHA_FORMULA =
  'realised = Σ over the tokens the wallet swapped against the quote in the window of Σ daily realised PnL of its (token, quote) position (weighted-average cost, exact, quote base units) for UTC days fromDay..toDay; ranked by realised desc, then wallet';

/**
 * Wallets ranked by realised PnL in `quote` over the `days` UTC days ending with the anchor
 * block's day. Candidates: every transaction origin of an indexed swap against the quote in the
 * window (realised PnL arises only on a sell, itself such a swap), found by {@link windowTraders};
 * each candidate's figure sums the wallets reader's daily realised PnL of the (token, quote)
 * positions it traded, and every daily figure summed is listed.
 */
export function alpha(
  rc: ReadCtx,
  o: { days: number; quote: string; limit: number },
): {
  formula: string;
  window: { days: number; fromDay: number; toDay: number; anchorTimestamp: number };
  quote: string;
  candidates: {
    rule: string;
    count: number;
    tokens: number;
    swapsScanned: number;
    bounds: { pools: number; swaps: number };
    complete: boolean;
  };
  wallets: AlphaRow[];
} {
  const at = rc.anchor.block;
  const ts = Number(
    (JSON.parse(rc.readers.chain.header(rc.view, at, at)) as { timestamp: string }).timestamp,
  );
  const toDay = Math.floor(ts / 86_400);
  const fromDay = toDay - o.days + 1;
  const quote = o.quote.toLowerCase();
  const wt = windowTraders(rc, quote, fromDay * 86_400);
  const rows: Array<Omit<AlphaRow, 'rank'> & { r: { n: bigint; d: bigint } }> = [];
  for (const [wallet, tokens] of wt.traders) {
    let r = { n: 0n, d: 1n };
    const inputs: AlphaRow['inputs'] = [];
    for (const token of [...tokens].sort()) {
      const days = collect<{ day: number; realised: { numerator: string; denominator: string } }>(
        (q, sink) => rc.readers.wallets.pnlDaily(rc.view, { wallet, token, quote, fromDay, toDay }, q, sink),
        at,
        o.days,
      ).rows;
      if (!days.length) continue;
      for (const d of days) r = addR(r, ratio(d.realised));
      inputs.push({ token, days: days.map((d) => ({ day: d.day, realised: out(ratio(d.realised)) })) });
    }
    if (inputs.length) rows.push({ wallet, realised: out(r), inputs, r });
  }
  rows.sort((a, b) => cmpR(b.r, a.r) || (a.wallet < b.wallet ? -1 : 1));
  return {
    formula: ALPHA_FORMULA,
    window: { days: o.days, fromDay, toDay, anchorTimestamp: ts },
    quote,
    candidates: {
      rule: `every transaction origin of an indexed swap (any protocol) against the quote with a timestamp in the window (from fromDay 00:00 UTC to the anchor), read through the quote's registered pools (at most ${TRADER_POOLS}) newest first (at most ${TRADER_SWAP_SCAN} swaps); wallets with no realised PnL in the window are not listed`,
      count: wt.traders.size,
      tokens: wt.tokens,
      swapsScanned: wt.swapsScanned,
      bounds: { pools: TRADER_POOLS, swaps: TRADER_SWAP_SCAN },
      complete: wt.complete,
    },
    wallets: rows.slice(0, o.limit).map(({ r: _r, ...x }, i) => ({ rank: i + 1, ...x })),
  };
}
