/**
 * Quote and default-venue rules for token-denominated market routes (R8: one venue, never blend
 * quotes). Each rule exists here once.
 *
 * Quote rule: `quote` named → admitted when the token has at least one registered pool against it
 * (else 409 quote_not_admitted); absent → the single counter currency when there is exactly one;
 * several → 400 listing the candidates. The first-paint routes (stats, overview, the detail's
 * stats block) extend the last step, and only it: with several candidates, the configured USD
 * stablecoin quote with the largest positive 24h quote-side volume over its pools; none → the
 * candidates are published (stats answers 400 quote_ambiguous, overview null market fields).
 *
 * Default-venue rule (named on every response): among the token's pools against the quote, the
 * pool with the largest trailing-24h quote-side volume at the anchor; ties by more trades in 24h,
 * then earliest creation coordinate, then pool key.
 *
 * Orientation: prices are quote base units per token base unit; a pool listing the token as
 * currency1 is inverted (and its highs become lows).
 */

import type { CandleRow, PoolRow } from '../schema/rows/markets.js';
import { POOL, POOL_BY_CURRENCY } from '../schema/tables/markets.js';
import type { View } from '../storage/index.js';
import { invert, type Rational, ratParse } from './rational.js';
import type { At } from './read.js';
import { dayWindow, idleDay, tradedInDay, type WindowStats, windowStats } from './windows.js';

/** Pools of one token considered at most (Limits: token pool membership). */
export const MAX_TOKEN_POOLS = 2048;
/** Membership index rows read per multi-get. */
const MEMBERSHIP_CHUNK = 512;

type Hex = `0x${string}`;

export interface TokenPools {
  pools: PoolRow[];
  /** More pools exist than the membership bound. */
  truncated: boolean;
  nextPoolKey: string | null;
}

/** The token's registered pools at `anchor`, in pool-key order, at most {@link MAX_TOKEN_POOLS}. */
export function tokenPools(view: View, token: string, anchor: number): TokenPools {
  const pools: PoolRow[] = [];
  const t = token as Hex;
  let after: Hex | null = null;
  for (;;) {
    const keys: Array<[Hex]> = view
      .rows(POOL_BY_CURRENCY, { prefix: [t], ...(after ? { gt: [t, after] } : {}), limit: MEMBERSHIP_CHUNK })
      .map((r) => [r.key[1]] as [Hex]);
    // One native multi-get per chunk of members (a token may have hundreds of pools).
    const rows = view.getMany(POOL, keys);
    for (let i = 0; i < rows.length; i++) {
      const p = rows[i];
      if (!p || p.created.block > anchor) continue;
      if (pools.length >= MAX_TOKEN_POOLS) return { pools, truncated: true, nextPoolKey: keys[i][0] };
      pools.push(p);
    }
    if (keys.length < MEMBERSHIP_CHUNK) return { pools, truncated: false, nextPoolKey: null };
    after = keys[keys.length - 1][0];
  }
}

export const counterOf = (p: PoolRow, token: string) => (p.currency0 === token ? p.currency1 : p.currency0);
export const tokenIsBase = (p: PoolRow, token: string) => p.currency0 === token;

/** Orients a pool price (currency1 per currency0) as quote per token. */
export function orient(p: PoolRow, token: string, price: Rational): Rational {
  return tokenIsBase(p, token) ? price : invert(price);
}

/** Orients a candle: prices quote per token (high/low swap when inverted), volumes token/quote. */
export function orientCandle(p: PoolRow, token: string, c: CandleRow) {
  const base = tokenIsBase(p, token);
  const o = (s: string) => (base ? ratParse(s) : invert(ratParse(s)));
  return {
    t: c.t,
    open: o(c.open),
    high: base ? o(c.high) : o(c.low),
    low: base ? o(c.low) : o(c.high),
    close: o(c.close),
    volumeBase: base ? c.volume0 : c.volume1,
    volumeQuote: base ? c.volume1 : c.volume0,
    trades: c.trades,
    // A pool "buy" is the trader receiving currency0: for the token it is a buy only when the token is currency0.
    buys: base ? c.buys : c.sells,
    sells: base ? c.sells : c.buys,
    first: c.first,
    last: c.last,
  };
}

/** How the quote was resolved. */
export type QuoteHow = 'named' | 'only_counter_currency' | 'largest_usd_markable_volume';

export type QuoteResolution =
  | { ok: true; quote: string; how: QuoteHow; candidates: string[] }
  | { ok: false; kind: 'not_admitted' | 'ambiguous' | 'no_pools'; candidates: string[] };

/** Counter currencies of the token's pools (the quote candidates), ascending. */
export const quoteCandidates = (pools: PoolRow[], token: string): string[] =>
  [...new Set(pools.map((p) => counterOf(p, token)))].sort();

