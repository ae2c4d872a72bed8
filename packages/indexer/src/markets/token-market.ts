/**
 * A token's market as of one anchor: its bounded pool membership, the quote rule, the default
 * venue and the window statistics, resolved once per request. Window statistics of each pool are
 * computed at most once (a per-request memo), so the overview's quote rule, venue choice, stats
 * and pool listing share them.
 */
import { DomainError } from '../errors/index.js';
import type { PoolRow } from '../schema/rows/markets.js';
import type { TokenRow } from '../schema/rows/tokens.js';
import type { View } from '../storage/index.js';
import { invert, type Rational, ratParse } from './rational.js';
import { type At, stateAt } from './read.js';
import {
  chooseVenue,
  counterOf,
  orient,
  type QuoteHow,
  type QuoteResolution,
  resolveFirstPaintQuote,
  resolveQuote,
  type StatsOf,
  statsMemo,
  type TokenPools,
  tokenIsBase,
  tokenPools,
  type VenueChoice,
  volume24h,
} from './venue.js';
import { type DistinctCount, distinctTraders, type WindowName } from './windows.js';

/**
 * The token rows the markets reader reads (the tokens projection's registry, via the tokens
 * reader the composition root hands in): a row as of a block, and the exact supply from transfers.
 */
export interface TokenRows {
  /** The token row at `at`, or null when it was first seen after `at` (or never). */
  find(view: View, address: string, at: number): TokenRow | null;
  /** The token row at `at`. @throws DomainError not_found when it is not indexed at `at`. */
  token(view: View, address: string, at: number): TokenRow;
  /** Mints minus burns at the end of block `at`, token base units. */
  supply(view: View, token: string, at: number): bigint;
}

/**
 * A token as a market read names it: its address, or its row already read by the caller at the
 * same anchor (a query that reads the row once per request, src/queries).
 */
export type TokenRef = string | TokenRow;

/** The token, its pools and the read position, with the request's window-stats memo. */
export interface TokenMarket {
  token: TokenRow;
  address: string;
  pools: TokenPools;
  at: At;
  statsOf: StatsOf;
}

/**
 * Opens a token's market at `at` (the row is read unless `ref` is the row itself).
 * @throws DomainError not_found when the token is not indexed.
 */
export function openTokenMarket(view: View, tokens: TokenRows, ref: TokenRef, at: At): TokenMarket {
  const token = typeof ref === 'string' ? tokens.token(view, ref.toLowerCase(), at.block) : ref;
  const a = token.address.toLowerCase();
  return { token, address: a, pools: tokenPools(view, a, at.block), at, statsOf: statsMemo(view, at, a) };
}

/** A resolved quote. */
export interface Quote {
  quote: string;
  how: QuoteHow;
  candidates: string[];
}

/**
 * The quote rule's outcome as a quote or a refusal.
 * @throws DomainError not_found (no registered pool), quote_not_admitted (409, candidates),
 * bad_request (several quotes, candidates).
 */
export function quoteOrThrow(m: TokenMarket, r: QuoteResolution, named: string | undefined): Quote {
  if (r.ok) return r;
  if (r.kind === 'no_pools')
    throw new DomainError('not_found', `token ${m.address} has no registered pool at the anchored block`);
  if (r.kind === 'not_admitted')
    throw new DomainError(
      'quote_not_admitted',
      `${named} is not a quote of ${m.address}: no registered pool pairs them`,
      { candidates: r.candidates },
    );
  throw new DomainError('bad_request', `several quotes exist for ${m.address}: name one with quote=`, {
    candidates: r.candidates,
  });
}

/** The quote rule (quote-denominated routes). @throws as {@link quoteOrThrow}. */
export const quoteOf = (m: TokenMarket, named: string | undefined): Quote =>
  quoteOrThrow(m, resolveQuote(m.pools.pools, m.address, named), named);

/**
 * The first-paint quote rule (stats, overview, detail): `quote` null when several quotes exist and
 * none has USD-markable volume. @throws DomainError not_found, quote_not_admitted.
 */
