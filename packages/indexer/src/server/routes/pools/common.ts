/** Shared by the pool routes: addressing (address or V4 manager + poolId) and renderings of the reader's objects. */

import { approxDecimal } from '@chain-indexer/platform/decimal.js';
import {
  type PoolRef,
  type PoolRow,
  type PoolState,
  type PoolStats,
  provenanceOf,
  type Rational,
  type SwapRow,
  type UsdMark,
} from '../../../markets/index.js';
import { Address, PoolId } from '../../schemas.js';

/** Path parameters of the two addressing schemes. */
export const ByAddress = { address: Address };
export const ByV4 = { manager: Address, pool_id: PoolId };
export type Variant = 'address' | 'v4';

/** The pool a request names. */
export const refOf = (variant: Variant, params: Record<string, string>): PoolRef =>
  variant === 'v4' ? { manager: params.manager, poolId: params.pool_id } : { address: params.address };

/** `{priceNumerator, priceDenominator, approx}` (approx: the decimal sibling, schemas.ts `Approx`). */
export const ratJson = (x: Rational) => ({
  priceNumerator: x.n.toString(),
  priceDenominator: x.d.toString(),
  approx: approxDecimal(x.n, x.d),
});
/** `{numerator, denominator, approx}`. */
export const fracJson = (x: Rational) => ({
  numerator: x.n.toString(),
  denominator: x.d.toString(),
  approx: approxDecimal(x.n, x.d),
});
const parse = (s: string): Rational => {
  const i = s.indexOf('/');
  return { n: BigInt(s.slice(0, i)), d: BigInt(s.slice(i + 1)) };
};
/** A stored "n/d" price as `{priceNumerator, priceDenominator, approx}`. */
export const priceJson = (s: string) => ratJson(parse(s));
/** The price fields spread into a row: `{priceNumerator, priceDenominator, priceApprox}`. */
export const priceFieldsJson = (x: Rational) => ({
  priceNumerator: x.n.toString(),
  priceDenominator: x.d.toString(),
  priceApprox: approxDecimal(x.n, x.d),
});

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

export function swapJson(s: SwapRow): Record<string, unknown> {
  const { price, ...rest } = s;
  return { ...rest, ...priceFieldsJson(parse(price)) };
}

/** Window statistics at the anchor: volumes, counts and exact price change per window. */
export function statsJson(p: PoolRow, stats: PoolStats): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const w of stats.windows) {
    out[w.window] = {
      volume0: w.volume0,
      volume1: w.volume1,
      trades: w.trades,
      buys: w.buys,
      sells: w.sells,
      open: w.open ? ratJson(w.open) : null,
      close: w.close ? ratJson(w.close) : null,
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
