/**
 * Token amounts behind a pool's liquidity and their USD value, exact (bigint rationals, no float).
 *
 * Basis of the amounts (stated on every response as `liquidityUsdBasis`):
 *  - `reserves`: V2 pairs and launchpad curves — the reserves of the last `Sync`/`CurveTrade`.
 *  - `in_range_virtual_reserves`: V3 and V4 — the virtual reserves of the active liquidity L at the
 *    current price, amount0 = L·2^96 / sqrtPriceX96 and amount1 = L·sqrtPriceX96 / 2^96 (base units,
 *    exact rationals). This is the constant-product pool that trades exactly like the concentrated
 *    pool near the current price; it is not the pool's token balance (out-of-range positions and
 *    uncollected fees are excluded, and V4 pools share one PoolManager balance).
 *
 * At the pool's own marginal price P (currency1 per currency0) both sides of either basis are worth
 * the same: reserve1 = reserve0·P for V2 by definition of P, and amount0·P = L·2^96/√P·√P²/2^192 =
 * amount1 for V3/V4. So a pool with one USD-marked side is worth twice that side.
 */
import type { PoolRow, PoolState } from '../schema/rows/markets.js';
import { add, type Rational, rational } from './rational.js';

export type LiquidityBasis = 'reserves' | 'in_range_virtual_reserves';

/** The pool's two liquidity amounts in base units (currency0, currency1), or the reason there are none. */
export interface LiquidityAmounts {
  basis: LiquidityBasis;
  amounts: [Rational, Rational] | null;
  /** `no_reserves_yet` (reserves pool before its first Sync) or `not_initialized` (V3/V4). */
  reason: string | null;
}

const Q96 = 1n << 96n;

/** Liquidity amounts of `p` in state `st` (see the module note for the basis). Pure. */
export function liquidityAmounts(p: PoolRow, st: PoolState | null): LiquidityAmounts {
  if (p.protocol === 'v2' || p.protocol === 'launchpad') {
    if (!st?.reserve0 || !st.reserve1) return { basis: 'reserves', amounts: null, reason: 'no_reserves_yet' };
    return {
      basis: 'reserves',
      amounts: [rational(BigInt(st.reserve0), 1n), rational(BigInt(st.reserve1), 1n)],
      reason: null,
    };
  }
  const sqrtP = st?.sqrtPriceX96 ? BigInt(st.sqrtPriceX96) : 0n;
  if (!st || sqrtP === 0n || st.liquidity === null)
    return { basis: 'in_range_virtual_reserves', amounts: null, reason: 'not_initialized' };
  const L = BigInt(st.liquidity);
  return {
    basis: 'in_range_virtual_reserves',
    amounts: [rational(L * Q96, sqrtP), rational(L * sqrtP, Q96)],
    reason: null,
  };
}

/** USD value of a pool's liquidity amounts; `value` null exactly when `reason` is set. */
export interface LiquidityUsd {
  /** USD (whole dollars), exact rational. */
  value: Rational | null;
  reason: string | null;
  method: 'both_sides_stablecoins_at_par' | 'stable_side_times_two_at_pool_marginal_price' | null;
}

/**
 * Values `amounts` with per-side USD marks: `decimals[i]` is the decimals of a configured USD
 * stablecoin on side i (1 whole unit = 1 USD), or null when that side has no stablecoin route.
 * Both sides marked: their sum; one side: twice it (module note); neither: `side_unpriced`.
 */
export function liquidityUsd(
  amounts: [Rational, Rational],
  decimals: [number | null, number | null],
): LiquidityUsd {
  const usd = amounts.map((a, i) => {
    const d = decimals[i];
    return d === null ? null : rational(a.n, a.d * 10n ** BigInt(d));
  });
  if (usd[0] && usd[1])
    return { value: add(usd[0], usd[1]), reason: null, method: 'both_sides_stablecoins_at_par' };
  const one = usd[0] ?? usd[1];
  if (one)
    return {
      value: rational(one.n * 2n, one.d),
      reason: null,
      method: 'stable_side_times_two_at_pool_marginal_price',
    };
  return { value: null, reason: 'side_unpriced', method: null };
}
