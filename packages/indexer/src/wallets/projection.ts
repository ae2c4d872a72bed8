/**
 * The wallets projection: per-wallet transactions (origin or recipient), direction-aware
 * transfers (ERC-20 `Transfer`, WETH deposit/withdrawal, and top-level native value with the
 * reserved asset kind `native`), trades (the wallet is the transaction origin, never the router
 * recipient), weighted-average-cost positions with exact rational cost and realised PnL, daily
 * realised PnL (current, and versioned per block that traded it), the funding graph (first incoming transfer per asset, every funder edge, both
 * directions), cohort candidates (wallets funded by one funder that bought the same token), and
 * address observations (origin, created, emitted logs).
 */

import { add, type Rational, rational, ratParse, ratStr, sub } from '../markets/index.js';
import { drain, type Projection, projectionIdentity } from '../projections/index.js';
import { asHex } from '../schema/codec.js';
import type { BlockDelta } from '../schema/delta.js';
import { PROJECTION_IDENTITIES } from '../schema/projections.js';
import type { PoolRow } from '../schema/rows/markets.js';
import { ZERO } from '../schema/rows/tokens.js';
import type { FundingEdge, Position, PositionVersion, WalletFirstSeen } from '../schema/rows/wallets.js';
import { NATIVE_ORD, stateKeys, transferOf, walletRows } from '../schema/stateless.js';
import { BLOCK_SWAP, POOL, SWAP } from '../schema/tables/markets.js';
import {
  ACTIVITY,
  ADDRESS,
  COHORT_CAND,
  COHORT_ID,
  COHORT_RULE_VERSION,
  cohortIdOf,
  DAILY,
  EDGE_IN,
  EDGE_OUT,
  FIRST_FUNDING,
  FIRST_SEEN,
  GENERATION,
  GENERATION_HIST,
  HOLDING,
  NATIVE_ASSET,
  POSITION,
  POSITION_HIST,
  WALLET_COHORT,
  WALLET_TRADE,
} from '../schema/tables/wallets.js';
import type { BlockBatch } from '../storage/index.js';

type Hex = `0x${string}`;
/** Addresses in this projection's rows and keys are lowercase 0x hex. */
const hx = asHex;
/** Rows (transactions, transfer events, trades, activity rows) per slice of a live commit. */
const SLICE_ROWS = 16;
/** Native transfer ordinals sort after every log index of the block. */

/** Which side of a pool is the quote for positions: the higher-priority quote asset, else currency1. */
function sidesOf(priority: ReadonlyMap<string, number>, p: PoolRow): { token: string; quote: string } {
  const p0 = priority.get(p.currency0);
  const p1 = priority.get(p.currency1);
  if (p0 !== undefined && (p1 === undefined || p0 < p1)) return { token: p.currency1, quote: p.currency0 };
  return { token: p.currency0, quote: p.currency1 };
}

/** A funding edge as the open batch holds it (written by the seal). */
interface EdgeTally {
  key: [Hex, Hex, Hex];
  edge: FundingEdge;
  /** The edge's total, base units (the row keeps it as a decimal string). */
  total: bigint;
  /** Its EDGE_OUT index row exists (stored, or written by an earlier seal of this batch). */
  indexed: boolean;
  /** Changed since the last seal. */
  dirty: boolean;
}

/**
 * What the projection keeps for an open batch (a history segment, or a live batch of one or more
 * blocks): rows known to exist — stored, or written by the batch — so a later block of the batch
 * asks nothing again, and the funding edges, counted per transfer and written once per seal.
 * Addresses are lowercase 0x hex of fixed width, so concatenated keys cannot collide.
 */
interface BatchMemo {
  /** Wallets with a FIRST_SEEN row. */
  seen: Set<string>;
  /** ADDRESS rows (first block as origin, creation, emitter) as the batch holds them. */
  addresses: Map<string, { origin?: number; created?: number; emitted?: number }>;
  /** wallet + token with a HOLDING row. */
  holdings: Set<string>;
  /** wallet + asset with a FIRST_FUNDING row. */
  firstFunding: Set<string>;
  /** wallet + funder + asset → the edge. */
  edges: Map<string, EdgeTally>;
  /** Edges changed since the last seal, in the order they were first changed (the seal's write order). */
  dirty: EdgeTally[];
}

