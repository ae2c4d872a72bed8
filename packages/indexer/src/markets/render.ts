/**
 * Renderings of the markets domain's objects, each written once: pools (identity, liquidity,
 * window stats, USD liquidity), swaps and trades, the token's venue, windows, stats body and pool
 * membership. Exact rationals render as decimal-string numerator/denominator pairs.
 */

import { approxDecimal } from '@chain-indexer/platform/numbers';
import type { PoolRow, PoolState, SwapRow } from '../schema/rows/markets.js';
import { priceFieldsJson, type Rational, ratJson, ratJsonOrNull, ratParse } from './rational.js';
import { provenanceOf } from './read.js';
import type { PoolStats } from './reader.js';
import type { TokenTrade } from './swaps.js';
import type { TokenWindow } from './token-market.js';
import type { UsdMark } from './usd.js';
import type { VenueChoice } from './venue.js';
import type { WindowName } from './windows.js';

/** `{numerator, denominator, approx}` (approx: the rounded decimal sibling, schemas.ts `Approx`). */
export const fracJson = (x: Rational) => ({
  numerator: x.n.toString(),
  denominator: x.d.toString(),
  approx: approxDecimal(x.n, x.d),
});
/** A stored "n/d" price as `{priceNumerator, priceDenominator, approx}`. */
export const priceJson = (s: string) => ratJson(ratParse(s));

/** The pool identity object of the pool routes. */
export function poolIdentity(p: PoolRow) {
  return {
    key: p.key,
    protocol: p.protocol,
    address: p.protocol === 'v2' || p.protocol === 'v3' ? p.contract : null,
    contract: p.contract,
    poolId: p.poolId,
    currency0: p.currency0,
    currency1: p.currency1,
    fee: p.fee,
    feeUnit: 'hundredths of a basis point',
    tickSpacing: p.tickSpacing,
    hooks: p.hooks,
    factory: p.factory,
    created: p.created,
    createdAt: p.createdAt,
    provenance: provenanceOf(p),
  };
}

/** Exact protocol-native liquidity: V2/curve reserves, or concentrated depth at the current tick. */
export function liquidityJson(p: PoolRow, st: PoolState | null): Record<string, unknown> {
  if (p.protocol === 'v2' || p.protocol === 'launchpad') {
    return {
      kind: 'reserves',
      reserve0: st?.reserve0 ?? null,
      reserve1: st?.reserve1 ?? null,
      reason: st ? null : 'no_sync_yet',
    };
  }
  return {
    kind: 'concentrated',
    sqrtPriceX96: st?.sqrtPriceX96 ?? null,
    sqrtPriceX96Unit: 'Q64.96',
    tick: st?.tick ?? null,
    liquidity: st?.liquidity ?? null,
    liquidityNote: 'active liquidity at the current tick (L), not a token amount',
    reason: st ? null : 'not_initialized',
  };
}

/** A swap row with its price as `{priceNumerator, priceDenominator, priceApprox}`. */
export function swapJson(s: SwapRow): Record<string, unknown> {
  const { price, ...rest } = s;
  return { ...rest, ...priceFieldsJson(ratParse(price)) };
}

/** Window statistics at the anchor: volumes, counts and exact price change per window. */
export function poolStatsJson(p: PoolRow, stats: PoolStats): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const w of stats.windows) {
    out[w.window] = {
      volume0: w.volume0,
      volume1: w.volume1,
      trades: w.trades,
      buys: w.buys,
      sells: w.sells,
      open: ratJsonOrNull(w.open),
      close: ratJsonOrNull(w.close),
      priceChange:
        w.open && w.close
          ? ratJson({ n: w.close.n * w.open.d - w.open.n * w.close.d, d: w.open.n * w.close.d })
          : null,
      priceChangeReason: w.open ? null : 'no_trades_in_window',
      priceChangeUnit: '(close − open) / open, exact rational',
      ...(stats.distinctTraders ? { distinctTraders: stats.distinctTraders[w.window] } : {}),
    };
  }
  return {
    asOfTimestamp: stats.asOfTimestamp,
    windowAlignment: 'windows cover 1-minute buckets (t − window, t]',
    base: p.currency0,
    quote: p.currency1,
    volumeUnit: 'base units of currency0 (volume0) and currency1 (volume1), both sides of each trade',
    windows: out,
  };
}

/** The liquidityUsd fields of a pool liquidity answer. */
export function usdJson(l: {
  usd: Rational | null;
  usdReason: string | null;
  usdMethod: string | null;
  basis: string;
  amounts: [Rational, Rational] | null;
  marks: UsdMark[];
}): Record<string, unknown> {
  return {
    liquidityUsd: l.usd ? fracJson(l.usd) : null,
    liquidityUsdReason: l.usdReason,
    liquidityUsdMethod: l.usdMethod,
    liquidityUsdBasis: l.basis,
    liquidityUsdAmounts: l.amounts
      ? {
          amount0: fracJson(l.amounts[0]),
          amount1: fracJson(l.amounts[1]),
          unit: 'base units of currency0 (amount0) and currency1 (amount1), exact rationals',
        }
      : null,
    usdMarks: {
      method: 'configured USD stablecoins at par (1 USD per whole unit); no other routes',
      marks: l.marks,
    },
  };
}

/** The venue a figure was read on, with its rule. */
export const venueJson = (v: VenueChoice) => ({
  pool: v.pool.key,
  protocol: v.pool.protocol,
  contract: v.pool.contract,
  poolId: v.pool.poolId,
  rule: v.rule,
});

/** Membership fields of the Token resource (bounded at 2,048 pools). */
export const membershipJson = (m: { pools: PoolRow[]; truncated: boolean }) => ({
  poolsConsidered: m.pools.length,
  poolsTruncated: m.truncated,
  poolsFanoutExceeded: m.truncated,
  poolFanoutExceeded: m.truncated,
});

/** The windows of the token stats body. */
export function windowsJson(ws: Record<WindowName, TokenWindow>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [w, x] of Object.entries(ws)) {
    out[w] = {
      volumeBase: x.volumeBase,
      volumeQuote: x.volumeQuote,
      trades: x.trades,
      buys: x.buys,
      sells: x.sells,
      distinctTraders: x.distinctTraders,
      open: ratJsonOrNull(x.open),
      close: ratJsonOrNull(x.close),
      priceChange: ratJsonOrNull(x.priceChange),
      priceChangeReason: x.priceChangeReason,
    };
  }
  return out;
}

/** The /tokens/{address}/stats body. */
export const statsBodyJson = (s: {
  token: string;
  quote: string;
  quoteResolution: string;
  candidates: string[];
  venue: VenueChoice;
  windows: Record<WindowName, TokenWindow>;
}) => ({
  token: s.token,
  quote: s.quote,
  quoteResolution: s.quoteResolution,
  candidates: s.candidates,
  venue: venueJson(s.venue),
  windows: windowsJson(s.windows),
  windowAlignment: 'windows cover 1-minute buckets (t − window, t]',
  distinctTradersBasis: 'transaction origin',
});

/** A token trade row with its price as `{priceNumerator, priceDenominator, priceApprox}`. */
export const tradeJson = (t: TokenTrade): string => {
  const { price, ...rest } = t;
  return JSON.stringify({ ...rest, ...priceFieldsJson(price) });
};
