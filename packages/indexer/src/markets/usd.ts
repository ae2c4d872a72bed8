/**
 * USD marks through documented stablecoin routes only: a configured USD stablecoin is marked at
 * 1 USD per whole unit (base units / 10^decimals). A pool's liquidityUsd values its liquidity
 * amounts (./liquidity.ts), whose basis is stated on responses: `reserves` (V2, curves) or
 * `in_range_virtual_reserves` (V3/V4). Both sides stablecoins: the sum; one side: twice that side;
 * neither: null with `side_unpriced`. Exact rationals in USD, never floats.
 */

import type { PoolRow, PoolState } from '../schema/rows/markets.js';
import { type LiquidityAmounts, liquidityAmounts, liquidityUsd } from './liquidity.js';
import type { Rational } from './rational.js';

/** USD mark of one currency: decimals of a configured stablecoin, or null with the reason. */
export interface UsdMark {
  currency: string;
  usdPerUnit: '1' | null;
  route: 'usd_stablecoin_par' | null;
  decimals: number | null;
  reason: 'decimals_unknown' | 'no_stablecoin_route' | null;
}

/** Token decimals at the read's anchor (null when unknown). */
export type DecimalsOf = (currency: string) => number | null;

/** Marks of `currencies`: configured stablecoins with known decimals are marked at par. */
export function usdMarks(
  stables: ReadonlySet<string>,
  decimalsOf: DecimalsOf,
  currencies: string[],
): UsdMark[] {
  return currencies.map((c) => {
    const d = stables.has(c) ? decimalsOf(c) : null;
    return stables.has(c) && d !== null
      ? { currency: c, usdPerUnit: '1', route: 'usd_stablecoin_par', decimals: d, reason: null }
      : {
          currency: c,
          usdPerUnit: null,
          route: null,
          decimals: null,
          reason: stables.has(c) ? 'decimals_unknown' : 'no_stablecoin_route',
        };
  });
}

/** A pool's liquidity amounts, their USD value (exact, USD) and the marks used. */
export interface PoolLiquidityUsd extends LiquidityAmounts {
  usd: Rational | null;
  usdReason: string | null;
  usdMethod: 'both_sides_stablecoins_at_par' | 'stable_side_times_two_at_pool_marginal_price' | null;
  marks: UsdMark[];
}

/** Computes {@link PoolLiquidityUsd} for pool `p` in state `st`. Pure. */
export function poolLiquidityUsd(
  stables: ReadonlySet<string>,
  decimalsOf: DecimalsOf,
  p: PoolRow,
  st: PoolState | null,
): PoolLiquidityUsd {
  const marks = usdMarks(stables, decimalsOf, [p.currency0, p.currency1]);
  const la = liquidityAmounts(p, st);
  if (!la.amounts) return { ...la, usd: null, usdReason: la.reason, usdMethod: null, marks };
  const v = liquidityUsd(la.amounts, [marks[0].decimals, marks[1].decimals]);
  return { ...la, usd: v.value, usdReason: v.reason, usdMethod: v.method, marks };
}
