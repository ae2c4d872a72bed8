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
import type { BlockDelta, EventDelta } from '../ingest/delta.js';
import type { Emit, Projection } from '../projections/index.js';
import type { BlockBatch } from '../storage/index.js';
import type { LaunchpadDeployments } from '../tokens/launchpads.js';
import type { MarketsConfig } from './config.js';
import { type BlockTrades, writeWindowState } from './cumulative.js';
import { createFirstSight, type FirstSightOutcome, marketSeedsOf } from './first-sight.js';
import {
  type CandleRow,
  FRAME_IDS,
  FRAMES,
  type Frame,
  type PoolRow,
  type PoolState,
  type Protocol,
  type SwapRow,
} from './model.js';
import { cmp, fromSqrtPriceX96, type Rational, rational, ratParse, ratStr } from './rational.js';
import {
  blockSwapKey,
  candleKey,
  liqKey,
  poolByAddressKey,
  poolByCoordKey,
  poolByCurrencyKey,
  poolKey,
  poolKeyOf,
  stateHistKey,
  stateKey,
  swapKey,
  tokenSwapKey,
} from './tables.js';

const EMPTY = Buffer.alloc(0);
const NATIVE = '0x0000000000000000000000000000000000000000';
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const abs = (x: bigint) => (x < 0n ? -x : x);
const s = (v: unknown) => String(v);

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

  const apply = (batch: BlockBatch, d: BlockDelta, emit?: Emit) => {
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
        st = v
          ? (JSON.parse(v.toString()) as PoolState)
          : {
              reserve0: null,
              reserve1: null,
              sqrtPriceX96: null,
              tick: null,
              liquidity: null,
              price: null,
              swaps: 0,
              lastSwapBlock: null,
            };
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
          keys: {
            tokens: [pl.currency0, pl.currency1],
            pools: [selectorOf(pl)],
            wallets: [row.origin, row.sender ?? '', row.recipient ?? ''].filter(Boolean),
            launchpads: padOf(pl),
          },
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
        keys: {
          tokens: [pl.currency0, pl.currency1],
          pools: [selectorOf(pl)],
          wallets: [row.origin],
          launchpads: padOf(pl),
        },
      });
    };

    // Pools of configured factories first seen in this block (late START_BLOCK): registered at their
    // first event with the state seeded at the block before; this block's events apply on top.
    for (const p of marketSeedsOf(batch, d)?.pools ?? []) {
      register(p, p.row);
      states.set(p.row.key, { ...p.state });
    }

    for (const e of d.events) {
      const a = e.args;
      switch (e.standard) {
        case 'uniswap_v2_factory':
          if (e.event === 'PairCreated' && v2.has(e.address)) {
            const addr = s(a.pair).toLowerCase();
            register(e, {
              key: poolKeyOf('v2', addr),
              protocol: 'v2',
              contract: addr,
              poolId: null,
              currency0: s(a.token0),
              currency1: s(a.token1),
              fee: 3000,
              tickSpacing: null,
              hooks: null,
              factory: e.address,
            });
          }
          break;
        case 'uniswap_v3_factory':
          if (e.event === 'PoolCreated' && v3.has(e.address)) {
            const addr = s(a.pool).toLowerCase();
            register(e, {
              key: poolKeyOf('v3', addr),
              protocol: 'v3',
              contract: addr,
              poolId: null,
              currency0: s(a.token0),
              currency1: s(a.token1),
              fee: Number(a.fee),
              tickSpacing: Number(a.tickSpacing),
              hooks: null,
              factory: e.address,
            });
          }
          break;
        case 'uniswap_v4_pool_manager': {
          if (!v4.has(e.address)) break;
          const k = poolKeyOf('v4', e.address, s(a.id));
          if (e.event === 'Initialize') {
            register(e, {
              key: k,
              protocol: 'v4',
              contract: e.address,
              poolId: s(a.id),
              currency0: s(a.currency0),
              currency1: s(a.currency1),
              fee: Number(a.fee),
              tickSpacing: Number(a.tickSpacing),
              hooks: s(a.hooks),
              factory: e.address,
            });
            const st = state(k);
            st.sqrtPriceX96 = s(a.sqrtPriceX96);
            st.tick = Number(a.tick);
            st.liquidity = '0';
            st.price = ratStr(fromSqrtPriceX96(BigInt(st.sqrtPriceX96)));
          } else if (e.event === 'Swap' && pool(k)) {
            const st = state(k);
            st.sqrtPriceX96 = s(a.sqrtPriceX96);
            st.tick = Number(a.tick);
            st.liquidity = s(a.liquidity);
            const price = fromSqrtPriceX96(BigInt(st.sqrtPriceX96));
            st.price = ratStr(price);
            // V4 reports the swapper's deltas; negate for pool perspective.
            recordSwap(k, e, -BigInt(s(a.amount0)), -BigInt(s(a.amount1)), price, {
              sender: s(a.sender),
              recipient: null,
              tick: st.tick,
              sqrtPriceX96: st.sqrtPriceX96,
            });
          } else if (e.event === 'ModifyLiquidity' && pool(k)) {
            const st = state(k);
            const delta = BigInt(s(a.liquidityDelta));
            if (inRange(st, Number(a.tickLower), Number(a.tickUpper)))
              st.liquidity = (BigInt(st.liquidity ?? '0') + delta).toString();
            liqEvent(k, e, delta >= 0n ? 'add' : 'remove', {
              sender: s(a.sender),
              tickLower: Number(a.tickLower),
              tickUpper: Number(a.tickUpper),
              liquidityDelta: delta.toString(),
              salt: s(a.salt),
            });
          }
          break;
        }
        case 'uniswap_v2_pair': {
          const k = keyOfAddress(e.address);
          if (!k || pool(k)?.protocol !== 'v2') break;
          const st = state(k);
          if (e.event === 'Sync') {
            st.reserve0 = s(a.reserve0);
            st.reserve1 = s(a.reserve1);
            st.price =
              BigInt(st.reserve0) > 0n ? ratStr(rational(BigInt(st.reserve1), BigInt(st.reserve0))) : null;
          } else if (e.event === 'Swap' && st.price) {
            const a0 = BigInt(s(a.amount0In)) - BigInt(s(a.amount0Out));
            const a1 = BigInt(s(a.amount1In)) - BigInt(s(a.amount1Out));
            recordSwap(k, e, a0, a1, ratParse(st.price), { sender: s(a.sender), recipient: s(a.to) });
          } else if (e.event === 'Mint' || e.event === 'Burn') {
            liqEvent(k, e, e.event === 'Mint' ? 'add' : 'remove', {
              sender: s(a.sender),
              amount0: s(a.amount0),
              amount1: s(a.amount1),
              to: a.to ? s(a.to) : null,
            });
          }
          break;
        }
        case 'uniswap_v3_pool': {
          const k = keyOfAddress(e.address);
          if (!k || pool(k)?.protocol !== 'v3') break;
          const st = state(k);
          if (e.event === 'Initialize') {
            st.sqrtPriceX96 = s(a.sqrtPriceX96);
            st.tick = Number(a.tick);
            st.liquidity ??= '0';
            st.price = ratStr(fromSqrtPriceX96(BigInt(st.sqrtPriceX96)));
          } else if (e.event === 'Swap') {
            st.sqrtPriceX96 = s(a.sqrtPriceX96);
            st.tick = Number(a.tick);
            st.liquidity = s(a.liquidity);
            const price = fromSqrtPriceX96(BigInt(st.sqrtPriceX96));
            st.price = ratStr(price);
            recordSwap(k, e, BigInt(s(a.amount0)), BigInt(s(a.amount1)), price, {
              sender: s(a.sender),
              recipient: s(a.recipient),
              tick: st.tick,
              sqrtPriceX96: st.sqrtPriceX96,
            });
          } else if (e.event === 'Mint' || e.event === 'Burn') {
            const amount = BigInt(s(a.amount));
            if (inRange(st, Number(a.tickLower), Number(a.tickUpper))) {
              st.liquidity = (
                BigInt(st.liquidity ?? '0') + (e.event === 'Mint' ? amount : -amount)
              ).toString();
            }
            liqEvent(k, e, e.event === 'Mint' ? 'add' : 'remove', {
              owner: s(a.owner),
              tickLower: Number(a.tickLower),
              tickUpper: Number(a.tickUpper),
              liquidity: amount.toString(),
              amount0: s(a.amount0),
              amount1: s(a.amount1),
            });
          } else if (e.event === 'Collect') {
            liqEvent(k, e, 'collect', {
              owner: s(a.owner),
              recipient: s(a.recipient),
              tickLower: Number(a.tickLower),
              tickUpper: Number(a.tickUpper),
              amount0: s(a.amount0),
              amount1: s(a.amount1),
            });
          }
          break;
        }
        case 'launchpad': {
          const curve = curves.get(e.address);
          if (!curve) break;
          const token = s(a.token);
          const k = poolKeyOf('launchpad', curve, token);
          if (e.event === 'LaunchCreated') {
            register(e, {
              key: k,
              protocol: 'launchpad' as Protocol,
              contract: curve,
              poolId: null,
              currency0: token,
              currency1: NATIVE,
              fee: null,
              tickSpacing: null,
              hooks: null,
              factory: e.address,
            });
          } else if (e.event === 'CurveTrade' && pool(k)) {
            const st = state(k);
            st.reserve0 = s(a.tokenReserve);
            st.reserve1 = s(a.ethReserve);
            const r0 = BigInt(st.reserve0);
            if (r0 === 0n) break;
            const price = rational(BigInt(st.reserve1), r0);
            st.price = ratStr(price);
            const tok = BigInt(s(a.tokenAmount));
            const eth = BigInt(s(a.ethAmount));
            const buy = a.isBuy === true || a.isBuy === 'true';
            recordSwap(k, e, buy ? -tok : tok, buy ? eth : -eth, price, {
              sender: s(a.trader),
              recipient: s(a.trader),
            });
          }
          break;
        }
      }
    }

    for (const [k, st] of states) {
      const v = json(st);
      batch.putRaw(stateKey(k), v);
      batch.putRaw(stateHistKey(k, d.number), v);
    }
    for (const [id, c] of candles) {
      const [k, frame] = id.split(':') as [string, Frame];
      batch.putRaw(candleKey(k, FRAME_IDS[frame], c.t), json(c));
    }
    writeWindowState(batch, d.number, d.timestamp, blockTrades);
  };

  return {
    name: 'markets',
    // 2: candle first/last trade coordinates; token swap index. 3: block swap index. 4: buy volumes in candles.
    // 5: pools first seen after START_BLOCK registered (verified, seeded); provenance on every pool row.
    // 6: window state at ingest (running totals per pool and block, minute → first block, last swap per origin).
    version: 6,
    backs: ['Pools', 'Tokens (market routes)'],
    apply,
    prepare: (d, ctx) => firstSight.gather(d, ctx.store, ctx.rpc),
  };
}
