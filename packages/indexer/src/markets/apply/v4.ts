/**
 * Uniswap V4 PoolManager: Initialize (registration with hooks), Swap, ModifyLiquidity.
 */
import type { EventDelta } from '../../schema/delta.js';
import { poolKeyOf } from '../../schema/tables/markets.js';
import { fromSqrtPriceX96, ratStr } from '../rational.js';
import type { BlockCtx } from './block.js';
import type { FamilyConfig } from './factories.js';

const s = (v: unknown) => String(v);

/** A PoolManager event of a configured manager (swapper deltas negated into pool perspective). */
export function onV4Manager(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  const a = e.args;
  const { register, state, pool, recordSwap, liqEvent, inRange } = c;
  const { v4 } = cfg;
  if (!v4.has(e.address)) return;
  const k = poolKeyOf('v4', e.address, s(a.id));
  if (e.event === 'Initialize') {
    register(e, {
      key: k,
      protocol: 'v4',
      contract: e.address,
      poolId: s(a.id),
      currency0: s(a.currency0),
      currency1: s(a.currency1),
      fee: Number(a.fee),
      tickSpacing: Number(a.tickSpacing),
      hooks: s(a.hooks),
      factory: e.address,
    });
    const st = state(k);
    st.sqrtPriceX96 = s(a.sqrtPriceX96);
    st.tick = Number(a.tick);
    st.liquidity = '0';
    st.price = ratStr(fromSqrtPriceX96(BigInt(st.sqrtPriceX96)));
  } else if (e.event === 'Swap' && pool(k)) {
    const st = state(k);
    st.sqrtPriceX96 = s(a.sqrtPriceX96);
    st.tick = Number(a.tick);
    st.liquidity = s(a.liquidity);
    const price = fromSqrtPriceX96(BigInt(st.sqrtPriceX96));
    st.price = ratStr(price);
    // V4 reports the swapper's deltas; negate for pool perspective.
    recordSwap(k, e, -BigInt(s(a.amount0)), -BigInt(s(a.amount1)), price, {
      sender: s(a.sender),
      recipient: null,
      tick: st.tick,
      sqrtPriceX96: st.sqrtPriceX96,
    });
  } else if (e.event === 'ModifyLiquidity' && pool(k)) {
    const st = state(k);
    const delta = BigInt(s(a.liquidityDelta));
    if (inRange(st, Number(a.tickLower), Number(a.tickUpper)))
      st.liquidity = (BigInt(st.liquidity ?? '0') + delta).toString();
    liqEvent(k, e, delta >= 0n ? 'add' : 'remove', {
      sender: s(a.sender),
      tickLower: Number(a.tickLower),
      tickUpper: Number(a.tickUpper),
      liquidityDelta: delta.toString(),
      salt: s(a.salt),
    });
  }
}
