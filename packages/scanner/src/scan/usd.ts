/**
 * USD marks of held tokens, through the markets reader at the answer's anchor, as exact rationals
 * (never floats). The rule, once ({@link USD_MARK_RULE}):
 *
 * 1. A configured USD stablecoin is marked at par: 1 USD per whole unit, USD per base unit
 *    = 1 / 10^decimals (`usd_stablecoin_par`).
 * 2. Any other token is priced in a quote asset on its default venue (the indexer's venue rule,
 *    the same price as `/tokens/{token}/price?quote=…`): the configured quote assets are tried in
 *    priority order, and the first whose venue has a price and whose own USD mark is known wins.
 *    A stablecoin quote gives USD directly (`venue_price_in_usd_stablecoin`); another quote
 *    (wrapped or native currency) is marked through its own default venue against the
 *    highest-priority USD stablecoin with a price (`venue_price_via_quote`).
 * 3. Otherwise the token is unmarked, with the reason of the highest-priority quote tried and the
 *    outcome of every quote tried (`tried`): nothing is guessed.
 *
 * Every mark lists its legs: each venue (pool key, protocol), its price and units, so the mark can
 * be recomputed from the indexer's routes at the same anchor.
 */
import type { Rational } from '@chain-indexer/indexer/types';
import { type ApproxDecimal, approxDecimal } from '@chain-indexer/platform/numbers';
import type { ReadCtx } from '../index-port.js';

/** An exact rational as published: numerator and denominator decimal strings. */
export interface Fraction {
  numerator: string;
  denominator: string;
}

/** Why a decimal sibling in whole units is null. */
export type ApproxReason = 'decimals_unknown';

/**
 * A venue as people look it up: the 20-byte pool contract of a V2/V3 pool, the 32-byte pool id of
 * a V4 pool (with its PoolManager as `contract`), the curve contract of a launchpad, and the
 * indexer's pool key (the `/pools/{key}` path segment).
 */
export interface VenueIdentity {
  /** V2/V3 pool contract (20 bytes); null for V4 (see poolId) and launchpad curves (see contract). */
  pool: string | null;
  /** V4 pool id (32 bytes); null otherwise. */
  poolId: string | null;
  /** Pool contract (V2/V3), PoolManager (V4), curve (launchpad). */
  contract: string;
  protocol: string;
  /** The indexer's pool key (hex; `/index/v1/{chain}/pools/{poolKey}`). */
  poolKey: string;
}

/** The {@link VenueIdentity} of a pool row of the markets reader. */
export function venueIdentity(p: {
  key: string;
  protocol: string;
  contract: string;
  poolId: string | null;
}): VenueIdentity {
  const v2v3 = p.protocol === 'v2' || p.protocol === 'v3';
  return {
    pool: v2v3 ? p.contract : null,
    poolId: p.poolId,
    contract: p.contract,
    protocol: p.protocol,
    poolKey: p.key,
  };
}

/** One venue price a mark multiplies by. */
export interface MarkLeg extends VenueIdentity {
  /** The currency priced (0x0…0 = native). */
  base: string;
  /** The currency it is priced in. */
  quote: string;
  /** Quote base units per base base unit, exact, after the venue's last trade at the anchor. */
  price: Fraction;
  /** The price in whole units (quote per base), approximate; null when a decimals is unknown. */
  priceApprox: ApproxDecimal | null;
  priceApproxReason: ApproxReason | null;
}

export type MarkMethod = 'usd_stablecoin_par' | 'venue_price_in_usd_stablecoin' | 'venue_price_via_quote';

export type UnmarkedReason =
  | 'decimals_unknown'
  | 'no_pool_against_a_quote_asset'
  | 'venue_has_no_price_yet'
  | 'quote_has_no_usd_route';

/** A USD mark of one currency. */
export interface UsdMark {
  method: MarkMethod;
  /** USD per base unit of the token, exact. */
  usdPerBaseUnit: Fraction;
  /** USD per whole token (usdPerBaseUnit × 10^decimals), approximate; null when its decimals is unknown. */
  usdPerUnitApprox: ApproxDecimal | null;
  usdPerUnitApproxReason: ApproxReason | null;
  /** The stablecoin the mark ends in (1 whole unit = 1 USD by convention) and its decimals. */
  stablecoin: { address: string; decimals: number };
  legs: MarkLeg[];
}

/** The outcome of marking one currency. */
export type MarkOutcome =
  | { marked: true; mark: UsdMark }
  | { marked: false; reason: UnmarkedReason; tried: Array<{ quote: string; reason: UnmarkedReason }> };

