/**
 * USD marks through documented stablecoin routes only: a configured USD stablecoin is marked at
 * 1 USD per whole unit (base units / 10^decimals). liquidityUsd values the pool's liquidity amounts
 * (src/markets/liquidity.ts), whose basis is stated on the response:
 *  - reserves pools (V2, curves): the reserves (`liquidityUsdBasis: "reserves"`);
 *  - V3/V4: the in-range virtual reserves of the active liquidity at the current price
 *    (`liquidityUsdBasis: "in_range_virtual_reserves"`), not the pool's token balance.
 * Both sides stablecoins: the sum of both sides' USD values; one side: twice that side's value (at
 * the pool's marginal price both sides are worth the same); neither: null with `side_unpriced`.
 * Values are exact rationals in USD, never floats.
 */

import { type LiquidityAmounts, liquidityAmounts, liquidityUsd } from '../../../markets/liquidity.js';
import type { PoolRow, PoolState } from '../../../markets/model.js';
import type { Rational } from '../../../markets/rational.js';
import { tokenAt } from '../../../tokens/read.js';
import type { Ctx } from '../../route.js';

/** USD mark of one currency: decimals of a configured stablecoin, or null with the reason. */
export interface UsdMark {
  currency: string;
  usdPerUnit: '1' | null;
  route: 'usd_stablecoin_par' | null;
  decimals: number | null;
  reason: 'decimals_unknown' | 'no_stablecoin_route' | null;
}

/** Marks of `currencies` at block `anchor` (token decimals from the tokens projection). */
export function usdMarks(ctx: Ctx<unknown, unknown>, currencies: string[], anchor: number): UsdMark[] {
  const stables = new Set(ctx.chain.markets.usdStablecoins);
  return currencies.map((c) => {
    const d = stables.has(c) ? (tokenAt(ctx.view, c, anchor)?.metadata?.decimals.value ?? null) : null;
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
  usdMethod: string | null;
  marks: UsdMark[];
}

/** Computes {@link PoolLiquidityUsd} for pool `p` in state `st` at block `anchor`. */
export function poolLiquidityUsd(
  ctx: Ctx<unknown, unknown>,
  p: PoolRow,
  st: PoolState | null,
  anchor: number,
): PoolLiquidityUsd {
  const marks = usdMarks(ctx, [p.currency0, p.currency1], anchor);
  const la = liquidityAmounts(p, st);
  if (!la.amounts) return { ...la, usd: null, usdReason: la.reason, usdMethod: null, marks };
  const v = liquidityUsd(la.amounts, [marks[0].decimals, marks[1].decimals]);
  return { ...la, usd: v.value, usdReason: v.reason, usdMethod: v.method, marks };
}

const ratFields = (x: Rational) => ({ numerator: x.n.toString(), denominator: x.d.toString() });

/**
 * Response fields `liquidityUsd` ({numerator, denominator} USD, or null), `liquidityUsdReason`,
 * `liquidityUsdMethod`, `liquidityUsdBasis`, `liquidityUsdAmounts` (the two valued amounts, base
 * units of currency0/currency1 as exact rationals) and `usdMarks` provenance.
 */
export function usdMarksOf(
  ctx: Ctx<unknown, unknown>,
  p: PoolRow,
  st: PoolState | null,
  anchor = ctx.anchor.number,
): Record<string, unknown> {
  const l = poolLiquidityUsd(ctx, p, st, anchor);
  return {
    liquidityUsd: l.usd ? ratFields(l.usd) : null,
    liquidityUsdReason: l.usdReason,
    liquidityUsdMethod: l.usdMethod,
    liquidityUsdBasis: l.basis,
    liquidityUsdAmounts: l.amounts
      ? {
          amount0: ratFields(l.amounts[0]),
          amount1: ratFields(l.amounts[1]),
          unit: 'base units of currency0 (amount0) and currency1 (amount1), exact rationals',
        }
      : null,
    usdMarks: {
      method: 'configured USD stablecoins at par (1 USD per whole unit); no other routes',
      marks: l.marks,
    },
  };
}
