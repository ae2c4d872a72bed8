/**
 * One block's working state in the markets projection: the pools, states and candles it touched,
 * its trades for the window state, and the helpers every event family uses (registration, swaps,
 * liquidity events). `finish` writes what the block changed.
 */

import type { Emit } from '../../projections/index.js';
import { asHex } from '../../schema/codec.js';
import type { BlockDelta, EventDelta } from '../../schema/delta.js';
import {
  type CandleRow,
  emptyPoolState,
  FRAME_IDS,
  FRAMES,
  type Frame,
  type LiquidityEventRow,
  type PoolRow,
  type PoolState,
  type SwapRow,
} from '../../schema/rows/markets.js';
import {
  BLOCK_SWAP,
  CANDLE,
  LIQ_EVENT,
  POOL,
  POOL_BY_ADDRESS,
  POOL_BY_COORD,
  POOL_BY_CURRENCY,
  STATE,
  STATE_HIST,
  SWAP,
  TOKEN_SWAP,
} from '../../schema/tables/markets.js';
import type { BlockBatch } from '../../storage/index.js';
import { type BlockTrades, writeWindowState } from '../cumulative.js';
import { cmp, type Rational, ratParse, ratStr } from '../rational.js';

/** Pool keys, addresses and currencies of this projection are lowercase 0x hex. */
const hx = asHex;
const abs = (x: bigint) => (x < 0n ? -x : x);

/**
 * The pool key of the pool contract that emitted `e` when it is a known pool of `protocol`, else
 * null (an event of another contract or protocol is not this family's).
 */
export function emittingPool(c: BlockCtx, e: EventDelta, protocol: PoolRow['protocol']): string | null {
  const k = c.keyOfAddress(e.address);
  return k && c.pool(k)?.protocol === protocol ? k : null;
}

/** The helpers of one block (see the module note). */
export interface BlockCtx {
  /** The pool row (this block's registrations included), null when unknown. */
  pool(k: string): PoolRow | null;
  /** The pool key of a v2/v3 pool contract. */
  keyOfAddress(a: string): string | null;
  /** The pool's state, read once and written by `finish`. */
  state(k: string): PoolState;
  /** Registers a pool at coordinate `at` (its creation event, or its first sight). */
  register(at: { txIndex: number; logIndex: number }, row: Omit<PoolRow, 'created' | 'createdAt'>): void;
  /** Records a swap in pool perspective (signed base units, price after the swap). */
  recordSwap(
    k: string,
    e: EventDelta,
    a0: bigint,
    a1: bigint,
    price: Rational,
    extra: Partial<SwapRow>,
  ): void;
  /** Records a liquidity event of pool `k`. */
  liqEvent(k: string, e: EventDelta, kind: string, fields: Record<string, unknown>): void;
  /** Whether the pool's current tick lies in [lower, upper). */
  inRange(st: PoolState, lower: number, upper: number): boolean;
  /** Seeds a pool's state (first sight). */
  seedState(k: string, st: PoolState): void;
  /** Writes the block's states, candles and window state into the batch. */
  finish(): void;
}

/** Stream selector of a pool: `0x<contract>`, or V4 `0x<manager>:0x<poolId>`. */
const selectorOf = (p: PoolRow) => (p.protocol === 'v4' ? `${p.contract}:${p.poolId}` : p.contract);

/**
 * Stream selector keys of an event of pool `p` involving `wallets`; `padNames` maps a launchpad
 * factory to its name.
 */
const poolEventKeys = (p: PoolRow, wallets: string[], padNames: ReadonlyMap<string, string>) => ({
  tokens: [p.currency0, p.currency1],
  pools: [selectorOf(p)],
  wallets,
  launchpads: p.protocol === 'launchpad' ? [padNames.get(p.factory) ?? ''] : [],
});

/** Whether the pool's current tick lies in [lower, upper). */
const inRange = (st: PoolState, lower: number, upper: number) =>
  st.tick !== null && lower <= st.tick && st.tick < upper;

/**
 * The stored row of a pool registered in block `d` at coordinate `created`; without a
 * provenance of its own it was found by its factory event.
 */
function registeredRow(
  row: Omit<PoolRow, 'created' | 'createdAt'>,
  created: PoolRow['created'],
  d: BlockDelta,
): PoolRow {
  return {
    ...row,
    created,
    createdAt: d.timestamp,
    provenance: row.provenance ?? {
      discovery: 'factory_event',
      verifiedAtBlock: d.number,
      seededAtBlock: null,
      creation: created,
    },
  };
}

/** The swap row of event `e` of block `d`: signed base units `a0`/`a1`, `price` after the swap. */
function swapRow(
  d: BlockDelta,
  e: EventDelta,
  a0: bigint,
  a1: bigint,
  price: Rational,
  extra: Partial<SwapRow>,
): SwapRow {
  return {
    block: d.number,
    timestamp: d.timestamp,
    txIndex: e.txIndex,
    logIndex: e.logIndex,
    txHash: d.txs[e.txIndex].hash,
    origin: d.txs[e.txIndex].from,
    sender: extra.sender ?? null,
    recipient: extra.recipient ?? null,
    amount0: a0.toString(),
    amount1: a1.toString(),
    price: ratStr(price),
    side: a0 < 0n ? 'buy' : 'sell',
    tick: extra.tick ?? null,
    sqrtPriceX96: extra.sqrtPriceX96 ?? null,
  };
}