/** The quote rule (module note). */
export function resolveQuote(pools: PoolRow[], token: string, named: string | undefined): QuoteResolution {
  const candidates = quoteCandidates(pools, token);
  if (!pools.length) return { ok: false, kind: 'no_pools', candidates };
  if (named) {
    const q = named.toLowerCase();
    return candidates.includes(q)
      ? { ok: true, quote: q, how: 'named', candidates }
      : { ok: false, kind: 'not_admitted', candidates };
  }
  if (candidates.length === 1)
    return { ok: true, quote: candidates[0], how: 'only_counter_currency', candidates };
  return { ok: false, kind: 'ambiguous', candidates };
}

/**
 * The first-paint quote rule (module note): the quote rule, whose ambiguity falls back to the USD
 * stablecoin quote with the largest positive 24h quote-side volume (ties: the lower address).
 */
export function resolveFirstPaintQuote(
  pools: PoolRow[],
  token: string,
  named: string | undefined,
  usdStablecoins: ReadonlySet<string>,
  quoteVolume24h: (p: PoolRow) => bigint,
): QuoteResolution {
  const r = resolveQuote(pools, token, named);
  if (r.ok || r.kind !== 'ambiguous') return r;
  let best: { q: string; v: bigint } | null = null;
  for (const c of r.candidates.filter((x) => usdStablecoins.has(x))) {
    const vol = pools.filter((p) => counterOf(p, token) === c).reduce((a, p) => a + quoteVolume24h(p), 0n);
    if (vol > 0n && (!best || vol > best.v)) best = { q: c, v: vol };
  }
  return best ? { ok: true, quote: best.q, how: 'largest_usd_markable_volume', candidates: r.candidates } : r;
}

/**
 * Window statistics of a pool, computed at most once per request (see {@link statsMemo}); `day`
 * reads the 24h window alone (venue choice and rankings over every member pool).
 */
export type StatsOf = ((p: PoolRow) => WindowStats[]) & { day(p: PoolRow): WindowStats };

/**
 * A per-request memo of {@link windowStats} at `at`: each pool's windows are read once. With
 * `token`, the 24h windows of the token's pools idle in the window are answered without a read
 * (the token's pools by last swap, one range read for all of them).
 */
export function statsMemo(view: View, at: At, token?: string): StatsOf {
  const all = new Map<string, WindowStats[]>();
  const days = new Map<string, WindowStats>();
  let traded: Set<string> | null | undefined;
  const of = (p: PoolRow) => {
    let w = all.get(p.key);
    if (!w) {
      w = windowStats(view, p.key, at);
      all.set(p.key, w);
    }
    return w;
  };
  return Object.assign(of, {
    day(p: PoolRow) {
      const full = all.get(p.key);
      if (full) return full[full.length - 1];
      let d = days.get(p.key);
      if (!d) {
        if (token && traded === undefined) traded = tradedInDay(view, token, at);
        if (traded && !traded.has(p.key)) return idleDay();
        d = dayWindow(view, p.key, at);
        days.set(p.key, d);
      }
      return d;
    },
  });
}

export interface VenueChoice {
  pool: PoolRow;
  rule: string;
  /** Every candidate with its 24h quote-side volume and trades. */
  candidates: Array<{ pool: string; protocol: string; volume24hQuote: string; trades24h: number }>;
}

export const VENUE_RULE =
  'largest trailing-24h quote-side volume at the anchor; ties: more 24h trades, then earliest creation coordinate, then pool key';

/** 24h quote-side volume and trades of a pool for `token`/`quote`. */
export function volume24h(
  view: View,
  p: PoolRow,
  token: string,
  at: At,
  statsOf: StatsOf = statsMemo(view, at),
): { quote: bigint; trades: number } {
  const w = statsOf.day(p);
  return { quote: BigInt(tokenIsBase(p, token) ? w.volume1 : w.volume0), trades: w.trades };
}

export function chooseVenue(
  view: View,
  pools: PoolRow[],
  token: string,
  quote: string,
  at: At,
  statsOf: StatsOf = statsMemo(view, at),
): VenueChoice | null {
  const cands = pools
    .filter((p) => counterOf(p, token) === quote)
    .map((p) => ({ p, v: volume24h(view, p, token, at, statsOf) }));
  if (!cands.length) return null;
  cands.sort(
    (a, b) =>
      (b.v.quote > a.v.quote ? 1 : b.v.quote < a.v.quote ? -1 : 0) ||
      b.v.trades - a.v.trades ||
      a.p.created.block - b.p.created.block ||
      a.p.created.logIndex! - b.p.created.logIndex! ||
      (a.p.key < b.p.key ? -1 : 1),
  );
  return {
    pool: cands[0].p,
    rule: VENUE_RULE,
    candidates: cands.map((c) => ({
      pool: c.p.key,
      protocol: c.p.protocol,
      volume24hQuote: c.v.quote.toString(),
      trades24h: c.v.trades,
    })),
  };
}
