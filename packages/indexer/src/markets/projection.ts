/**
 * The markets projection: pool registry (Uniswap V2 `PairCreated`, V3 `PoolCreated`, V4
 * `Initialize` on the PoolManager with hooks recorded, launchpad curves), exact pool state (V2
 * `Sync` reserves; V3/V4 sqrtPriceX96, tick and active liquidity from `Initialize`/`Swap` and
 * in-range `Mint`/`Burn`/`ModifyLiquidity`), every swap in pool perspective with the transaction
 * origin, liquidity events, and candles for every frame with rational OHLC.
 *
 * Prices are exact rationals: currency1 base units per currency0 base unit — V2 and curves from
 * reserves after the trade, V3/V4 from sqrtPriceX96² / 2^192.
 */

import type { Emit, Projection } from '../projections/index.js';
import { projectionIdentity } from '../projections/index.js';
import type { BlockDelta } from '../schema/delta.js';
import { PROJECTION_IDENTITIES } from '../schema/projections.js';
import type { BlockBatch } from '../storage/index.js';
import type { LaunchpadDeployments } from '../tokens/index.js';
import { FAMILIES, type FamilyConfig, openBlock } from './apply/index.js';
import type { MarketsConfig } from './config.js';
import { createFirstSight, type FirstSightOutcome, marketSeedsOf } from './first-sight.js';

const _EMPTY = Buffer.alloc(0);
const _NATIVE = '0x0000000000000000000000000000000000000000';
const _json = (v: unknown) => Buffer.from(JSON.stringify(v));
const _abs = (x: bigint) => (x < 0n ? -x : x);
const _s = (v: unknown) => String(v);

export interface MarketsProjectionDeps {
  config: MarketsConfig;
  launchpads: LaunchpadDeployments;
  /** Logs a first-sight pool that could not be checked (node errors). */
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /** Counts first-sight candidates by protocol and outcome (metrics). */
  onFirstSight?: FirstSightOutcome;
}

export function createMarketsProjection(deps: MarketsProjectionDeps): Projection {
  const v2 = new Set(deps.config.v2Factories);
  const v3 = new Set(deps.config.v3Factories);
  const v4 = new Set(deps.config.v4Managers);
  const firstSight = createFirstSight(deps.config, { log: deps.log, onOutcome: deps.onFirstSight });
  const curves = new Map<string, string>(); // factory (event emitter) → curve address
  const padNames = new Map<string, string>(); // factory → launchpad canonical name
  for (const [name, d] of deps.launchpads) {
    for (const f of d.factories) {
      curves.set(f, d.curve);
      padNames.set(f, name);
    }
  }

  const cfg: FamilyConfig = { v2, v3, v4, curves };
  const apply = (batch: BlockBatch, d: BlockDelta, emit?: Emit) => {
    const c = openBlock(batch, d, emit, padNames);
    // Pools of configured factories first seen in this block (late START_BLOCK): registered at their
    // first event with the state seeded at the block before; this block's events apply on top.
    for (const p of marketSeedsOf(batch, d)?.pools ?? []) {
      c.register(p, p.row);
      c.seedState(p.row.key, p.state);
    }
    for (const e of d.events) FAMILIES[e.standard]?.(c, e, cfg);
    c.finish();
  };

  return {
    ...projectionIdentity(PROJECTION_IDENTITIES.markets),
    apply,
    prepare: (d, ctx) => firstSight.gather(d, ctx.store, ctx.rpc),
  };
}
