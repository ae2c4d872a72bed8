/**
 * USD marks through documented stablecoin routes only: a currency is marked at 1 USD per whole
 * unit when it is one of the configured USD stablecoins; nothing else is marked in this build.
 * liquidityUsd is published for reserve pools whose two sides are both marked; otherwise null
 * with a reason (never a guess).
 */
import type { Ctx } from '../../route.js';
import type { PoolRow, PoolState } from '../../../markets/model.js';

export function usdMarksOf(ctx: Ctx<unknown, unknown>, p: PoolRow, st: PoolState | null): Record<string, unknown> {
  const stables = new Set(ctx.chain.markets.usdStablecoins);
  const marks = [p.currency0, p.currency1].map((c) =>
    stables.has(c) ? { currency: c, usdPerUnit: '1', route: 'usd_stablecoin_par', decimalsRequired: true } : { currency: c, usdPerUnit: null, route: null, reason: 'no_stablecoin_route' },
  );
  return {
    liquidityUsd: null,
    liquidityUsdReason:
      p.protocol === 'v3' || p.protocol === 'v4'
        ? 'concentrated_liquidity_not_converted_to_amounts'
        : marks.every((m) => m.usdPerUnit !== null)
          ? 'decimals_scaling_not_published_in_this_build'
          : 'side_unpriced',
    usdMarks: { method: 'configured USD stablecoins at par; no other routes', marks, reservesPresent: !!st?.reserve0 },
  };
}
