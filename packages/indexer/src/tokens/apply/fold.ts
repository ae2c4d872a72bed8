/**
 * Balances folded over a range of blocks: the tokens projection's transfers (transfers.ts) net
 * each block's balance change per (token, wallet), and this module keeps those changes for the
 * whole batch — one live block, or a history segment of hundreds — then writes them once, at the
 * batch's seal (Projection.seal), walking each (token, wallet) through its blocks in order.
 *
 * What the walk writes is what writing block by block writes (R2: versions by block):
 *  - per change: the balance's history row, and the retired versions of the two holder indices
 *    (balance-ranked, positive non-sink balances; wallet-id, every non-zero balance);
 *  - per (token, wallet): its current balance and index rows as of the range's last change, the
 *    rows current before the range deleted when no longer current;
 *  - per (token, block): the token's counters and their history row.
 * What it does not do: read each key once per change (the pre-range rows are read once per pair,
 * in one multi-get per table), write a current row per block that the next block overwrites, or
 * insert an index row a later block of the range deletes again (a tombstone for a key RocksDB never
 * held). A live block is a range of one: the same code, the same rows as before.
 *
 * Wallet ids are interned when a block is folded, in the order a block-by-block build interns them
 * (per block, token by token, wallet by wallet), so ids never depend on where a batch ends.
 */

import { BURN_SINKS, type TokenStats } from '../../schema/rows/tokens.js';
import {
  BALANCE,
  BALANCE_HIST,
  HOLDER_CUR,
  HOLDER_HIST,
  HOLDER_ID_CUR,
  HOLDER_ID_HIST,
  STATS,
  STATS_HIST,
} from '../../schema/tables/tokens.js';
import type { BlockBatch } from '../../storage/index.js';
import type { TokenSeeds } from './seeds.js';
import { internWallet, type TransferTally } from './transfers.js';

type Hex = `0x${string}`;

/** One (token, block) of the range: the block's tallies, then the holder-class changes the walk counts. */
interface BlockTally {
  n: number;
  transfers: number;
  /** Base units minted and burned in the block. */
  minted: bigint;
  burned: bigint;
  /** Seed calls the node could not answer for this token at this block (seeds.ts). */
  failures: number;
  /** totalSupply() at the block before, base units, when this block asked for it (tokens predating START_BLOCK). */
  seededSupply?: string;
  seededAtBlock?: number;
  holder: number;
  sink: number;
  negative: number;
}

/** One (token, wallet) of the range: its net change per block, in block order (zero nets left out). */
interface PairSteps {
  wallet: Hex;
  /** Interned wallet id (WALLET_ID). */
  wid: number;
  blocks: number[];
  /** Net change of the block, base units. */
  deltas: bigint[];
  /** balanceOf at the block before, base units, offered by the block's seeds (first sight of a predating token); sparse. */
  seeds?: Array<bigint | undefined>;
}

interface TokenFold {
  blocks: BlockTally[];
  byBlock: Map<number, BlockTally>;
  pairs: Map<string, PairSteps>;
}

/** The balance changes of a batch not written yet, by token (first-touch order). */
export type BalanceFold = Map<string, TokenFold>;

/**
 * Adds block `n`'s netted changes (`tally`) to `fold`, interning each changed wallet's id now
 * (first-seen order, as a block-by-block build does).
 */