const newMemo = (): BatchMemo => ({
  seen: new Set(),
  addresses: new Map(),
  holdings: new Set(),
  firstFunding: new Set(),
  edges: new Map(),
  dirty: [],
});

/**
 * Records that `funder` sent `value` (base units) of `asset` (null: native) to `w` in block `d`
 * at (txIndex, logIndex; null for native value): the wallet's first funding per asset (written at
 * once), and the funder edge (counted and totalled in `memo`; EDGE_IN and, when the edge appears,
 * its EDGE_OUT index row are written by the seal). Self-funding, the zero address and zero values
 * are not funding.
 */
function recordFunding(
  batch: BlockBatch,
  memo: BatchMemo,
  d: BlockDelta,
  w: string,
  funder: string,
  assetKind: 'native' | 'erc20',
  asset: string | null,
  value: bigint,
  txIndex: number,
  logIndex: number | null,
): void {
  if (funder === ZERO || w === funder || value === 0n) return;
  const a = asset ?? NATIVE_ASSET;
  const first = () => ({
    block: d.number,
    txIndex,
    logIndex,
    txHash: d.txs[txIndex].hash,
    value: value.toString(),
  });
  const fk = w + a;
  if (!memo.firstFunding.has(fk)) {
    memo.firstFunding.add(fk);
    if (!batch.has(FIRST_FUNDING, hx(w), hx(a)))
      batch.put(FIRST_FUNDING, [hx(w), hx(a)], { funder, assetKind, asset, ...first() });
  }
  const ek = w + funder + a;
  let e = memo.edges.get(ek);
  if (!e) {
    const key: [Hex, Hex, Hex] = [hx(w), hx(funder), hx(a)];
    const have = batch.get(EDGE_IN, ...key);
    e = {
      key,
      edge: have ?? { funder, assetKind, asset, first: first(), lastBlock: d.number, count: 0, total: '0' },
      total: BigInt(have?.total ?? '0'),
      indexed: have !== undefined,
      dirty: false,
    };
    memo.edges.set(ek, e);
  }
  e.edge.count++;
  e.edge.lastBlock = d.number;
  e.total += value;
  if (!e.dirty) memo.dirty.push(e);
  e.dirty = true;
}

/**
 * Writes the funding edges `memo` changed since the last seal: EDGE_IN once per edge, and the
 * EDGE_OUT index row of an edge that appeared, in the order the edges first changed. The memo stays
 * with the batch (a live batch of several blocks goes on after a block's seal).
 */
function* sealEdges(batch: BlockBatch, memo: BatchMemo): Generator<void, void, void> {
  const dirty = memo.dirty;
  memo.dirty = [];
  let rows = 0;
  for (const e of dirty) {
    if (++rows % SLICE_ROWS === 0) yield;
    e.edge.total = e.total.toString();
    batch.put(EDGE_IN, e.key, e.edge);
    // The edge by funder is an index row, written once when the edge appears.
    if (!e.indexed) batch.put(EDGE_OUT, [e.key[1], e.key[0], e.key[2]], null);
    e.indexed = true;
    e.dirty = false;
  }
}

/**
 * This block's swaps read back from the markets tables (a rebuild after markets, when the block
 * carries no derived swaps).
 * @throws Error when an indexed swap has no row or pool (the markets tables are inconsistent).
 */
function storedSwaps(
  batch: BlockBatch,
  d: BlockDelta,
): NonNullable<NonNullable<BlockDelta['derived']>['swaps']> {
  const found: NonNullable<NonNullable<BlockDelta['derived']>['swaps']> = [];
  batch.each(BLOCK_SWAP, { prefix: [d.number] }, (pk, [, logIndex]) => {
    const row = batch.get(SWAP, pk, d.number, logIndex);
    const pool = batch.get(POOL, pk);
    if (!row || !pool)
      throw new Error(`wallets rebuild: swap ${pk}/${d.number}/${logIndex} without its row or pool`);
    found.push({ poolKey: pk, row, pool });
  });
  return found;
}

