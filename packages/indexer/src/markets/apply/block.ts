/**
 * One block's working state in the markets projection: the pools, states and candles it touched,
 * its trades for the window state, and the helpers every event family uses (registration, swaps,
 * liquidity events). `finish` writes what the block changed.
 */
import type { BlockDelta, EventDelta } from '../../ingest/delta.js';
import type { Emit } from '../../projections/index.js';
import type { BlockBatch } from '../../storage/index.js';
import { type BlockTrades, writeWindowState } from '../cumulative.js';
import {
  type CandleRow,
  emptyPoolState,
  FRAME_IDS,
  FRAMES,
  type Frame,
  type PoolRow,
  type PoolState,
  type SwapRow,
} from '../model.js';
import { cmp, type Rational, ratParse, ratStr } from '../rational.js';
import {
  blockSwapKey,
  candleKey,
  liqKey,
  poolByAddressKey,
  poolByCoordKey,
  poolByCurrencyKey,
  poolKey,
  stateHistKey,
  stateKey,
  swapKey,
  tokenSwapKey,
} from '../tables.js';

const EMPTY = Buffer.alloc(0);
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const abs = (x: bigint) => (x < 0n ? -x : x);

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

/**
 * Opens block `d` over `batch`; `padNames` maps a launchpad factory to its name (stream keys).
 * Long by construction: it only defines the block's small helper closures over one shared state
 * (the maps below), each a few lines, and returns them.
 */
