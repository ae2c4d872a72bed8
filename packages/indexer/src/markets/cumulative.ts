/**
 * Window state maintained at ingest (issue K, hot reads). Per pool and per block it traded in, the
 * markets projection writes running totals (POOL_CUM); per 1-minute bucket the first block in it
 * (MINUTE_BLOCK); per pool and transaction origin the block of the origin's last swap
 * (TRADER_LAST, indexed by that block in TRADER_BY_LAST). Every row is written through the block's
 * batch, so a reorg's undo log removes it exactly like the swaps it summarises.
 *
 * Reads: a window's sums are the difference of two POOL_CUM rows (the last at or before the
 * anchor, the last before the window's first block) — a constant number of seeks whatever the
 * pool's volume, instead of a walk over up to 1,440 one-minute candles.
 */

import type { PoolCum } from '../schema/rows/markets.js';
import {
  MINUTE_BLOCK,
  POOL_CUM,
  POOL_CUM_LAST,
  TOKEN_POOL_BY_LAST,
  TRADER_BY_LAST,
  TRADER_LAST,
} from '../schema/tables/markets.js';
import type { BlockBatch, View } from '../storage/index.js';

type Hex = `0x${string}`;

/** One swap as the window state needs it (pool perspective, base units). */
export interface CumTrade {
  abs0: bigint;
  abs1: bigint;
  buy: boolean;
  /** Price after the swap, `n/d` currency1 per currency0. */
  price: string;
  /** Transaction origin, lowercase 0x. */
  origin: string;
}

/** Trades of one block grouped by pool, in log order (filled by the markets projection). */
export type BlockTrades = Map<string, CumTrade[]>;

const ZERO: PoolCum = {
  volume0: 0n,
  volume1: 0n,
  buyVolume0: 0n,
  buyVolume1: 0n,
  trades: 0,
  buys: 0,
  sells: 0,
  open: '',
  close: '',
};

/**
 * Writes block `block` (unix time `ts`) into the window state: its minute's first block when it
 * is the first, each traded pool's running totals, and each origin's last-swap block.
 * Reads the previous totals as committed (the state as of the previous block).
 */
export function writeWindowState(
  batch: BlockBatch,
  block: number,
  ts: number,
  trades: BlockTrades,
  currenciesOf: (poolKey: string) => readonly string[],
): void {
  const minute = Math.floor(ts / 60) * 60;
  if (!batch.has(MINUTE_BLOCK, minute)) batch.put(MINUTE_BLOCK, [minute], block);
  if (!trades.size) return;
  const lastKeys: Array<[Hex, Hex]> = [];
  for (const [k, list] of trades) {
    // The pool's latest totals row: a point read (POOL_CUM_LAST), never a walk, so a pending or
    // in-flight write of an earlier block is seen (storage BlockBatch).
    const lastBlock = batch.get(POOL_CUM_LAST, k as Hex);
    const prev = (lastBlock !== undefined ? batch.get(POOL_CUM, k as Hex, lastBlock) : undefined) ?? ZERO;
    // Each currency's pools by last swap block: this pool moves from its previous block to this one.
    for (const cur of new Set(currenciesOf(k))) {
      if (lastBlock !== undefined) batch.del(TOKEN_POOL_BY_LAST, cur as Hex, lastBlock, k as Hex);
      batch.insert(TOKEN_POOL_BY_LAST, [cur as Hex, block, k as Hex], null);
    }
    batch.put(POOL_CUM_LAST, [k as Hex], block);
    const c: PoolCum = { ...prev, open: list[0].price, close: list[list.length - 1].price };
    for (const t of list) {
      c.volume0 += t.abs0;
      c.volume1 += t.abs1;
      c.trades++;
      if (t.buy) {
        c.buys++;
        c.buyVolume0 += t.abs0;
        c.buyVolume1 += t.abs1;
      } else c.sells++;
    }
    batch.insert(POOL_CUM, [k as Hex, block], c);
    for (const o of new Set(list.map((t) => t.origin))) lastKeys.push([k as Hex, o as Hex]);
  }
  batch.prefetch(TRADER_LAST, lastKeys);
  for (const [k, o] of lastKeys) {
    const last = batch.get(TRADER_LAST, k, o);
    if (last === block) continue;
    if (last !== undefined) batch.del(TRADER_BY_LAST, k, last, o);
    batch.put(TRADER_LAST, [k, o], block);
    batch.insert(TRADER_BY_LAST, [k, block, o], null);
  }
}

/** A pool's totals row at a block. */
export interface CumRow {
  block: number;
  cum: PoolCum;
}

/** The pool's last totals row at or before `block`; undefined when it had not traded by then. */
export function cumAt(view: View, key: string, block: number): CumRow | undefined {
  if (block < 0) return undefined;
  const r = view.first(POOL_CUM, { prefix: [key as Hex], lte: [key as Hex, block], reverse: true });
  return r ? { block: r.key[1] as number, cum: r.value } : undefined;
}

/** The pool's first totals row in [from, to]; undefined when it did not trade in the range. */
export function firstCumIn(view: View, key: string, from: number, to: number): CumRow | undefined {
  const r = view.first(POOL_CUM, { gte: [key as Hex, from], lte: [key as Hex, to] });
  return r ? { block: r.key[1] as number, cum: r.value } : undefined;
}

/**
 * The first block whose timestamp is ≥ `ts` (a 1-minute boundary, unix seconds), or undefined when
 * no stored block is that late. Exact: MINUTE_BLOCK holds the first block of every minute a block
 * fell in, and block timestamps never decrease.
 */
export function firstBlockAtOrAfter(view: View, ts: number): number | undefined {
  return view.first(MINUTE_BLOCK, { gte: [ts] })?.value;
}

/**
 * Distinct transaction origins whose last swap in pool `key` is at or after block `from`, counted
 * up to `max`; exact as of the anchor only when the pool has no swap after the anchor (the index
 * holds each origin's latest swap as of the store's head). Returns null when it cannot answer
 * (the caller then scans swaps), else the counts per block bound in `froms` (ascending order
 * not required) and whether every row was counted.
 */
export function distinctSince(
  view: View,
  key: string,
  anchor: number,
  froms: number[],
  max: number,
): { counts: number[]; exact: boolean } | null {
  const last = view.first(POOL_CUM, { prefix: [key as Hex], reverse: true });
  if (last && last.key[1] > anchor) return null;
  const lo = Math.min(...froms);
  const counts = froms.map(() => 0);
  let seen = 0;
  let exact = true;
  view.each(TRADER_BY_LAST, { prefix: [key as Hex], gte: [key as Hex, lo] }, (_v, k) => {
    if (++seen > max) {
      exact = false;
      return false;
    }
    const b = k[1] as number;
    for (let i = 0; i < froms.length; i++) if (b >= froms[i]) counts[i]++;
    return true;
  });
  return { counts, exact };
}

/**
 * Pools of `token` whose last swap is at or after block `from`, when that is exact as of
 * `anchor` (no pool of the token traded after the anchor); null otherwise (the caller then reads
 * every pool). Every other pool of the token has no trade in [from, anchor].
 */
export function poolsTradedSince(
  view: View,
  token: string,
  from: number,
  anchor: number,
): Set<string> | null {
  const t = token as Hex;
  const newest = view.first(TOKEN_POOL_BY_LAST, { prefix: [t], reverse: true });
  if (!newest) return new Set();
  if ((newest.key[1] as number) > anchor) return null;
  const out = new Set<string>();
  view.each(TOKEN_POOL_BY_LAST, { prefix: [t], gte: [t, from] }, (_v, k) => {
    out.add(k[2] as string);
  });
  return out;
}