export function foldBlock(
  batch: BlockBatch,
  fold: BalanceFold,
  n: number,
  tally: TransferTally,
  seeds: TokenSeeds | null,
): void {
  for (const [token, t] of tally.touched) {
    let f = fold.get(token);
    if (!f) fold.set(token, (f = { blocks: [], byBlock: new Map(), pairs: new Map() }));
    const bt: BlockTally = {
      n,
      transfers: t.transfers,
      minted: t.minted,
      burned: t.burned,
      failures: seeds?.unavailable.filter((u) => u === token || u.startsWith(`${token}:`)).length ?? 0,
      holder: 0,
      sink: 0,
      negative: 0,
    };
    const supply = seeds?.supplies[token];
    if (supply !== undefined) {
      bt.seededSupply = supply;
      bt.seededAtBlock = seeds!.atBlock;
    }
    f.blocks.push(bt);
    f.byBlock.set(n, bt);
    const seeded = seeds?.balances[token];
    for (const [wallet, dv] of tally.deltas.get(token) ?? []) {
      if (dv === 0n) continue;
      let p = f.pairs.get(wallet);
      if (!p) {
        p = { wallet: wallet as Hex, wid: internWallet(batch, wallet), blocks: [], deltas: [] };
        f.pairs.set(wallet, p);
      }
      const offered = seeded?.[wallet];
      if (offered !== undefined) (p.seeds ??= [])[p.blocks.length] = BigInt(offered);
      p.blocks.push(n);
      p.deltas.push(dv);
    }
  }
}

/** Class of a (wallet, balance) for holder counting. */
function holderClass(wallet: string, bal: bigint): 'none' | 'holder' | 'sink' | 'negative' {
  if (bal === 0n) return 'none';
  if (BURN_SINKS.has(wallet)) return 'sink';
  return bal > 0n ? 'holder' : 'negative';
}

/** Reads, in one multi-get per table, the rows current before the range that the walks start from. */
function prefetchFold(batch: BlockBatch, fold: BalanceFold): void {
  const stats: Array<[Hex]> = [];
  const balances: Array<[Hex, Hex]> = [];
  for (const [token, f] of fold) {
    stats.push([token as Hex]);
    for (const w of f.pairs.keys()) balances.push([token as Hex, w as Hex]);
  }
  batch.prefetch(STATS, stats);
  batch.prefetch(BALANCE, balances);
  const holders: Array<[Hex, bigint, Hex]> = [];
  const holderIds: Array<[Hex, number]> = [];
  for (const [token, f] of fold)
    for (const p of f.pairs.values()) {
      const before = batch.get(BALANCE, token as Hex, p.wallet);
      if (before !== undefined && before > 0n && !BURN_SINKS.has(p.wallet))
        holders.push([token as Hex, before, p.wallet]);
      holderIds.push([token as Hex, p.wid]);
    }
  batch.prefetch(HOLDER_CUR, holders);
  batch.prefetch(HOLDER_ID_CUR, holderIds);
}

/**
 * Walks one (token, wallet) through its blocks: writes each change's history rows, counts holder
 * classes into the token's block tallies, then writes the rows current after the range.
 */