export function openBlock(
  batch: BlockBatch,
  d: BlockDelta,
  emit: Emit | undefined,
  padNames: ReadonlyMap<string, string>,
): BlockCtx {
  if (d.derived) d.derived.swaps = [];
  const states = new Map<string, PoolState>();
  const candles = new Map<string, CandleRow>();
  const pools = new Map<string, PoolRow | null>();
  const blockTrades: BlockTrades = new Map();

  const pool = (k: string): PoolRow | null => {
    if (!pools.has(k)) {
      const v = batch.getRaw(poolKey(k));
      pools.set(k, v ? (JSON.parse(v.toString()) as PoolRow) : null);
    }
    return pools.get(k)!;
  };
  const keyOfAddress = (a: string): string | null => {
    const v = batch.getRaw(poolByAddressKey(a));
    return v ? `0x${v.toString('hex')}` : null;
  };
  const state = (k: string): PoolState => {
    let st = states.get(k);
    if (!st) {
      const v = batch.getRaw(stateKey(k));
      st = v ? (JSON.parse(v.toString()) as PoolState) : emptyPoolState();
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
    const full: PoolRow = {
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
    pools.set(row.key, full);
    batch.putRaw(poolKey(row.key), json(full));
    batch.putRaw(poolByCoordKey(d.number, at.logIndex, row.key), EMPTY);
    batch.putRaw(poolByCurrencyKey(row.currency0, row.key), EMPTY);
    if (row.currency1 !== row.currency0) batch.putRaw(poolByCurrencyKey(row.currency1, row.key), EMPTY);
    if (row.protocol === 'v2' || row.protocol === 'v3')
      batch.putRaw(poolByAddressKey(row.contract), Buffer.from(row.key.slice(2), 'hex'));
    emit?.({
      topic: 'pools',
      event: 'pool_new',
      json: JSON.stringify(full),
      keys: { tokens: [row.currency0, row.currency1], pools: [selectorOf(full)] },
    });
  };
  /** Stream selector of a pool: `0x<contract>`, or V4 `0x<manager>:0x<poolId>`. */
  const selectorOf = (p: PoolRow) => (p.protocol === 'v4' ? `${p.contract}:${p.poolId}` : p.contract);
  const padOf = (p: PoolRow) => (p.protocol === 'launchpad' ? [padNames.get(p.factory) ?? ''] : []);
  /** Stream selector keys of an event of pool `p` involving `wallets`. */
  const poolEventKeys = (p: PoolRow, wallets: string[]) => ({
    tokens: [p.currency0, p.currency1],
    pools: [selectorOf(p)],
    wallets,
    launchpads: padOf(p),
  });

  const candle = (k: string, frame: Frame, t: number): CandleRow => {
    const id = `${k}:${frame}:${t}`;
    let c = candles.get(id);
    if (!c) {
      const v = batch.getRaw(candleKey(k, FRAME_IDS[frame], t));
      c = v ? (JSON.parse(v.toString()) as CandleRow) : undefined;
      if (c) candles.set(id, c);
    }
    return c as CandleRow;
  };

  const recordSwap = (
    k: string,
    e: EventDelta,
    a0: bigint,
    a1: bigint,
    price: Rational,
    extra: Partial<SwapRow>,
  ) => {
    const st = state(k);
    st.swaps++;
    st.lastSwapBlock = d.number;
    const row: SwapRow = {
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
    batch.putRaw(swapKey(k, d.number, e.logIndex), json(row));
    if (emit) {
      const pl = pool(k)!;
      emit({
        topic: 'amm_events',
        event: 'swap',
        json: JSON.stringify({
          kind: 'swap',
          pool: k,
          protocol: pl.protocol,
          contract: pl.contract,
          poolId: pl.poolId,
          currency0: pl.currency0,
          currency1: pl.currency1,
          transactionHash: row.txHash,
          ...row,
        }),
        keys: poolEventKeys(pl, [row.origin, row.sender ?? '', row.recipient ?? ''].filter(Boolean)),
      });
    }
    const pr = pool(k)!;
    const kb = Buffer.from(k.slice(2), 'hex');
    batch.putRaw(blockSwapKey(d.number, e.logIndex), kb);
    ((d.derived ??= {}).swaps ??= []).push({ poolKey: k, row, pool: pr });
    batch.putRaw(tokenSwapKey(pr.currency0, d.number, e.logIndex), kb);
    if (pr.currency1 !== pr.currency0) batch.putRaw(tokenSwapKey(pr.currency1, d.number, e.logIndex), kb);
    const p = ratStr(price);
    let traded = blockTrades.get(k);
    if (!traded) blockTrades.set(k, (traded = []));
    traded.push({ abs0: abs(a0), abs1: abs(a1), buy: row.side === 'buy', price: p, origin: row.origin });
    for (const [frame, width] of Object.entries(FRAMES) as Array<[Frame, number]>) {
      const t = Math.floor(d.timestamp / width) * width;
      const id = `${k}:${frame}:${t}`;
      const c = candle(k, frame, t);
      if (!c) {
        candles.set(id, {
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
          first: [d.number, e.logIndex],
          last: [d.number, e.logIndex],
        });
        continue;
      }
      c.last = [d.number, e.logIndex];
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
  };

  const inRange = (st: PoolState, lower: number, upper: number) =>
    st.tick !== null && lower <= st.tick && st.tick < upper;
  const liqEvent = (k: string, e: EventDelta, kind: string, fields: Record<string, unknown>) => {
    const row = { kind, ...coord(e), origin: d.txs[e.txIndex].from, ...fields };
    batch.putRaw(liqKey(k, d.number, e.logIndex), json(row));
    const pl = pool(k)!;
    emit?.({
      topic: 'amm_events',
      event: 'liquidity',
      json: JSON.stringify({
        pool: k,
        protocol: pl.protocol,
        currency0: pl.currency0,
        currency1: pl.currency1,
        transactionHash: row.txHash,
        ...row,
      }),
      keys: poolEventKeys(pl, [row.origin]),
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
        const v = json(st);
        batch.putRaw(stateKey(k), v);
        batch.putRaw(stateHistKey(k, d.number), v);
      }
      for (const [id, c] of candles) {
        const [k, frame] = id.split(':') as [string, Frame];
        batch.putRaw(candleKey(k, FRAME_IDS[frame], c.t), json(c));
      }
      writeWindowState(batch, d.number, d.timestamp, blockTrades, (k) => {
        const p = pool(k);
        return p ? [p.currency0, p.currency1] : [];
      });
      writeWindowState(batch, d.number, d.timestamp, blockTrades, (k) => {
        const p = pool(k);
        return p ? [p.currency0, p.currency1] : [];
      });
    },
  };
}
