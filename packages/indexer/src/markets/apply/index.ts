/**
 * The markets projection's event families, one module each, dispatched by the decoded event's
 * standard. Each handler reads and writes through the block's context (block.ts).
 */
import type { EventDelta } from '../../schema/delta.js';
import type { BlockCtx } from './block.js';
import { type FamilyConfig, onV2Factory, onV3Factory } from './factories.js';
import { onLaunchpad } from './launchpad.js';
import { onV2Pair } from './v2.js';
import { onV3Pool } from './v3.js';
import { onV4Manager } from './v4.js';

export { type BlockCtx, openBlock } from './block.js';
export type { FamilyConfig } from './factories.js';

/** Handler of each decoded standard the markets projection reads. */
export const FAMILIES: Record<string, (c: BlockCtx, e: EventDelta, cfg: FamilyConfig) => void> = {
  uniswap_v2_factory: onV2Factory,
  uniswap_v3_factory: onV3Factory,
  uniswap_v4_pool_manager: onV4Manager,
  uniswap_v2_pair: onV2Pair,
  uniswap_v3_pool: onV3Pool,
  launchpad: onLaunchpad,
};
