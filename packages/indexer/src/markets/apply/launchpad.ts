/**
 * Launchpad bonding curves: LaunchCreated registers the curve pool, CurveTrade trades on it.
 */
import type { EventDelta } from '../../schema/delta.js';
import type { Protocol } from '../../schema/rows/markets.js';
import { poolKeyOf } from '../../schema/tables/markets.js';
import { rational, ratStr } from '../rational.js';
import type { BlockCtx } from './block.js';
import type { FamilyConfig } from './factories.js';

const s = (v: unknown) => String(v);
const NATIVE = '0x0000000000000000000000000000000000000000';

/** A launchpad factory event (curve price = ETH reserve / token reserve). */
export function onLaunchpad(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  const a = e.args;
  const { register, state, pool, recordSwap } = c;
  const { curves } = cfg;
  const curve = curves.get(e.address);
  if (!curve) return;
  const token = s(a.token);
  const k = poolKeyOf('launchpad', curve, token);
  if (e.event === 'LaunchCreated') {
    register(e, {
      key: k,
      protocol: 'launchpad' as Protocol,
      contract: curve,
      poolId: null,
      currency0: token,
      currency1: NATIVE,
      fee: null,
      tickSpacing: null,
      hooks: null,
      factory: e.address,
    });
  } else if (e.event === 'CurveTrade' && pool(k)) {
    const st = state(k);
    st.reserve0 = s(a.tokenReserve);
    st.reserve1 = s(a.ethReserve);
    const r0 = BigInt(st.reserve0);
    if (r0 === 0n) return;
    const price = rational(BigInt(st.reserve1), r0);
    st.price = ratStr(price);
    const tok = BigInt(s(a.tokenAmount));
    const eth = BigInt(s(a.ethAmount));
    const buy = a.isBuy === true || a.isBuy === 'true';
    recordSwap(k, e, buy ? -tok : tok, buy ? eth : -eth, price, {
      sender: s(a.trader),
      recipient: s(a.trader),
    });
  }
}