/** A wallet's position in `token` against `quote` before its first trade, opened at `block`. */
const emptyPosition = (token: string, quote: string, block: number): Position => ({
  token,
  quote,
  qty: '0',
  cost: '0/1',
  realised: '0/1',
  buys: 0,
  sells: 0,
  boughtQty: '0',
  soldQty: '0',
  unexplainedSold: '0',
  firstBlock: block,
  lastBlock: block,
});

/** The stored version of a position (POSITION_HIST: wallet, token, quote and block are its key). */
const versionOf = (p: Position): PositionVersion => ({
  qty: p.qty,
  cost: p.cost,
  realised: p.realised,
  buys: p.buys,
  sells: p.sells,
  boughtQty: p.boughtQty,
  soldQty: p.soldQty,
  unexplainedSold: p.unexplainedSold,
  firstBlock: p.firstBlock,
});

/**
 * The first buy of `token` by `w` (trade `at` of block `d`): when the wallet has a first native
 * funder, `w` becomes a cohort candidate under it (COHORT_CAND, the token's GENERATION bumped,
 * WALLET_COHORT, and the cohort's id row once).
 */
function markCohortCandidate(
  batch: BlockBatch,
  d: BlockDelta,
  w: string,
  token: string,
  at: { txIndex: number; logIndex: number; txHash: string },
): void {
  const f = batch.get(FIRST_FUNDING, hx(w), NATIVE_ASSET);
  if (!f) return;
  const funder = hx(f.funder);
  if (batch.has(COHORT_CAND, hx(token), funder, hx(w))) return;
  batch.put(COHORT_CAND, [hx(token), funder, hx(w)], {
    block: d.number,
    txIndex: at.txIndex,
    logIndex: at.logIndex,
    txHash: at.txHash,
  });
  const generation = (batch.get(GENERATION, hx(token)) ?? 0) + 1;
  batch.put(GENERATION, [hx(token)], generation);
  // Versioned by block (the key carries this block's number: absent before it).
  batch.insert(GENERATION_HIST, [hx(token), d.number], generation);
  batch.put(WALLET_COHORT, [hx(w), hx(token), funder], null);
  const id = hx(`0x${cohortIdOf(token, funder, COHORT_RULE_VERSION)}`);
  if (!batch.has(COHORT_ID, id)) batch.put(COHORT_ID, [id], { token, funder });
}

/**
 * Applies one trade to `pos` in place at weighted-average cost: the trader received `gotToken`
 * and `gotQuote` (signed base units; a buy has gotToken > 0 and paid −gotQuote). A sell beyond
 * the held quantity realises only what is held; the excess is counted as unexplained. Returns the
 * realised PnL of the trade (exact rational, quote units; 0 on a buy).
 */
function tradePosition(pos: Position, gotToken: bigint, gotQuote: bigint): Rational {
  let qty = BigInt(pos.qty);
  let cost = ratParse(pos.cost);
  let realisedDelta = rational(0n, 1n);
  if (gotToken > 0n) {
    pos.buys++;
    pos.boughtQty = (BigInt(pos.boughtQty) + gotToken).toString();
    qty += gotToken;
    cost = add(cost, rational(-gotQuote, 1n));
  } else if (gotToken < 0n) {
    const sold = -gotToken;
    pos.sells++;
    pos.soldQty = (BigInt(pos.soldQty) + sold).toString();
    const covered = sold <= qty ? sold : qty;
    const excess = sold - covered;
    const costOut = qty > 0n ? rational(cost.n * covered, cost.d * qty) : rational(0n, 1n);
    realisedDelta = sub(rational(gotQuote, 1n), costOut);
    cost = sub(cost, costOut);
    qty -= covered;
    if (excess > 0n) pos.unexplainedSold = (BigInt(pos.unexplainedSold) + excess).toString();
  }
  pos.qty = qty.toString();
  pos.cost = ratStr(cost);
  pos.realised = ratStr(add(ratParse(pos.realised), realisedDelta));
  return realisedDelta;
}

/**
 * Applies swap `s` of block `d` to its origin wallet's position in `sides` (token against quote)
 * at weighted-average cost: the position and its version at this block, the wallet's first buy as
 * a cohort candidate, and the day's realised PnL (exact rational, quote base units).
 */
