/**
 * USD marks through documented stablecoin routes only: a configured USD stablecoin is marked at
 * 1 USD per whole unit (base units / 10^decimals). liquidityUsd of a reserves pool:
 *  - both sides stablecoins: the sum of both reserves' USD values;
 *  - one side a stablecoin: twice that side's USD value (at the pool's own marginal price the
 *    other reserve is worth exactly the same, as both reserves are priced by the pool);
 *  - neither: null with reason `side_unpriced`.
 * Concentrated pools publish no liquidityUsd (L is not an amount): null with a reason. Values are
 * exact rationals in USD, never floats.
 */

import type { PoolRow, PoolState } from '../../../markets/model.js';
import { rational } from '../../../markets/rational.js';
import { tokenAt } from '../../../tokens/read.js';
import type { Ctx } from '../../route.js';

export function usdMarksOf(
  ctx: Ctx<unknown, unknown>,
  p: PoolRow,
  st: PoolState | null,
): Record<string, unknown> {
  const stables = new Set(ctx.chain.markets.usdStablecoins);
  const decimalsOf = (c: string) =>
    tokenAt(ctx.chain.store.rocks, c, ctx.anchor.number)?.metadata?.decimals.value ?? null;
  const marks = [p.currency0, p.currency1].map((c) => {
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
  let value: { n: bigint; d: bigint } | null = null;
  let reason: string | null = null;
  let method: string | null = null;
  if (p.protocol === 'v3' || p.protocol === 'v4') reason = 'concentrated_liquidity_is_not_an_amount';
  else if (!st?.reserve0 || !st.reserve1) reason = 'no_reserves_yet';
  else {
    const r = [BigInt(st.reserve0), BigInt(st.reserve1)];
    const v = marks.map((m, i) => (m.decimals !== null ? rational(r[i], 10n ** BigInt(m.decimals)) : null));
    if (v[0] && v[1]) {
      value = rational(v[0].n * v[1].d + v[1].n * v[0].d, v[0].d * v[1].d);
      method = 'both_sides_stablecoins_at_par';
    } else if (v[0] || v[1]) {
      const one = (v[0] ?? v[1])!;
      value = rational(one.n * 2n, one.d);
      method = 'stable_side_times_two_at_pool_marginal_price';
    } else reason = 'side_unpriced';
  }
  return {
    liquidityUsd: value ? { numerator: value.n.toString(), denominator: value.d.toString() } : null,
    liquidityUsdReason: reason,
    liquidityUsdMethod: method,
    usdMarks: { method: 'configured USD stablecoins at par (1 USD per whole unit); no other routes', marks },
  };
}
