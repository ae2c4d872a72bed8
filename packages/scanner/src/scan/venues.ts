/**
 * A token's venues and liquidity for the token scan, through the markets reader at the answer's
 * anchor: for every quote the token trades against, the default venue (the indexer's venue rule,
 * with every candidate pool and its 24h figures), the venue's price, and the pair's
 * protocol-native liquidity (reserves summed over V2 pools and launchpad curves; concentrated V3/V4
 * pools listed with their active liquidity and price), the quote reserve marked in USD where a
 * mark exists (./usd.ts); and the token's own USD mark.
 */

import { type ApproxDecimal, approxDecimal } from '@chain-indexer/platform/numbers';
import type { ReadCtx } from '../index-port.js';
import {
  type ApproxReason,
  type Fraction,
  frac,
  type MarkOutcome,
  mul,
  usdMarker,
  type VenueIdentity,
  venueIdentity,
} from './usd.js';

/** Candidate pools listed per quote at most (the count is always given). */
export const VENUE_CANDIDATES = 20;

export interface TokenVenue {
  quote: string;
  venue: VenueIdentity;
  /** Quote base units per token base unit on the venue after its last trade; null before any. */
  price: Fraction | null;
  /** The price in whole units (quote per token), approximate; null before any trade or when a decimals is unknown. */
  priceApprox: ApproxDecimal | null;
  priceApproxReason: 'no_trade_yet' | ApproxReason | null;
  candidates: Array<{ pool: string; protocol: string; volume24hQuote: string; trades24h: number }>;
  candidatesCount: number;
  liquidity: {
    /** Σ reserves of the reserves pools (V2, curves), token and quote base units. */
    tokenReserve: string;
    quoteReserve: string;
    reservesPools: string[];
    /** quoteReserve in USD through the quote's mark; null when the quote is unmarked. */
    quoteReserveUsd: Fraction | null;
    /** quoteReserveUsd as a decimal, approximate; null when quoteReserveUsd is. */
    quoteReserveUsdApprox: ApproxDecimal | null;
    concentratedPools: Array<{
      pool: string;
      protocol: string;
      activeLiquidity: string | null;
      sqrtPriceX96: string | null;
    }>;
  };
}

export interface TokenVenues {
  evaluated: true;
  rule: string;
  quotes: TokenVenue[];
  /** The token's USD mark (see the holdings rule). */
  usd: MarkOutcome;
  /** Registered pools of the token considered (bounded membership) and whether more exist. */
  poolsConsidered: number;
  poolsTruncated: boolean;
}

/** Venues and liquidity of `token` at the anchor. @throws DomainError not_found when not indexed. */
export function tokenVenues(rc: ReadCtx, token: string): TokenVenues {
  const t = token.toLowerCase();
  const m = rc.readers.markets;
  const at = rc.anchor.block;
  const mark = usdMarker(rc);
  const v = m.tokenVenues(rc.view, t, undefined, at);
  const decimals = (c: string): number | null =>
    /^0x0{40}$/.test(c) ? 18 : (rc.readers.tokens.find(rc.view, c, at)?.metadata?.decimals.value ?? null);
  const dt = decimals(t);
  const quotes = v.quotes.map(({ quote, venue }): TokenVenue => {
    const price = m.tokenPrice(rc.view, t, quote, at).price;
    const liq = m.tokenLiquidity(rc.view, t, quote, at).liquidity;
    const qm = mark(quote);
    const usd = qm.marked
      ? mul(
          { n: liq.quoteReserve, d: 1n },
          { n: BigInt(qm.mark.usdPerBaseUnit.numerator), d: BigInt(qm.mark.usdPerBaseUnit.denominator) },
        )
      : null;
    const dq = decimals(quote);
    const usdShown = usd && liq.reservesPools.length ? usd : null;
    return {
      quote,
      venue: venueIdentity(venue.pool),
      price: price ? frac(price) : null,
      priceApprox: price && dt !== null && dq !== null ? approxDecimal(price.n, price.d, dt - dq) : null,
      priceApproxReason: !price ? 'no_trade_yet' : dt === null || dq === null ? 'decimals_unknown' : null,
      candidates: venue.candidates.slice(0, VENUE_CANDIDATES),
      candidatesCount: venue.candidates.length,
      liquidity: {
        tokenReserve: liq.tokenReserve.toString(),
        quoteReserve: liq.quoteReserve.toString(),
        reservesPools: liq.reservesPools,
        quoteReserveUsd: usdShown ? frac(usdShown) : null,
        quoteReserveUsdApprox: usdShown ? approxDecimal(usdShown.n, usdShown.d) : null,
        concentratedPools: liq.concentrated.map((c) => ({
          pool: c.pool.key,
          protocol: c.pool.protocol,
          activeLiquidity: c.state?.liquidity ?? null,
          sqrtPriceX96: c.state?.sqrtPriceX96 ?? null,
        })),
      },
    };
  });
  return {
    evaluated: true,
    rule: v.rule,
    quotes,
    usd: mark(t),
    poolsConsidered: v.membership.pools.length,
    poolsTruncated: v.membership.truncated,
  };
}