/** The `amm_events` stream payload of swap `row` of pool `k` (row `pl`). */
const swapEventJson = (k: string, pl: PoolRow, row: SwapRow) =>
  JSON.stringify({
    kind: 'swap',
    pool: k,
    protocol: pl.protocol,
    contract: pl.contract,
    poolId: pl.poolId,
    currency0: pl.currency0,
    currency1: pl.currency1,
    transactionHash: row.txHash,
    ...row,
  });

/** The `amm_events` stream payload of liquidity event `row` of pool `k` (row `pl`). */
const liquidityEventJson = (k: string, pl: PoolRow, row: { txHash: string }) =>
  JSON.stringify({
    pool: k,
    protocol: pl.protocol,
    currency0: pl.currency0,
    currency1: pl.currency1,
    transactionHash: row.txHash,
    ...row,
  });

/** The candle opened at `t` (seconds) by swap `row` at price `p` (its string), amounts `a0`/`a1`. */
function newCandle(t: number, row: SwapRow, p: string, a0: bigint, a1: bigint): CandleRow {
  return {
    t,
    open: p,
    high: p,
    low: p,
    close: p,
    volume0: abs(a0).toString(),
    volume1: abs(a1).toString(),
    trades: 1,
    buys: row.side === 'buy' ? 1 : 0,
    sells: row.side === 'sell' ? 1 : 0,
    buyVolume0: row.side === 'buy' ? abs(a0).toString() : '0',
    buyVolume1: row.side === 'buy' ? abs(a1).toString() : '0',
    first: [row.block, row.logIndex],
    last: [row.block, row.logIndex],
  };
}

/** Folds swap `row` (price `price`, its string `p`, amounts `a0`/`a1`) into candle `c` in place. */
function foldCandle(c: CandleRow, row: SwapRow, price: Rational, p: string, a0: bigint, a1: bigint): void {
  c.last = [row.block, row.logIndex];
  if (cmp(price, ratParse(c.high)) > 0) c.high = p;
  if (cmp(price, ratParse(c.low)) < 0) c.low = p;
  c.close = p;
  c.volume0 = (BigInt(c.volume0) + abs(a0)).toString();
  c.volume1 = (BigInt(c.volume1) + abs(a1)).toString();
  c.trades++;
  if (row.side === 'buy') {
    c.buys++;
    c.buyVolume0 = (BigInt(c.buyVolume0) + abs(a0)).toString();
    c.buyVolume1 = (BigInt(c.buyVolume1) + abs(a1)).toString();
  } else c.sells++;
}

/** The swap's index rows: by block, and by each of the pool's currencies. */
function indexSwap(batch: BlockBatch, n: number, logIndex: number, k: string, pr: PoolRow): void {
  batch.put(BLOCK_SWAP, [n, logIndex], hx(k));
  batch.put(TOKEN_SWAP, [hx(pr.currency0), n, logIndex], hx(k));
  if (pr.currency1 !== pr.currency0) batch.put(TOKEN_SWAP, [hx(pr.currency1), n, logIndex], hx(k));
}

/**
 * Folds a trade at `price` (`p`: its text) into the pool's running extremes, strictly beyond: the
 * first day (unix seconds, UTC day start) a price was reached stays its day.
 */
function foldExtremes(st: PoolState, price: Parameters<typeof cmp>[0], p: string, timestamp: number): void {
  const day = Math.floor(timestamp / FRAMES['1d']) * FRAMES['1d'];
  if (!st.high || cmp(price, ratParse(st.high.price)) > 0) st.high = { price: p, day };
  if (!st.low || cmp(price, ratParse(st.low.price)) < 0) st.low = { price: p, day };
}

/**
 * Opens block `d` over `batch`; `padNames` maps a launchpad factory to its name (stream keys).
 * The block's helper closures share its state (the maps below); what needs none of it (rows,
 * payloads, candle arithmetic) is the pure functions above.
 */
