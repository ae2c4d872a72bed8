/** Shared by the wallet routes. */

import { invert, type Rational, rational, ratJson, ratParse } from '../../../markets/rational.js';
import { stateAt } from '../../../markets/read.js';
import { chooseVenue, orient, tokenPools } from '../../../markets/venue.js';
import type { View } from '../../../storage/index.js';
import { tokenAt } from '../../../tokens/read.js';
import type { Position } from '../../../wallets/model.js';
import { requireProjection } from '../../projections.js';
import type { Ctx } from '../../route.js';

export const WALLETS = 'wallets';

export function walletOf(ctx: Ctx<{ address: string }, unknown>): string {
  requireProjection(ctx.chain, WALLETS);
  return ctx.params.address.toLowerCase();
}

/** Current price of `token` in `quote` (quote base units per token base unit) on the default venue. */
export function priceIn(
  view: View,
  token: string,
  quote: string,
  anchor: number,
  ts: number,
): { price: Rational; pool: string } | null {
  const pools = tokenPools(view, token, anchor).pools;
  const v = chooseVenue(view, pools, token, quote, { block: anchor, ts });
  if (!v) return null;
  const st = stateAt(view, v.pool.key, anchor);
  return st?.price ? { price: orient(v.pool, token, ratParse(st.price)), pool: v.pool.key } : null;
}

const floorOf = (r: Rational) => (r.n >= 0n ? r.n / r.d : -((-r.n + r.d - 1n) / r.d));

/** A position row with realised and unrealised components (exact rationals, quote base units). */
export function positionJson(view: View, p: Position, anchor: number, ts: number): Record<string, unknown> {
  const qty = BigInt(p.qty);
  const cost = ratParse(p.cost);
  const realised = ratParse(p.realised);
  const mark = qty > 0n ? priceIn(view, p.token, p.quote, anchor, ts) : null;
  const value = mark ? rational(mark.price.n * qty, mark.price.d) : null;
  const unrealised = value
    ? rational(value.n * cost.d - cost.n * value.d, value.d * cost.d)
    : qty === 0n
      ? rational(0n, 1n)
      : null;
  const t = tokenAt(view, p.token, anchor);
  return {
    token: p.token,
    symbol: t?.metadata?.symbol.value ?? null,
    quote: p.quote,
    quantity: p.qty,
    cost: { numerator: cost.n.toString(), denominator: cost.d.toString(), floor: floorOf(cost).toString() },
    averageCost: qty > 0n ? ratJson(rational(cost.n, cost.d * qty)) : null,
    realised: {
      numerator: realised.n.toString(),
      denominator: realised.d.toString(),
      floor: floorOf(realised).toString(),
    },
    unrealised: unrealised
      ? {
          numerator: unrealised.n.toString(),
          denominator: unrealised.d.toString(),
          floor: floorOf(unrealised).toString(),
        }
      : null,
    unrealisedReason: unrealised ? null : 'no_price_on_default_venue',
    markPrice: mark ? ratJson(mark.price) : null,
    markVenue: mark?.pool ?? null,
    buys: p.buys,
    sells: p.sells,
    boughtQuantity: p.boughtQty,
    soldQuantity: p.soldQty,
    unexplainedSold: p.unexplainedSold,
    abnormal: BigInt(p.unexplainedSold) > 0n,
    abnormalReason:
      BigInt(p.unexplainedSold) > 0n
        ? 'sold_more_than_bought_in_trades (inventory from transfers carries zero cost basis)'
        : null,
    firstBlock: p.firstBlock,
    lastBlock: p.lastBlock,
    units: 'quote base units; cost/realised/unrealised are exact rationals (floor given for convenience)',
  };
}

export { invert };
