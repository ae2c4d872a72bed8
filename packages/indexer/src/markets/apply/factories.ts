/**
 * Uniswap V2 and V3 factories: pool registration (PairCreated, PoolCreated).
 */
import type { EventDelta } from '../../schema/delta.js';
import { poolKeyOf } from '../../schema/tables/markets.js';
import type { BlockCtx } from './block.js';

/** The configured contracts event families answer for. */
export interface FamilyConfig {
  v2: ReadonlySet<string>;
  v3: ReadonlySet<string>;
  v4: ReadonlySet<string>;
  /** Launchpad factory (event emitter) → its curve contract. */
  curves: ReadonlyMap<string, string>;
}

const s = (v: unknown) => String(v);
const _NATIVE = '0x0000000000000000000000000000000000000000';

/** V2 factory PairCreated: registers the pair (fee 3000). */
export function onV2Factory(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  const a = e.args;
  const { register } = c;
  const { v2 } = cfg;
  if (e.event === 'PairCreated' && v2.has(e.address)) {
    const addr = s(a.pair).toLowerCase();
    register(e, {
      key: poolKeyOf('v2', addr),
      protocol: 'v2',
      contract: addr,
      poolId: null,
      currency0: s(a.token0),
      currency1: s(a.token1),
      fee: 3000,
      tickSpacing: null,
      hooks: null,
      factory: e.address,
    });
  }
}

/** V3 factory PoolCreated: registers the pool with its fee and tick spacing. */
export function onV3Factory(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  const a = e.args;
  const { register } = c;
  const { v3 } = cfg;
  if (e.event === 'PoolCreated' && v3.has(e.address)) {
    const addr = s(a.pool).toLowerCase();
    register(e, {
      key: poolKeyOf('v3', addr),
      protocol: 'v3',
      contract: addr,
      poolId: null,
      currency0: s(a.token0),
      currency1: s(a.token1),
      fee: Number(a.fee),
      tickSpacing: Number(a.tickSpacing),
      hooks: null,
      factory: e.address,
    });
  }
}