function walkPair(batch: BlockBatch, tk: Hex, f: TokenFold, p: PairSteps): void {
  const w = p.wallet;
  const sink = BURN_SINKS.has(w);
  const stored0 = batch.get(BALANCE, tk, w);
  // The balance-ranked row current before the range, (tk, stored0, w) → since-block.
  const key0 = stored0 !== undefined && stored0 > 0n && !sink ? stored0 : undefined;
  // Its first change always retires it (a counted balance, no seed): gone unless the last change
  // brings the same key back.
  const row0 = key0 !== undefined ? batch.get(HOLDER_CUR, tk, key0, w) : undefined;
  let holderFrom = row0;
  const id0 = batch.get(HOLDER_ID_CUR, tk, p.wid);
  let idCur = id0;
  let bal = stored0; // undefined: no balance row
  for (let i = 0; i < p.blocks.length; i++) {
    const n = p.blocks[i];
    const offered = p.seeds?.[i];
    // A first-sight seed (balanceOf at the block before) is the balance the wallet came in with;
    // it was never counted, so it leaves no holder class behind.
    const seed = bal === undefined ? offered : undefined;
    const before = bal ?? seed ?? 0n;
    const after = before + p.deltas[i];
    const bt = f.byBlock.get(n)!;
    if (seed === undefined) {
      const c = holderClass(w, before);
      if (c !== 'none') bt[c]--;
    }
    const c = holderClass(w, after);
    if (c !== 'none') bt[c]++;
    bal = after === 0n ? undefined : after;
    batch.insert(BALANCE_HIST, [tk, w, n], after);
    // Balance-ranked index: the row of `before` retires (only a counted balance has one).
    if (before > 0n && !sink && seed === undefined && holderFrom !== undefined) {
      if (holderFrom < n) batch.insert(HOLDER_HIST, [tk, before, w, holderFrom], n);
      holderFrom = undefined;
    }
    if (after > 0n && !sink) holderFrom = n;
    // Wallet-id index: every non-zero balance, negatives and sinks included.
    if (idCur && idCur.block < n)
      batch.insert(HOLDER_ID_HIST, [tk, p.wid, idCur.block], { block: n, balance: idCur.balance });
    idCur = after !== 0n ? { block: n, balance: after } : undefined;
  }
  if (bal !== undefined) batch.put(BALANCE, [tk, w], bal);
  else if (stored0 !== undefined) batch.del(BALANCE, tk, w);
  // One current row per (token, wallet): the only key the final row can share is key0's.
  const finalKey = holderFrom !== undefined ? bal : undefined;
  if (finalKey !== undefined && finalKey === key0) batch.put(HOLDER_CUR, [tk, finalKey, w], holderFrom!);
  else {
    if (row0 !== undefined) batch.del(HOLDER_CUR, tk, key0!, w);
    if (finalKey !== undefined) batch.insert(HOLDER_CUR, [tk, finalKey, w], holderFrom!);
  }
  if (idCur) batch.put(HOLDER_ID_CUR, [tk, p.wid], idCur);
  else if (id0) batch.del(HOLDER_ID_CUR, tk, p.wid);
}

/** Writes a token's counters after each block of the range that touched it, and the last as current. */
function writeStats(batch: BlockBatch, tk: Hex, f: TokenFold): void {
  const first = f.blocks[0];
  const stats: TokenStats = batch.get(STATS, tk) ?? {
    holders: 0,
    burnSinkHolders: 0,
    negativeBalances: 0,
    transfers: 0,
    // A token that predates START_BLOCK starts from its totalSupply() at the block before.
    supplyFromTransfers: first.seededSupply ?? '0',
    lastChangeBlock: first.n,
    ...(first.seededSupply !== undefined ? { seededAtBlock: first.seededAtBlock } : {}),
  };
  let supply = BigInt(stats.supplyFromTransfers);
  for (const bt of f.blocks) {
    if (bt.failures) stats.seedFailures = (stats.seedFailures ?? 0) + bt.failures;
    stats.transfers += bt.transfers;
    supply += bt.minted - bt.burned;
    stats.supplyFromTransfers = supply.toString();
    stats.lastChangeBlock = bt.n;
    stats.holders += bt.holder;
    stats.burnSinkHolders += bt.sink;
    stats.negativeBalances += bt.negative;
    batch.insert(STATS_HIST, [tk, bt.n], stats); // encoded now: later changes do not reach it
  }
  batch.put(STATS, [tk], stats);
}

/** Pairs walked per slice of a seal (a live commit may pause between slices). */
const SLICE_PAIRS = 16;

/**
 * Writes every change `fold` holds (see the module comment) into `batch` and empties it. Yields
 * every {@link SLICE_PAIRS} pairs.
 */
export function* sealFold(batch: BlockBatch, fold: BalanceFold): Generator<void, void, void> {
  if (!fold.size) return;
  prefetchFold(batch, fold);
  let walked = 0;
  for (const [token, f] of fold) {
    for (const p of f.pairs.values()) {
      if (++walked % SLICE_PAIRS === 0) yield;
      walkPair(batch, token as Hex, f, p);
    }
    writeStats(batch, token as Hex, f);
  }
  fold.clear();
}
