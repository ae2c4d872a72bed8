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

/**
 * Registers the pool a V2 or V3 factory announced: its own contract at `addr` (no pool id, no
 * hooks), of `e.address`.
 */
function registerContractPool(
  c: BlockCtx,
  e: EventDelta,
  protocol: 'v2' | 'v3',
  addr: string,
  fee: number,
  tickSpacing: number | null,
): void {
  const a = e.args;
  c.register(e, {
    key: poolKeyOf(protocol, addr),
    protocol,
    contract: addr,
    poolId: null,
    currency0: s(a.token0),
    currency1: s(a.token1),
    fee,
    tickSpacing,
    hooks: null,
    factory: e.address,
  });
}

/** V2 factory PairCreated: registers the pair (fee 3000). */
export function onV2Factory(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  if (e.event === 'PairCreated' && cfg.v2.has(e.address))
    registerContractPool(c, e, 'v2', s(e.args.pair).toLowerCase(), 3000, null);
}

/** V3 factory PoolCreated: registers the pool with its fee and tick spacing. */
export function onV3Factory(c: BlockCtx, e: EventDelta, cfg: FamilyConfig): void {
  const a = e.args;
  if (e.event === 'PoolCreated' && cfg.v3.has(e.address))
    registerContractPool(c, e, 'v3', s(a.pool).toLowerCase(), Number(a.fee), Number(a.tickSpacing));
}
