/**
 * Wallet lists: the KOL feed (recent trades of wallets labelled `kol`), the wallet finder (a
 * token's buyers matching published filters: early buyers, realised PnL, win rate) and the alpha
 * ranking (wallets ranked by realised PnL over a window). Each answer publishes its rule, its
 * candidate set and every input of its figures. Read through the wallets, tokens and addresses
 * readers at one anchor.
 */
import type { PositionView, TradeRow } from '../../wallets/index.js';
import type { ReadCtx } from '../index-port.js';
import { collect, type Share, shareOf } from './common.js';
import { type Buy, firstBuys } from './token.js';

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
  firstBuy: Buy;
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
  candidates: number;
  candidatesComplete: boolean;
  matched: number;
  wallets: FinderRow[];
} {
  const t = token.toLowerCase();
  rc.readers.tokens.token(rc.view, t, rc.anchor.block); // 404 when not indexed
  const fb = firstBuys(rc, t);
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
    rule: `candidates: the token's buyers in first-buy order (a buy: a transfer from a venue; first ${FINDER_CANDIDATES}); earlyBuyers keeps the first N; minRealised keeps wallets with a (token, quote) position whose realised PnL ≥ the value (quote base units); minWinRateBps keeps wallets whose positions with a sell are profitable (realised > 0) at least that share of the time`,
    candidates: buyers.length,
    candidatesComplete: fb.complete && fb.buys.length <= FINDER_CANDIDATES,
    matched,
    wallets: rows,
  };
}

/** Alpha candidates: recent launches read per launchpad, buyers per launch, positions per wallet. */
export const ALPHA_LAUNCHES = 10;
export const ALPHA_BUYERS_EACH = 50;
const ALPHA_POSITIONS = 100;

export interface AlphaRow {
  rank: number;
  wallet: string;
  realised: Ratio;
  inputs: Array<{ token: string; days: Array<{ day: number; realised: Ratio }> }>;
}

/**
 * Wallets ranked by realised PnL in `quote` over the `days` UTC days ending with the anchor
 * block's day, among the candidates (buyers of each launchpad's latest launches, and KOL-labelled
 * wallets). Every daily figure summed is listed.
 */
export function alpha(
  rc: ReadCtx,
  o: { days: number; quote: string; limit: number },
): {
  formula: string;
  window: { days: number; fromDay: number; toDay: number; anchorTimestamp: number };
  quote: string;
  candidates: { rule: string; count: number; launches: string[] };
  wallets: AlphaRow[];
} {
  const at = rc.anchor.block;
  const ts = Number(
    (JSON.parse(rc.readers.chain.header(rc.view, at, at)) as { timestamp: string }).timestamp,
  );
  const toDay = Math.floor(ts / 86_400);
  const fromDay = toDay - o.days + 1;
  const quote = o.quote.toLowerCase();
  const launches: string[] = [];
  for (const pad of rc.readers.tokens.launchpads())
    if (pad.deployments.length)
      for (const l of collect<{ token: string }>(
        (q, sink) => rc.readers.tokens.padLaunches(rc.view, pad.name, q, sink),
        at,
        ALPHA_LAUNCHES,
        'desc',
      ).rows)
        launches.push(l.token.toLowerCase());
  const cands = new Set<string>();
  for (const t of launches)
    for (const b of firstBuys(rc, t).buys.slice(0, ALPHA_BUYERS_EACH)) cands.add(b.wallet);
  for (const [w, ls] of rc.config.labelled) if (ls.some(isKol)) cands.add(w);
  const rows: Array<Omit<AlphaRow, 'rank'> & { r: { n: bigint; d: bigint } }> = [];
  for (const wallet of cands) {
    const ps = collect<PositionView>(
      (q, sink) =>
        void rc.readers.wallets.positions(
          rc.view,
          wallet,
          { minQuantity: null, sellout: false, hideAbnormal: false },
          q,
          sink,
        ),
      at,
      ALPHA_POSITIONS,
    ).rows.filter((p) => p.quote.toLowerCase() === quote);
    let r = { n: 0n, d: 1n };
    const inputs: AlphaRow['inputs'] = [];
    for (const p of ps) {
      const days = collect<{ day: number; realised: { numerator: string; denominator: string } }>(
        (q, sink) =>
          rc.readers.wallets.pnlDaily(rc.view, { wallet, token: p.token, quote, fromDay, toDay }, q, sink),
        at,
        o.days,
      ).rows;
      if (!days.length) continue;
      for (const d of days) r = addR(r, ratio(d.realised));
      inputs.push({
        token: p.token,
        days: days.map((d) => ({ day: d.day, realised: out(ratio(d.realised)) })),
      });
    }
    if (inputs.length) rows.push({ wallet, realised: out(r), inputs, r });
  }
  rows.sort((a, b) => cmpR(b.r, a.r) || (a.wallet < b.wallet ? -1 : 1));
  return {
    formula: `realised = Σ over the wallet's (token, quote) positions in the quote of Σ daily realised PnL (weighted-average cost, exact) for UTC days fromDay..toDay; ranked by realised desc, then wallet`,
    window: { days: o.days, fromDay, toDay, anchorTimestamp: ts },
    quote,
    candidates: {
      rule: `buyers (first ${ALPHA_BUYERS_EACH} each) of the latest ${ALPHA_LAUNCHES} launches of every registered launchpad, and wallets labelled kol; wallets with no realised PnL in the window are not listed`,
      count: cands.size,
      launches,
    },
    wallets: rows.slice(0, o.limit).map(({ r: _r, ...x }, i) => ({ rank: i + 1, ...x })),
  };
}
