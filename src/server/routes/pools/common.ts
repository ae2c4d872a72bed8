/** Shared by the pool routes: pool resolution (address or V4 manager + poolId), renderings, guard. */

import type { CandleRow, PoolRow, PoolState, SwapRow } from '../../../markets/model.js';
import { FRAMES, type Frame } from '../../../markets/model.js';
import { type Rational, ratJson, ratParse, ratStr } from '../../../markets/rational.js';
import { type At, candleAtBlock, poolAt, stateAt, windowStats } from '../../../markets/read.js';
import { poolKeyOf } from '../../../markets/tables.js';
import { blockTimestamp } from '../../../storage/headers.js';
import { KeyBuilder } from '../../../storage/keys.js';
import { ApiError } from '../../errors.js';
import { requireProjection } from '../../projections.js';
import type { Ctx } from '../../route.js';
import { Address, PoolId } from '../../schemas.js';

export const MARKETS = 'markets';

/** Path parameters of the two addressing schemes. */
export const ByAddress = { address: Address };
export const ByV4 = { manager: Address, pool_id: PoolId };
export type Variant = 'address' | 'v4';

/** Resolves the pool of the request at `anchor`. @throws ApiError projection_unavailable, not_found. */
export function resolvePool(
  ctx: Ctx<Record<string, string>, unknown>,
  variant: Variant,
  anchor = ctx.anchor.number,
): PoolRow {
  requireProjection(ctx.chain, MARKETS);
  const rocks = ctx.chain.store.rocks;
  if (variant === 'v4') {
    const key = poolKeyOf('v4', ctx.params.manager, ctx.params.pool_id);
    const p = poolAt(ctx.view, key, anchor);
    if (!p)
      throw new ApiError(
        'not_found',
        `no V4 pool ${ctx.params.pool_id} on manager ${ctx.params.manager} at the anchored block`,
      );
    return p;
  }
  const p = poolAt(ctx.view, poolKeyOf('v2', ctx.params.address), anchor);
  if (!p) {
    throw new ApiError(
      'not_found',
      `no V2/V3 pool at ${ctx.params.address} at the anchored block (V4 pools are addressed as /pools/v4/{manager}/{pool_id}; launchpad curves by key from /pools/search)`,
    );
  }
  return p;
}

/** Timestamp of block n (unix seconds). */
export function timestampOf(ctx: Ctx<unknown, unknown>, n: number): number {
  return blockTimestamp(ctx.chain.store.rocks, n) ?? 0;
}

export function poolIdentity(p: PoolRow): Record<string, unknown> {
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
    // How the pool was found: its factory event, or first sight after START_BLOCK (verified against
    // its factory, state seeded by eth_call at the block before). Rows older than provenance: factory event.
    provenance: p.provenance ?? {
      discovery: 'factory_event',
      verifiedAtBlock: p.created.block,
      seededAtBlock: null,
      creation: p.created,
    },
  };
}

const rat = (s: string | null) => (s ? ratJson(ratParse(s)) : null);

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
  return { ...rest, ...ratJson(ratParse(price)) };
}

/** Window statistics at the anchor: volumes, counts and exact price change per window. */
export function statsJson(ctx: Ctx<unknown, unknown>, p: PoolRow, at: At): Record<string, unknown> {
  const ws = windowStats(ctx.view, p.key, at);
  const out: Record<string, unknown> = {};
  for (const w of ws) {
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
    };
  }
  return {
    asOfTimestamp: at.ts,
    windowAlignment: 'windows cover 1-minute buckets (t − window, t]',
    base: p.currency0,
    quote: p.currency1,
    volumeUnit: 'base units of currency0 (volume0) and currency1 (volume1), both sides of each trade',
    windows: out,
  };
}

/** The candle of one bucket exactly as of block `anchor` (R2), see candleAtBlock. */
export function candleAsOf(
  ctx: Ctx<unknown, unknown>,
  p: PoolRow,
  c: CandleRow,
  frame: Frame,
  anchor: number,
): CandleRow | null {
  return candleAtBlock(ctx.view, p.key, c, FRAMES[frame], anchor);
}

export function candleJson(c: CandleRow): Record<string, unknown> {
  return {
    t: c.t,
    open: ratJson(ratParse(c.open)),
    high: ratJson(ratParse(c.high)),
    low: ratJson(ratParse(c.low)),
    close: ratJson(ratParse(c.close)),
    ...ratJson(ratParse(c.close)),
    volumeBase: c.volume0,
    volumeQuote: c.volume1,
    trades: c.trades,
    buys: c.buys,
    sells: c.sells,
  };
}

export { KeyBuilder, rat, stateAt, ratStr, type Rational };
