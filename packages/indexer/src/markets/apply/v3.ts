/**
 * Uniswap V3 pools: Initialize, Swap (sqrtPriceX96, tick, active liquidity), in-range Mint/Burn, Collect.
 */
import type { EventDelta } from '../../schema/delta.js';
import { fromSqrtPriceX96, ratStr } from '../rational.js';
import { type BlockCtx, emittingPool } from './block.js';
import type { FamilyConfig } from './factories.js';

const s = (v: unknown) => String(v);

/** A V3 pool event (price from sqrtPriceX96² / 2^192). */
export function onV3Pool(c: BlockCtx, e: EventDelta, _cfg: FamilyConfig): void {
  const a = e.args;
  const { state, recordSwap, liqEvent, inRange } = c;
  const k = emittingPool(c, e, 'v3');
  if (!k) return;
  const st = state(k);
  if (e.event === 'Initialize') {
    st.sqrtPriceX96 = s(a.sqrtPriceX96);
    st.tick = Number(a.tick);
    st.liquidity ??= '0';
    st.price = ratStr(fromSqrtPriceX96(BigInt(st.sqrtPriceX96)));
  } else if (e.event === 'Swap') {
    st.sqrtPriceX96 = s(a.sqrtPriceX96);
    st.tick = Number(a.tick);
    st.liquidity = s(a.liquidity);
    const price = fromSqrtPriceX96(BigInt(st.sqrtPriceX96));
    st.price = ratStr(price);
    recordSwap(k, e, BigInt(s(a.amount0)), BigInt(s(a.amount1)), price, {
      sender: s(a.sender),
      recipient: s(a.recipient),
      tick: st.tick,
      sqrtPriceX96: st.sqrtPriceX96,
    });
  } else if (e.event === 'Mint' || e.event === 'Burn') {
    const amount = BigInt(s(a.amount));
    if (inRange(st, Number(a.tickLower), Number(a.tickUpper))) {
      st.liquidity = (BigInt(st.liquidity ?? '0') + (e.event === 'Mint' ? amount : -amount)).toString();
    }
    liqEvent(k, e, e.event === 'Mint' ? 'add' : 'remove', {
      owner: s(a.owner),
      tickLower: Number(a.tickLower),
      tickUpper: Number(a.tickUpper),
      liquidity: amount.toString(),
      amount0: s(a.amount0),
      amount1: s(a.amount1),
    });
  } else if (e.event === 'Collect') {
    liqEvent(k, e, 'collect', {
      owner: s(a.owner),
      recipient: s(a.recipient),
      tickLower: Number(a.tickLower),
      tickUpper: Number(a.tickUpper),
      amount0: s(a.amount0),
      amount1: s(a.amount1),
    });
  }
}