export const USD_MARK_RULE =
  'configured USD stablecoins at par (1 USD per whole unit); any other token at the price of its default venue (the indexer venue rule, as /tokens/{token}/price?quote=…) in the first configured quote asset, in priority order, whose venue has a price and whose USD mark is known: a stablecoin quote directly, another quote (wrapped or native) through its own default venue against the highest-priority USD stablecoin with a price; exact rationals, never floats; otherwise unmarked with the reason';

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};
/** n/d in lowest terms (d > 0). */
export const reduce = (r: Rational): Rational => {
  const g = gcd(r.n, r.d) || 1n;
  return r.d < 0n ? { n: -r.n / g, d: -r.d / g } : { n: r.n / g, d: r.d / g };
};
export const mul = (a: Rational, b: Rational): Rational => reduce({ n: a.n * b.n, d: a.d * b.d });
export const addR = (a: Rational, b: Rational): Rational =>
  reduce({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
export const frac = (r: Rational): Fraction => {
  const x = reduce(r);
  return { numerator: x.n.toString(), denominator: x.d.toString() };
};

/** Decimals of the native currency (0x0…0) of every EVM chain served. */
const NATIVE_DECIMALS = 18;

/** USD per whole unit of a token with `decimals`, approximate, or null with its reason. */
function perUnit(
  usdPerBase: Rational,
  decimals: number | null,
): Pick<UsdMark, 'usdPerUnitApprox' | 'usdPerUnitApproxReason'> {
  return decimals === null
    ? { usdPerUnitApprox: null, usdPerUnitApproxReason: 'decimals_unknown' }
    : { usdPerUnitApprox: approxDecimal(usdPerBase.n, usdPerBase.d, decimals), usdPerUnitApproxReason: null };
}

/** The USD leg of a quote asset: USD per base unit, the stablecoin and the legs (none for a stablecoin). */
type QuoteUsd =
  | { ok: true; usd: Rational; stablecoin: { address: string; decimals: number }; legs: MarkLeg[] }
  | { ok: false; reason: UnmarkedReason };

/**
 * A marker for one answer: marks are memoised per currency and per quote, so a portfolio reads
 * each venue once. Reads through `rc.readers.markets` and `rc.readers.tokens` at `rc.anchor`.
 */
export function usdMarker(rc: ReadCtx): (token: string) => MarkOutcome {
  const at = rc.anchor.block;
  const stables = new Set(rc.config.usdStablecoins);
  const quotes = rc.config.quoteAssets;
  // Stablecoins by the quote priority, then any configured stablecoin not among the quote assets.
  const stableOrder = [
    ...quotes.filter((q) => stables.has(q)),
    ...rc.config.usdStablecoins.filter((s) => !quotes.includes(s)),
  ];
  const decimals = (c: string): number | null => {
    if (/^0x0{40}$/.test(c)) return NATIVE_DECIMALS;
    return rc.readers.tokens.find(rc.view, c, at)?.metadata?.decimals.value ?? null;
  };
  const leg = (
    base: string,
    quote: string,
  ): { leg: MarkLeg; price: Rational } | { reason: UnmarkedReason } => {
    const pp = rc.readers.markets.pairPrice(rc.view, base, quote, at);
    if (!pp) return { reason: 'no_pool_against_a_quote_asset' };
    if (!pp.price || pp.price.n <= 0n) return { reason: 'venue_has_no_price_yet' };
    const db = decimals(base);
    const dq = decimals(quote);
    const known = db !== null && dq !== null;
    return {
      price: pp.price,
      leg: {
        base,
        quote,
        ...venueIdentity(pp.venue.pool),
        price: frac(pp.price),
        priceApprox: known ? approxDecimal(pp.price.n, pp.price.d, db - dq) : null,
        priceApproxReason: known ? null : 'decimals_unknown',
      },
    };
  };
  const par = (s: string): QuoteUsd => {
    const d = decimals(s);
    if (d === null) return { ok: false, reason: 'decimals_unknown' };
    return {
      ok: true,
      usd: { n: 1n, d: 10n ** BigInt(d) },
      stablecoin: { address: s, decimals: d },
      legs: [],
    };
  };
  const quoteMemo = new Map<string, QuoteUsd>();
  const quoteUsd = (q: string): QuoteUsd => {
    let v = quoteMemo.get(q);
    if (v) return v;
    v = stables.has(q) ? par(q) : { ok: false, reason: 'quote_has_no_usd_route' };
    if (!stables.has(q))
      for (const s of stableOrder) {
        const p = par(s);
        if (!p.ok) continue;
        const l = leg(q, s);
        if (!('leg' in l)) continue;
        v = { ok: true, usd: mul(l.price, p.usd), stablecoin: p.stablecoin, legs: [l.leg] };
        break;
      }
    quoteMemo.set(q, v);
    return v;
  };
  const memo = new Map<string, MarkOutcome>();
  return (token) => {
    const t = token.toLowerCase();
    let out = memo.get(t);
    if (out) return out;
    if (stables.has(t)) {
      const p = par(t);
      out = p.ok
        ? {
            marked: true,
            mark: {
              method: 'usd_stablecoin_par',
              usdPerBaseUnit: frac(p.usd),
              ...perUnit(p.usd, p.stablecoin.decimals),
              stablecoin: p.stablecoin,
              legs: [],
            },
          }
        : { marked: false, reason: p.reason, tried: [] };
    } else out = viaQuotes(t);
    memo.set(t, out);
    return out;
  };

  function viaQuotes(t: string): MarkOutcome {
    const tried: Array<{ quote: string; reason: UnmarkedReason }> = [];
    for (const q of quotes) {
      if (q === t) continue;
      const l = leg(t, q);
      if (!('leg' in l)) {
        tried.push({ quote: q, reason: l.reason });
        continue;
      }
      const qu = quoteUsd(q);
      if (!qu.ok) {
        tried.push({
          quote: q,
          reason: qu.reason === 'decimals_unknown' ? 'decimals_unknown' : 'quote_has_no_usd_route',
        });
        continue;
      }
      return {
        marked: true,
        mark: {
          method: stables.has(q) ? 'venue_price_in_usd_stablecoin' : 'venue_price_via_quote',
          usdPerBaseUnit: frac(mul(l.price, qu.usd)),
          ...perUnit(mul(l.price, qu.usd), decimals(t)),
          stablecoin: qu.stablecoin,
          legs: [l.leg, ...qu.legs],
        },
      };
    }
    // The reason of the highest-priority quote that has a pool, else no pool at all.
    const first = tried.find((x) => x.reason !== 'no_pool_against_a_quote_asset');
    return { marked: false, reason: first?.reason ?? 'no_pool_against_a_quote_asset', tried };
  }
}
