/**
 * Uniswap V2 pairs: Sync reserves and price, Swap, Mint/Burn.
 */
import type { EventDelta } from '../../schema/delta.js';
import { rational, ratParse, ratStr } from '../rational.js';
import { type BlockCtx, emittingPool } from './block.js';
import type { FamilyConfig } from './factories.js';

const s = (v: unknown) => String(v);

/** A V2 pair event: reserves and price from Sync, swaps in pool perspective, liquidity events. */
export function onV2Pair(c: BlockCtx, e: EventDelta, _cfg: FamilyConfig): void {
  const a = e.args;
  const { state, recordSwap, liqEvent } = c;
  const k = emittingPool(c, e, 'v2');
  if (!k) return;
  const st = state(k);
  if (e.event === 'Sync') {
    st.reserve0 = s(a.reserve0);
    st.reserve1 = s(a.reserve1);
    st.price = BigInt(st.reserve0) > 0n ? ratStr(rational(BigInt(st.reserve1), BigInt(st.reserve0))) : null;
  } else if (e.event === 'Swap' && st.price) {
    const a0 = BigInt(s(a.amount0In)) - BigInt(s(a.amount0Out));
    const a1 = BigInt(s(a.amount1In)) - BigInt(s(a.amount1Out));
    recordSwap(k, e, a0, a1, ratParse(st.price), { sender: s(a.sender), recipient: s(a.to) });
  } else if (e.event === 'Mint' || e.event === 'Burn') {
    liqEvent(k, e, e.event === 'Mint' ? 'add' : 'remove', {
      sender: s(a.sender),
      amount0: s(a.amount0),
      amount1: s(a.amount1),
      to: a.to ? s(a.to) : null,
    });
  }
}
