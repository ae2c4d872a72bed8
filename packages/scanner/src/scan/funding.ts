/**
 * The funding chain of an address: who funded it first, who funded that funder first, and so on,
 * closest funder first — read from the wallets reader's first-funding rows (the earliest incoming
 * value transfer of each asset: native value, ERC-20 or WETH transfers).
 *
 * Rule (published with every answer as {@link FUNDING_RULE}): the funder of a wallet is the sender
 * of its earliest incoming value transfer in any asset at or before the anchor (ties: lowest
 * transaction index, then log index); the chain walks funder to funder up to `depth` hops and
 * stops early when a wallet has no incoming value transfer (`no_funder`), when a funder carries an
 * exchange or bridge label (`labelled_exchange` / `labelled_bridge`: past it, funds are pooled and
 * a hop says nothing about who is behind), or when a funder was already visited (`cycle`).
 */
import type { FirstFunding } from '@chain-indexer/indexer/types';
import type { ReadCtx } from '../index-port.js';
import { byCoordinate, collect, stopLabel } from './common.js';

/** First-funding rows (one per asset) a hop reads at most. */
const ASSET_BOUND = 1000;

export const FUNDING_RULE =
  "each hop is the sender of the funded wallet's earliest incoming value transfer (any asset; native value, ERC-20, WETH) at or before the anchor; the walk stops at depth, at a wallet with no incoming value transfer, at a funder labelled exchange or bridge, or at a funder already visited";

/** One hop: `funder` funded `wallet` first, with this transfer. */
export interface FundingHop {
  /** 1 = the address's own funder. */
  hop: number;
  wallet: string;
  funder: string;
  assetKind: 'native' | 'erc20';
  /** Token address; null for native value. */
  asset: string | null;
  /** Base units of the asset (wei for native), decimal string. */
  amount: string;
  txHash: string;
  block: number;
  txIndex: number;
  logIndex: number | null;
  /** The funder's labels with their evidence (an exchange or bridge label ends the chain). */
  funderLabels: Array<{ label: string; evidence: string }>;
}

export type FundingStop = 'depth_reached' | 'no_funder' | 'labelled_exchange' | 'labelled_bridge' | 'cycle';

export interface FundingChain {
  address: string;
  depth: number;
  hops: FundingHop[];
  stoppedBy: FundingStop;
  /** The wallet the walk stopped at (the last funder, or the address itself without a funder). */
  stoppedAt: string;
  rule: string;
}

/** The earliest incoming value transfer of `wallet` in any asset at the anchor, or null. */
export function firstFunding(rc: ReadCtx, wallet: string): FirstFunding | null {
  const { rows } = collect<FirstFunding>(
    (q, sink) => rc.readers.wallets.fundedBy(rc.view, wallet, q, sink),
    rc.anchor.block,
    ASSET_BOUND,
  );
  return rows.sort(byCoordinate)[0] ?? null;
}

/** The funding chain of `address` up to `depth` hops (see the module rule). */
export function fundingChain(rc: ReadCtx, address: string, depth: number): FundingChain {
  const a = address.toLowerCase();
  const hops: FundingHop[] = [];
  const seen = new Set([a]);
  let wallet = a;
  let stoppedBy: FundingStop = 'depth_reached';
  while (hops.length < depth) {
    const f = firstFunding(rc, wallet);
    if (!f) {
      stoppedBy = 'no_funder';
      break;
    }
    const funder = f.funder.toLowerCase();
    const funderLabels = rc.readers.addresses.labels(rc.view, funder, rc.anchor.block);
    hops.push({
      hop: hops.length + 1,
      wallet,
      funder,
      assetKind: f.assetKind,
      asset: f.asset,
      amount: f.value,
      txHash: f.txHash,
      block: f.block,
      txIndex: f.txIndex,
      logIndex: f.logIndex,
      funderLabels,
    });
    wallet = funder;
    const stop = stopLabel(funderLabels);
    if (stop) {
      stoppedBy = stop === 'exchange' ? 'labelled_exchange' : 'labelled_bridge';
      break;
    }
    if (seen.has(funder)) {
      stoppedBy = 'cycle';
      break;
    }
    seen.add(funder);
  }
  return { address: a, depth, hops, stoppedBy, stoppedAt: wallet, rule: FUNDING_RULE };
}
