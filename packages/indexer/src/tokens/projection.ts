/**
 * The tokens projection: token registry (creations, launches, first transfers; metadata probed
 * by eth_call at first sight), balances as the running signed sum of decoded transfers (R9:
 * ERC-20 `Transfer`, WETH `Deposit`/`Withdrawal`; never balanceOf), holder indices versioned by
 * block, per-token counters, transfers, authority events and launches.
 *
 * One module per event family (src/tokens/apply/): registry (creations and first sight),
 * launches, authority events, transfers and balances. This file dispatches a block's events to
 * them in log order; balance changes are netted per block and folded over the batch, then written
 * once per (token, wallet) when the batch is sealed (apply/fold.ts).
 *
 * Sources: receipts' `contractAddress`; logs `Transfer(address,address,uint256)`,
 * `Deposit(address,uint256)`, `Withdrawal(address,uint256)`, `OwnershipTransferred(address,address)`,
 * and the launchpad's `LaunchCreated`, `GraduationStarted`, `Graduated`.
 */

import { drain, type Emit, type Projection, projectionIdentity } from '../projections/index.js';
import { probeTokenMetadataOrAbsent } from '../rpc/token-metadata.js';
import { type BlockDelta, canonicalProbes, type EventDelta } from '../schema/delta.js';
import { PROJECTION_IDENTITIES } from '../schema/projections.js';
import { tokenRows } from '../schema/stateless.js';
import { TOKEN } from '../schema/tables/tokens.js';
import type { BlockBatch } from '../storage/index.js';
import { onOwnershipTransferred } from './apply/authority.js';
import { newBlock } from './apply/block.js';
import { type BalanceFold, foldBlock, sealFold } from './apply/fold.js';
import {
  flushLaunches,
  type Launches,
  launchCreation,
  launchedIn,
  onLaunchEvent,
  padIndexByFactory,
} from './apply/launches.js';
import { registerCreations } from './apply/registry.js';
import { gatherSeeds, seedsOf } from './apply/seeds.js';
import { newTally, onTransfer, transferOf } from './apply/transfers.js';
import type { LaunchpadDeployments } from './launchpads.js';

/** Events per slice of a live commit (the commit may yield to HTTP reads between slices). */
const SLICE_EVENTS = 16;

export interface TokensProjectionDeps {
  launchpads: LaunchpadDeployments;
}

export function createTokensProjection(deps: TokensProjectionDeps): Projection {
  const pads = padIndexByFactory(deps.launchpads);
  /** Balance changes folded per open batch, until its seal (a dropped batch's fold goes with it). */
  const folds = new WeakMap<BlockBatch, BalanceFold>();

  /** The block's writes, yielding every {@link SLICE_EVENTS} events and inside the balance flush. */
  function* steps(batch: BlockBatch, d: BlockDelta, emit?: Emit): Generator<void, void, void> {
    const b = newBlock(batch, d, seedsOf(batch, d), emit);
    // Stateless rows (a TRANSFER per transfer-family log): encoded by the decode worker, or here.
    if (d.parts?.tokens) batch.addPart(d.parts.tokens);
    else tokenRows(d, (t, key, value) => batch.insert(t, key, value));
    // Tokens launched in this block: their constructor mints (Transfer from 0x0) precede the
    // LaunchCreated log, so creation provenance must be known when the first transfer registers them.
    const launched = launchedIn(b, pads);
    registerCreations(b);
    const launches: Launches = new Map();
    const tally = newTally();
    let seen = 0;
    for (const e of d.events) {
      if (++seen % SLICE_EVENTS === 0) yield;
      if (e.standard === 'launchpad') {
        const pad = pads.get(e.address);
        if (pad !== undefined) onLaunchEvent(b, e, pad, launches);
        continue;
      }
      if (e.standard === 'ownable' && e.event === 'OwnershipTransferred') {
        onOwnershipTransferred(b, e);
        continue;
      }
      const m = transferOf(e);
      if (m) onTransfer(b, e, m, tally, (token) => launchCreation(b, launched, token));
    }
    flushLaunches(b, launches);
    // Balances are folded over the batch and written when it is sealed (apply/fold.ts).
    let fold = folds.get(batch);
    if (!fold) folds.set(batch, (fold = new Map()));
    foldBlock(batch, fold, d.number, tally, b.seeds);
  }

  /** Writes the batch's folded balance changes (after its last block). */
  function* seal(batch: BlockBatch): Generator<void, void, void> {
    const fold = folds.get(batch);
    if (!fold) return;
    folds.delete(batch);
    yield* sealFold(batch, fold);
  }

  /** Probes metadata (eth_call at this block) of tokens first seen through a Transfer/Deposit log. */
  const prepare: Projection['prepare'] = async (d, ctx) => {
    const wanted = new Set<string>();
    const checked = new Set<string>();
    const view = ctx.store.view();
    try {
      for (const e of d.events) {
        const isTransfer =
          (e.standard === 'erc20' && e.event === 'Transfer') ||
          (e.standard === 'weth' && e.event === 'Deposit');
        // One look per token address, not per log (a block's transfers mostly share a few tokens).
        if (!isTransfer || checked.has(e.address)) continue;
        checked.add(e.address);
        if (!d.probes[e.address] && !view.has(TOKEN, e.address)) wanted.add(e.address);
      }
    } finally {
      view.close();
    }
    const tag = `0x${d.number.toString(16)}`;
    const more = [...wanted];
    const found = await Promise.all(more.map((a) => probeTokenMetadataOrAbsent(ctx.rpc, a, tag)));
    if (more.length) {
      const probes = { ...d.probes };
      more.forEach((a, i) => {
        probes[a] = found[i];
      });
      d.probes = canonicalProbes(probes);
    }
    await gatherSeeds(d, ctx.store, ctx.rpc);
  };

  return {
    ...projectionIdentity(PROJECTION_IDENTITIES.tokens),
    prepare,
    apply: (batch, d, emit) => {
      drain(steps(batch, d, emit));
      drain(seal(batch));
    },
    steps,
    seal,
  };
}

export type { EventDelta };