export function firstPaintQuoteOf(
  view: View,
  m: TokenMarket,
  named: string | undefined,
  stables: ReadonlySet<string>,
): { quote: string | null; how: QuoteHow | 'ambiguous'; candidates: string[] } {
  const r = resolveFirstPaintQuote(
    m.pools.pools,
    m.address,
    named,
    stables,
    (p) => volume24h(view, p, m.address, m.at, m.statsOf).quote,
  );
  if (!r.ok && r.kind === 'ambiguous') return { quote: null, how: 'ambiguous', candidates: r.candidates };
  return quoteOrThrow(m, r, named);
}

/** The default venue of (token, quote). @throws DomainError not_found when no pool pairs them. */
export function venueOf(view: View, m: TokenMarket, quote: string): VenueChoice {
  const v = chooseVenue(view, m.pools.pools, m.address, quote, m.at, m.statsOf);
  if (!v) throw new DomainError('not_found', `no pool pairs ${m.address} with ${quote}`);
  return v;
}

/** The token's pools against `quote`. */
export const poolsWithQuote = (m: TokenMarket, quote: string): PoolRow[] =>
  m.pools.pools.filter((p) => counterOf(p, m.address) === quote);

/** The venue's price at the anchor, quote base units per token base unit; null before any trade. */
export function venuePrice(view: View, m: TokenMarket, v: VenueChoice): Rational | null {
  const st = stateAt(view, v.pool.key, m.at.block);
  return st?.price ? orient(v.pool, m.address, ratParse(st.price)) : null;
}

/** One window of token statistics on the default venue (oriented: base = token). */
export interface TokenWindow {
  /** Token and quote base units, both sides of each trade. */
  volumeBase: string;
  volumeQuote: string;
  trades: number;
  /** Buys: the trader received the token. */
  buys: number;
  sells: number;
  distinctTraders: DistinctCount;
  /** First and last price of the window, quote base units per token base unit. */
  open: Rational | null;
  close: Rational | null;
  /** (close − open) / open, exact; null without trades in the window. */
  priceChange: Rational | null;
  priceChangeReason: 'no_trades_in_window' | null;
}

/** (close − open) / open, exact. */
export const priceChange = (open: Rational, close: Rational): Rational => ({
  n: close.n * open.d - open.n * close.d,
  d: open.n * close.d,
});

/** Token statistics of every window on venue `v` (the windows rule, distinct traders bounded). */
export function tokenWindows(view: View, m: TokenMarket, v: VenueChoice): Record<WindowName, TokenWindow> {
  const p = v.pool;
  const base = tokenIsBase(p, m.address);
  const distinct = distinctTraders(view, p.key, m.at);
  const o = (r: Rational | null) => (r ? (base ? r : invert(r)) : null);
  const out = {} as Record<WindowName, TokenWindow>;
  for (const w of m.statsOf(p)) {
    const open = o(w.open);
    const close = o(w.close);
    out[w.window] = {
      volumeBase: base ? w.volume0 : w.volume1,
      volumeQuote: base ? w.volume1 : w.volume0,
      trades: w.trades,
      buys: base ? w.buys : w.sells,
      sells: base ? w.sells : w.buys,
      distinctTraders: distinct[w.window],
      open,
      close,
      priceChange: open && close ? priceChange(open, close) : null,
      priceChangeReason: open ? null : 'no_trades_in_window',
    };
  }
  return out;
}

/** The token's stats body: quote resolution, venue and windows. */
export interface TokenStatsBody {
  quote: string;
  quoteResolution: QuoteHow;
  candidates: string[];
  venue: VenueChoice;
  windows: Record<WindowName, TokenWindow>;
}

/**
 * Token statistics under the first-paint quote rule; `null` quote → the candidates.
 * @throws DomainError not_found, quote_not_admitted.
 */
export function tokenStatsOf(
  view: View,
  m: TokenMarket,
  named: string | undefined,
  stables: ReadonlySet<string>,
): TokenStatsBody | { quote: null; candidates: string[] } {
  const q = firstPaintQuoteOf(view, m, named, stables);
  if (q.quote === null) return { quote: null, candidates: q.candidates };
  const venue = venueOf(view, m, q.quote);
  return {
    quote: q.quote,
    quoteResolution: q.how as QuoteHow,
    candidates: q.candidates,
    venue,
    windows: tokenWindows(view, m, venue),
  };
}