function applyTrade(
  batch: BlockBatch,
  d: BlockDelta,
  sides: { token: string; quote: string },
  s: NonNullable<NonNullable<BlockDelta['derived']>['swaps']>[number],
): void {
  const w = s.row.origin;
  const { token, quote } = sides;
  const tokenIs0 = s.pool.currency0 === token;
  // Pool perspective → trader perspective: the trader receives −amount.
  const gotToken = -BigInt(tokenIs0 ? s.row.amount0 : s.row.amount1);
  const gotQuote = -BigInt(tokenIs0 ? s.row.amount1 : s.row.amount0);
  const have = batch.get(POSITION, hx(w), hx(token), hx(quote));
  const pos: Position = have ? { ...have } : emptyPosition(token, quote, d.number);
  pos.lastBlock = d.number;
  // First buy of this token: a cohort candidate under the wallet's first native funder.
  if (gotToken > 0n && (!have || BigInt(have.boughtQty) === 0n))
    markCohortCandidate(batch, d, w, token, s.row);
  const realisedDelta = tradePosition(pos, gotToken, gotQuote);
  batch.put(POSITION, [hx(w), hx(token), hx(quote)], pos);
  // The position at the end of this block (a later trade of the block rewrites the same key).
  batch.insert(POSITION_HIST, [hx(w), hx(token), hx(quote), d.number], versionOf(pos));
  if (realisedDelta.n !== 0n) {
    const key: [Hex, Hex, Hex, number] = [hx(w), hx(token), hx(quote), Math.floor(d.timestamp / 86400)];
    const prev = batch.get(DAILY, ...key);
    batch.put(DAILY, key, ratStr(add(prev ? ratParse(prev) : rational(0n, 1n), realisedDelta)));
  }
}

/**
 * The wallets projection (see the module note); `quoteAssets` in priority order decide which side
 * of a pool a position is counted in.
 */