export function openBlock(
  batch: BlockBatch,
  d: BlockDelta,
  emit: Emit | undefined,
  padNames: ReadonlyMap<string, string>,
): BlockCtx {
  // This block's swaps are known from here on (none yet): the wallets projection, after this one
  // in the same batch, takes them from here instead of walking the stored ones (a range read per
  // block — of nothing, on a chain without swaps).
  (d.derived ??= {}).swaps = [];
  const states = new Map<string, PoolState>();
  const candles = new Map<string, CandleRow>();
  const pools = new Map<string, PoolRow | null>();
  const blockTrades: BlockTrades = new Map();

  const pool = (k: string): PoolRow | null => {
    if (!pools.has(k)) {
      pools.set(k, batch.get(POOL, hx(k)) ?? null);
    }
    return pools.get(k)!;
  };
  const keyOfAddress = (a: string): string | null => {
    return batch.get(POOL_BY_ADDRESS, hx(a)) ?? null;
  };
  const state = (k: string): PoolState => {
    let st = states.get(k);
    if (!st) {
      st = batch.get(STATE, hx(k)) ?? emptyPoolState();
      states.set(k, st);
    }
    return st;
  };
  const coord = (e: { txIndex: number; logIndex: number }) => ({
    block: d.number,
    txIndex: e.txIndex,
    logIndex: e.logIndex,
    txHash: d.txs[e.txIndex].hash,
  });

  /**
   * Registers a pool at coordinate `at` (its factory event, or its first observed event when it
   * was found at first sight: `row.provenance` then says so).
   */
  const register = (
    at: { txIndex: number; logIndex: number },
    row: Omit<PoolRow, 'created' | 'createdAt'>,
  ) => {
    if (pool(row.key)) return;
    const created = coord(at);
    const full = registeredRow(row, created, d);
    pools.set(row.key, full);
    const key = hx(row.key);
    batch.put(POOL, [key], full);
    batch.put(POOL_BY_COORD, [d.number, at.logIndex, key], null);
    batch.put(POOL_BY_CURRENCY, [hx(row.currency0), key], null);
    if (row.currency1 !== row.currency0) batch.put(POOL_BY_CURRENCY, [hx(row.currency1), key], null);
    if (row.protocol === 'v2' || row.protocol === 'v3') batch.put(POOL_BY_ADDRESS, [hx(row.contract)], key);
    emit?.({
      topic: 'pools',
      event: 'pool_new',
      json: JSON.stringify(full),
      keys: { tokens: [row.currency0, row.currency1], pools: [selectorOf(full)] },
    });
  };

  const candle = (k: string, frame: Frame, t: number): CandleRow => {
    const id = `${k}:${frame}:${t}`;
    let c = candles.get(id);
    if (!c) {
      c = batch.get(CANDLE, hx(k), FRAME_IDS[frame], t);
      if (c) candles.set(id, c);
    }
    return c as CandleRow;
  };

  const recordSwap: BlockCtx['recordSwap'] = (k, e, a0, a1, price, extra) => {
    const st = state(k);
    st.swaps++;
    st.lastSwapBlock = d.number;
    const row = swapRow(d, e, a0, a1, price, extra);
    batch.put(SWAP, [hx(k), d.number, e.logIndex], row);
    if (emit) {
      const pl = pool(k)!;
      emit({
        topic: 'amm_events',
        event: 'swap',
        json: swapEventJson(k, pl, row),
        keys: poolEventKeys(
          pl,
          [row.origin, row.sender ?? '', row.recipient ?? ''].filter(Boolean),
          padNames,
        ),
      });
    }
    const pr = pool(k)!;
    ((d.derived ??= {}).swaps ??= []).push({ poolKey: k, row, pool: pr });
    indexSwap(batch, d.number, e.logIndex, k, pr);
    const p = ratStr(price);
    foldExtremes(st, price, p, d.timestamp);
    let traded = blockTrades.get(k);
    if (!traded) blockTrades.set(k, (traded = []));
    traded.push({ abs0: abs(a0), abs1: abs(a1), buy: row.side === 'buy', price: p, origin: row.origin });
    for (const [frame, width] of Object.entries(FRAMES) as Array<[Frame, number]>) {
      const t = Math.floor(d.timestamp / width) * width;
      const id = `${k}:${frame}:${t}`;
      const c = candle(k, frame, t);
      if (!c) candles.set(id, newCandle(t, row, p, a0, a1));
      else foldCandle(c, row, price, p, a0, a1);
    }
  };

  const liqEvent = (k: string, e: EventDelta, kind: string, fields: Record<string, unknown>) => {
    const row = { kind, ...coord(e), origin: d.txs[e.txIndex].from, ...fields };
    batch.put(LIQ_EVENT, [hx(k), d.number, e.logIndex], row as LiquidityEventRow);
    const pl = pool(k)!;
    emit?.({
      topic: 'amm_events',
      event: 'liquidity',
      json: liquidityEventJson(k, pl, row),
      keys: poolEventKeys(pl, [row.origin], padNames),
    });
  };

  return {
    pool,
    keyOfAddress,
    state,
    register,
    recordSwap,
    liqEvent,
    inRange,
    seedState: (k, st) => {
      states.set(k, { ...st });
    },
    finish() {
      for (const [k, st] of states) {
        batch.put(STATE, [hx(k)], st);
        batch.put(STATE_HIST, [hx(k), d.number], st);
      }
      for (const [id, c] of candles) {
        const [k, frame] = id.split(':') as [string, Frame];
        batch.put(CANDLE, [hx(k), FRAME_IDS[frame], c.t], c);
      }
      writeWindowState(batch, d.number, d.timestamp, blockTrades, (k) => {
        const p = pool(k);
        return p ? [p.currency0, p.currency1] : [];
      });
    },
  };
}