export function createWalletsProjection(deps: { quoteAssets: string[] }): Projection {
  const priority = new Map(deps.quoteAssets.map((a, i) => [a, i]));
  /** Per open batch (a dropped batch's memo goes with it). */
  const memos = new WeakMap<BlockBatch, BatchMemo>();

  /**
   * The block's writes, yielding every {@link SLICE_ROWS} transactions, transfer events, trades or
   * activity rows (a 150-transaction block would otherwise hold the thread for one long stage).
   */
  function* steps(batch: BlockBatch, d: BlockDelta): Generator<void, void, void> {
    // Stateless rows (transactions and transfers by wallet): encoded by the decode worker, or here.
    if (d.parts?.wallets) batch.addPart(d.parts.wallets);
    else walletRows(d, (t, key, value) => batch.insert(t, key, value));
    // The decode worker listed these keys (d.stateKeys) and ingest read them for the whole task
    // in one multi-get before the task's first block: listing them again here is wasted work.
    // Wallet-keyed state rows this block reads before writing (first sight, address flags,
    // holdings, funding), fetched in one multi-get: a 50-transfer block reads ~400 of them, and one
    // native call per key was the projection's main cost.
    if (!d.stateKeys) batch.prefetchKeys((add) => stateKeys(d, add));
    let rows = 0;
    // Activity parents of this block: (wallet, txIndex) → roles and child row references. Every
    // key of the ACTIVITY table carries this block's number, so rows are written once, at the end.
    const acts = new Map<
      string,
      { w: string; i: number; roles: number; transfers: Set<number>; trades: number[] }
    >();
    const act = (w: string, i: number) => {
      const id = `${w}:${i}`;
      let a = acts.get(id);
      if (!a) {
        a = { w, i, roles: 0, transfers: new Set(), trades: [] };
        acts.set(id, a);
      }
      return a;
    };
    let memo = memos.get(batch);
    if (!memo) memos.set(batch, (memo = newMemo()));
    const { seen, addresses, holdings } = memo;
    const firstSeen = (w: string, evidence: string, txIndex: number, logIndex: number | null) => {
      if (w === ZERO || seen.has(w)) return;
      seen.add(w);
      if (!batch.has(FIRST_SEEN, hx(w)))
        batch.put(FIRST_SEEN, [hx(w)], {
          block: d.number,
          txIndex,
          logIndex,
          txHash: d.txs[txIndex].hash,
          timestamp: d.timestamp,
          evidence,
        } as WalletFirstSeen);
    };
    const flag = (a: string, f: 'origin' | 'created' | 'emitted') => {
      let cur = addresses.get(a);
      if (!cur) {
        cur = batch.get(ADDRESS, hx(a)) ?? {};
        addresses.set(a, cur!);
      }
      if (cur![f] === undefined) {
        cur![f] = d.number;
        batch.put(ADDRESS, [hx(a)], cur!);
      }
    };

    // Transactions: origin and recipient; native value transfers; address observations.
    for (let i = 0; i < d.txs.length; i++) {
      if (++rows % SLICE_ROWS === 0) yield;
      const tx = d.txs[i];
      act(tx.from, i).roles |= 1;
      firstSeen(tx.from, 'transaction_origin', i, null);
      flag(tx.from, 'origin');
      if (tx.to && tx.to !== tx.from) act(tx.to, i).roles |= 2;
      if (tx.contractAddress && tx.status === 1) flag(tx.contractAddress, 'created');
      const value = BigInt(tx.value);
      if (tx.status === 1 && value > 0n && tx.to) {
        act(tx.from, i).transfers.add(NATIVE_ORD + i);
        act(tx.to, i).transfers.add(NATIVE_ORD + i);
        firstSeen(tx.to, 'incoming_native_transfer', i, null);
        recordFunding(batch, memo, d, tx.to, tx.from, 'native', null, value, i, null);
      }
    }
    for (const l of d.logs) flag(l.address, 'emitted');

    // ERC-20 transfers (and WETH deposits/withdrawals) by direction.
    for (const e of d.events) {
      if (++rows % SLICE_ROWS === 0) yield;
      const m = transferOf(e);
      if (!m) continue;
      const { from, to, value } = m;
      const holding = (w: string) => {
        const k = w + e.address;
        if (holdings.has(k)) return;
        holdings.add(k);
        if (!batch.has(HOLDING, hx(w), e.address)) batch.put(HOLDING, [hx(w), e.address], null);
      };
      if (from !== ZERO) {
        act(from, e.txIndex).transfers.add(e.logIndex);
        holding(from);
      }
      if (to !== ZERO) holding(to);
      if (to !== ZERO && to !== from) act(to, e.txIndex).transfers.add(e.logIndex);
      if (to !== ZERO) firstSeen(to, 'incoming_token_transfer', e.txIndex, e.logIndex);
      recordFunding(batch, memo, d, to, from, 'erc20', e.address, value, e.txIndex, e.logIndex);
    }

    // Trades: the wallet is the transaction origin. Positions at weighted-average cost.
    const swaps = d.derived?.swaps ?? storedSwaps(batch, d);
    for (const s of swaps) {
      if (++rows % SLICE_ROWS === 0) yield;
      const w = s.row.origin;
      batch.put(WALLET_TRADE, [hx(w), d.number, s.row.logIndex], hx(s.poolKey));
      act(w, s.row.txIndex).trades.push(s.row.logIndex);
      applyTrade(batch, d, sidesOf(priority, s.pool), s);
    }

    // Keys carry this block's number, so they are absent before it: insert (no prior read).
    for (const a of acts.values()) {
      if (++rows % SLICE_ROWS === 0) yield;
      const transfers = [...a.transfers].sort((x, y) => x - y);
      const trades = [...new Set(a.trades)].sort((x, y) => x - y);
      batch.insert(ACTIVITY, [hx(a.w), d.number, a.i], { roles: a.roles, transfers, trades });
    }
  }

  function* seal(batch: BlockBatch): Generator<void, void, void> {
    const memo = memos.get(batch);
    if (memo) yield* sealEdges(batch, memo);
  }

  return {
    ...projectionIdentity(PROJECTION_IDENTITIES.wallets),
    apply: (batch, d) => {
      drain(steps(batch, d));
      drain(seal(batch));
    },
    steps,
    seal,
  };
}
