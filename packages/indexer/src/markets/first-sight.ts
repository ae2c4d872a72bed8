/**
 * Pools first seen after START_BLOCK. A chain indexed from a late start block sees pools of the
 * configured factories whose creation event predates the indexed range. Such a pool is registered
 * at its first observed event (V2 Sync/Swap/Mint/Burn; V3 Initialize/Swap/Mint/Burn/Collect; V4
 * Swap/ModifyLiquidity/Donate on a configured PoolManager) once it is verified against its factory
 * at that block — V2 `factory()` configured and `getPair(token0, token1)` = the pool; V3 the same
 * with `getPool(token0, token1, fee)`; V4 its `Initialize` log found with one `eth_getLogs` on the
 * manager and pool id — and its state is seeded by eth_call at the block before: V2 `getReserves()`,
 * V3 `slot0()` + `liquidity()`, V4 the pool's `Pool.State` words read with `extsload` (v4-core
 * StateLibrary: `pools` mapping at slot 6, slot0 at the state slot, liquidity at +3). The block's
 * events then apply on top of the seeded state, so the state is exact from that block on.
 *
 * Gathered in `prepare` (async, live ingest and backfill) and stored with the block (SEED table,
 * projection `markets`), so a rebuild replays them without the node. A pool failing verification is
 * not registered; it is logged and counted (`onOutcome`), and a definite rejection is remembered
 * for the process so a foreign emitter costs its calls once.
 */
import { keccak256, toFunctionSelector } from 'viem';
import { decodeLog, TOPIC0 } from '../decode/logs.js';
import type { Rpc } from '../rpc/client.js';
import type { BlockDelta, EventDelta } from '../schema/delta.js';
import { emptyPoolState, type PoolRow, type PoolState } from '../schema/rows/markets.js';
import type { Coordinate } from '../schema/rows/tokens.js';
import { POOL, POOL_BY_ADDRESS, poolKeyOf } from '../schema/tables/markets.js';
import type { BlockBatch, Store } from '../storage/index.js';
import { storedSeeds } from '../tokens/build.js';
import type { MarketsConfig } from './config.js';
import { fromSqrtPriceX96, rational, ratStr } from './rational.js';

type Hex = `0x${string}`;
type Protocol = 'v2' | 'v3' | 'v4';

/** A pool registered at first sight: its row (without the registration coordinate) and seeded state. */
export interface PoolSeed {
  row: Omit<PoolRow, 'created' | 'createdAt'>;
  /** State at the end of block `atBlock` (reserves, or sqrtPriceX96 + tick + liquidity). */
  state: PoolState;
  /** Coordinate of the first observed event of the pool in this block (its registration). */
  txIndex: number;
  logIndex: number;
}

/** Seeds of one block (SEED table, projection `markets`). */
export interface MarketSeeds {
  /** Block whose end state the values are (the block before this one). */
  atBlock: number;
  pools: PoolSeed[];
  /** Emitters seen in this block that are not pools of a configured factory (or could not be checked). */
  rejected: Array<{ protocol: Protocol; subject: string; reason: RejectReason }>;
}

/**
 * Why a first-sight candidate was not registered: `not_a_pool` (no token0/token1/factory answer),
 * `not_configured_factory` (its factory() is not
 * configured), `factory_mismatch` (the factory does not return it), `no_initialize_log` (V4: no
 * Initialize for the id), `node_error` (a call failed: retried at its next event).
 */
export type RejectReason =
  | 'not_a_pool'
  | 'not_configured_factory'
  | 'factory_mismatch'
  | 'no_initialize_log'
  | 'node_error';

/** Outcome callback (metrics): one call per candidate. */
export type FirstSightOutcome = (protocol: Protocol, outcome: 'registered' | RejectReason) => void;

const SEL = {
  token0: toFunctionSelector('function token0()'),
  token1: toFunctionSelector('function token1()'),
  factory: toFunctionSelector('function factory()'),
  fee: toFunctionSelector('function fee()'),
  tickSpacing: toFunctionSelector('function tickSpacing()'),
  getPair: toFunctionSelector('function getPair(address,address)'),
  getPool: toFunctionSelector('function getPool(address,address,uint24)'),
  getReserves: toFunctionSelector('function getReserves()'),
  slot0: toFunctionSelector('function slot0()'),
  liquidity: toFunctionSelector('function liquidity()'),
  extsload: toFunctionSelector('function extsload(bytes32)'),
};
/** v4-core StateLibrary: `pools` mapping slot and the liquidity word's offset in Pool.State. */
const V4_POOLS_SLOT = 6n;
const V4_LIQUIDITY_OFFSET = 3n;
/** Candidates verified at once (each costs a handful of calls). */
const CONCURRENCY = 8;
/** Remembered definite rejections (bounded: a busy chain has many foreign V2-shaped emitters). */
const MAX_REJECTED = 200_000;

const V2_EVENTS = new Set(['Sync', 'Swap', 'Mint', 'Burn']);
const V3_EVENTS = new Set(['Initialize', 'Swap', 'Mint', 'Burn', 'Collect']);
const V4_EVENTS = new Set(['Swap', 'ModifyLiquidity', 'Donate']);

const pad = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
const words = (r: string): bigint[] => {
  const h = r.replace(/^0x/, '');
  const out: bigint[] = [];
  for (let i = 0; i + 64 <= h.length; i += 64) out.push(BigInt(`0x${h.slice(i, i + 64)}`));
  return out;
};
const addr = (w: bigint) => `0x${w.toString(16).padStart(40, '0')}`;
/** Two's-complement int24 of the low 24 bits of a word. */
const int24 = (w: bigint) => {
  const x = Number(w & 0xffffffn);
  return x >= 0x800000 ? x - 0x1000000 : x;
};
const hex = (n: number) => `0x${n.toString(16)}`;

/** A candidate of one block: a pool-shaped emitter (v2/v3) or a V4 pool id not registered yet. */
interface Candidate {
  protocol: Protocol;
  /** Pool address (v2/v3) or PoolManager (v4). */
  contract: string;
  poolId: string | null;
  txIndex: number;
  logIndex: number;
}

/** A verified and seeded pool, or why not. */
type Verdict = { ok: PoolSeed } | { reason: RejectReason };

/**
 * First-sight discovery for one markets config: `gather` adds `d.seeds.markets` (see the module
 * doc). Keeps the process-wide memory of definite rejections.
 */
export function createFirstSight(
  config: MarketsConfig,
  opts: { log?: (msg: string, fields: Record<string, unknown>) => void; onOutcome?: FirstSightOutcome } = {},
) {
  const v2 = new Set(config.v2Factories);
  const v3 = new Set(config.v3Factories);
  const v4 = new Set(config.v4Managers);
  const rejected = new Set<string>();

  /** Candidates of block `d`: pools of events whose registration is unknown and not created in `d`. */
  const candidatesOf = (d: BlockDelta, store: Pick<Store, 'view'>): Candidate[] => {
    const view = store.view();
    try {
      const first = view.meta<{ firstBlock: number }>('identity')?.firstBlock ?? 0;
      // Indexed from genesis: every pool of a configured factory was registered at its creation.
      if (first === 0 || d.number === 0) return [];
      const createdHere = new Set<string>();
      for (const e of d.events) {
        if (e.event === 'PairCreated') createdHere.add(String(e.args.pair).toLowerCase());
        if (e.event === 'PoolCreated') createdHere.add(String(e.args.pool).toLowerCase());
        if (e.standard === 'uniswap_v4_pool_manager' && e.event === 'Initialize')
          createdHere.add(poolKeyOf('v4', e.address, String(e.args.id)));
      }
      const out = new Map<string, Candidate>();
      const consider = (e: EventDelta, protocol: Protocol, id: string, poolId: string | null) => {
        if (out.has(id) || createdHere.has(id) || rejected.has(id)) return;
        const known =
          protocol === 'v4' ? view.has(POOL, id as Hex) : view.has(POOL_BY_ADDRESS, e.address as Hex);
        if (!known)
          out.set(id, { protocol, contract: e.address, poolId, txIndex: e.txIndex, logIndex: e.logIndex });
      };
      for (const e of d.events) {
        if (e.standard === 'uniswap_v2_pair' && V2_EVENTS.has(e.event)) consider(e, 'v2', e.address, null);
        else if (e.standard === 'uniswap_v3_pool' && V3_EVENTS.has(e.event))
          consider(e, 'v3', e.address, null);
        else if (e.standard === 'uniswap_v4_pool_manager' && V4_EVENTS.has(e.event) && v4.has(e.address)) {
          const id = String(e.args.id);
          consider(e, 'v4', poolKeyOf('v4', e.address, id), id);
        }
      }
      return [...out.values()];
    } finally {
      view.close();
    }
  };

  const remember = (id: string) => {
    if (rejected.size >= MAX_REJECTED) rejected.clear();
    rejected.add(id);
  };

  /** Gathers the markets seeds of block `d` (live ingest and backfill, before apply). */
  async function gather(d: BlockDelta, store: Pick<Store, 'view'>, rpc: Rpc): Promise<void> {
    const cands = candidatesOf(d, store);
    if (!cands.length) return;
    const seeds: MarketSeeds = { atBlock: d.number - 1, pools: [], rejected: [] };
    const run = async (c: Candidate) => {
      let v: Verdict;
      try {
        v = await verifyAndSeed(rpc, c, d.number, { v2, v3 });
      } catch (err) {
        opts.log?.('first-sight pool check failed', { candidate: c, err: String(err).slice(0, 200) });
        v = { reason: 'node_error' };
      }
      const id = c.protocol === 'v4' ? poolKeyOf('v4', c.contract, c.poolId!) : c.contract;
      if ('ok' in v) {
        seeds.pools.push(v.ok);
        opts.onOutcome?.(c.protocol, 'registered');
        return;
      }
      seeds.rejected.push({ protocol: c.protocol, subject: c.poolId ?? c.contract, reason: v.reason });
      opts.onOutcome?.(c.protocol, v.reason);
      if (v.reason !== 'node_error') remember(id);
      else opts.log?.('first-sight pool not registered', { block: d.number, ...c, reason: v.reason });
    };
    for (let i = 0; i < cands.length; i += CONCURRENCY)
      await Promise.all(cands.slice(i, i + CONCURRENCY).map(run));
    seeds.pools.sort((a, b) => a.logIndex - b.logIndex);
    d.seeds = { ...d.seeds, markets: seeds };
  }

  return { gather };
}

/** eth_call returning the raw result; a revert or an empty answer returns '0x'. */
async function call(rpc: Rpc, to: string, data: string, tag: string): Promise<string> {
  try {
    return await rpc.call<string>('eth_call', [{ to, data }, tag]);
  } catch (err) {
    // A revert is an answer (not a pool of that shape); anything else is a node error.
    if (/revert|execution/i.test(String((err as Error)?.message ?? err))) return '0x';
    throw err;
  }
}

/**
 * Verifies candidate `c` at block `block` and seeds its state at `block − 1`.
 * @throws Error when the node fails (not when the contract reverts).
 */
async function verifyAndSeed(
  rpc: Rpc,
  c: Candidate,
  block: number,
  f: { v2: Set<string>; v3: Set<string> },
): Promise<Verdict> {
  const at = hex(block);
  const before = hex(block - 1);
  const provenance = (creation: Coordinate | null) => ({
    discovery: 'first_sight' as const,
    verifiedAtBlock: block,
    seededAtBlock: block - 1,
    creation,
  });
  if (c.protocol === 'v4') return verifyV4(rpc, c, block, provenance);
  const [t0, t1, fac, fee, ts] = await Promise.all([
    call(rpc, c.contract, SEL.token0, at),
    call(rpc, c.contract, SEL.token1, at),
    call(rpc, c.contract, SEL.factory, at),
    c.protocol === 'v3' ? call(rpc, c.contract, SEL.fee, at) : Promise.resolve('0x'),
    c.protocol === 'v3' ? call(rpc, c.contract, SEL.tickSpacing, at) : Promise.resolve('0x'),
  ]);
  const [w0] = words(t0);
  const [w1] = words(t1);
  const [wf] = words(fac);
  if (w0 === undefined || w1 === undefined || wf === undefined) return { reason: 'not_a_pool' };
  const factory = addr(wf);
  if (!(c.protocol === 'v2' ? f.v2 : f.v3).has(factory)) return { reason: 'not_configured_factory' };
  const token0 = addr(w0);
  const token1 = addr(w1);
  const base = { key: poolKeyOf(c.protocol, c.contract), contract: c.contract, poolId: null, hooks: null };
  const state = emptyPoolState();
  if (c.protocol === 'v2') {
    const got = words(await call(rpc, factory, `${SEL.getPair}${pad(token0)}${pad(token1)}`, at))[0];
    if (got === undefined || addr(got) !== c.contract) return { reason: 'factory_mismatch' };
    const r = words(await call(rpc, c.contract, SEL.getReserves, before));
    if (r.length < 2) throw new Error(`getReserves of ${c.contract} at ${before} answered nothing`);
    state.reserve0 = r[0].toString();
    state.reserve1 = r[1].toString();
    state.price = r[0] > 0n ? ratStr(rational(r[1], r[0])) : null;
    const row = { ...base, protocol: 'v2' as const, currency0: token0, currency1: token1, fee: 3000 };
    return {
      ok: { row: { ...row, tickSpacing: null, factory, provenance: provenance(null) }, state, ...pos(c) },
    };
  }
  const [wFee] = words(fee);
  const [wTs] = words(ts);
  if (wFee === undefined || wTs === undefined) return { reason: 'factory_mismatch' };
  const feeN = Number(wFee);
  const got = words(
    await call(rpc, factory, `${SEL.getPool}${pad(token0)}${pad(token1)}${pad(hex(feeN))}`, at),
  )[0];
  if (got === undefined || addr(got) !== c.contract) return { reason: 'factory_mismatch' };
  const [s0, liq] = await agreed(() =>
    Promise.all([call(rpc, c.contract, SEL.slot0, before), call(rpc, c.contract, SEL.liquidity, before)]),
  );
  const sw = words(s0);
  const [lw] = words(liq);
  if (sw.length < 2 || lw === undefined)
    throw new Error(`slot0/liquidity of ${c.contract} at ${before} answered nothing`);
  seedConcentrated(state, sw[0], int24(sw[1]), lw);
  return {
    ok: {
      row: {
        ...base,
        protocol: 'v3',
        currency0: token0,
        currency1: token1,
        fee: feeN,
        tickSpacing: int24(wTs),
        factory,
        provenance: provenance(null),
      },
      state,
      ...pos(c),
    },
  };
}

/**
 * A seed read the node answered the same way twice (a third read settles a disagreement): the
 * seed is the base of every later state of the pool, so one transient wrong answer must not stick.
 * @throws Error when three reads disagree.
 */
async function agreed<T>(read: () => Promise<T>): Promise<T> {
  const key = (v: T) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x));
  const a = await read();
  const b = await read();
  if (key(a) === key(b)) return a;
  const c = await read();
  if (key(c) === key(a) || key(c) === key(b)) return c;
  throw new Error('the node answered the seed read three different ways');
}

const pos = (c: Candidate) => ({ txIndex: c.txIndex, logIndex: c.logIndex });

/** Concentrated state from slot0 words; an uninitialised pool (sqrtPriceX96 = 0) stays without a price. */
function seedConcentrated(st: PoolState, sqrtPriceX96: bigint, tick: number, liquidity: bigint): void {
  if (sqrtPriceX96 === 0n) return;
  st.sqrtPriceX96 = sqrtPriceX96.toString();
  st.tick = tick;
  st.liquidity = liquidity.toString();
  st.price = ratStr(fromSqrtPriceX96(sqrtPriceX96));
}

/** Storage slot of `pools[poolId]` in a v4 PoolManager (StateLibrary._getPoolStateSlot). */
export function v4PoolStateSlot(poolId: string): bigint {
  // keccak256(abi.encodePacked(poolId, POOLS_SLOT))
  return BigInt(keccakHex(`0x${pad(poolId)}${pad(hex(Number(V4_POOLS_SLOT)))}`));
}

const keccakHex = (data: string) => keccak256(data as Hex);

/**
 * Reads a V4 pool's slot0 (sqrtPriceX96, tick) and liquidity with `extsload` at block tag `tag`.
 * @throws Error when the node fails.
 */
export async function readV4State(
  rpc: Rpc,
  manager: string,
  poolId: string,
  tag: string,
): Promise<{ sqrtPriceX96: bigint; tick: number; liquidity: bigint }> {
  const slot = v4PoolStateSlot(poolId);
  const [s0, liq] = await Promise.all([
    call(rpc, manager, `${SEL.extsload}${pad(slot.toString(16))}`, tag),
    call(rpc, manager, `${SEL.extsload}${pad((slot + V4_LIQUIDITY_OFFSET).toString(16))}`, tag),
  ]);
  const [w0] = words(s0);
  const [wl] = words(liq);
  if (w0 === undefined || wl === undefined)
    throw new Error(`extsload on ${manager} at ${tag} answered nothing`);
  return {
    sqrtPriceX96: w0 & ((1n << 160n) - 1n),
    tick: int24(w0 >> 160n),
    liquidity: wl & ((1n << 128n) - 1n),
  };
}

/** V4: the pool's Initialize log on its manager (eth_getLogs 0..block) gives its key; state by extsload. */
async function verifyV4(
  rpc: Rpc,
  c: Candidate,
  block: number,
  provenance: (creation: Coordinate | null) => NonNullable<PoolRow['provenance']>,
): Promise<Verdict> {
  const logs = await rpc.call<
    Array<{
      address: string;
      topics: string[];
      data: string;
      blockNumber: string;
      transactionIndex: string;
      logIndex: string;
      transactionHash: string;
      removed?: boolean;
    }>
  >('eth_getLogs', [
    { address: c.contract, topics: [TOPIC0.V4Initialize, c.poolId], fromBlock: '0x0', toBlock: hex(block) },
  ]);
  const log = logs.find((l) => !l.removed);
  if (!log) return { reason: 'no_initialize_log' };
  const dec = decodeLog(log);
  if (dec.status !== 'decoded' || dec.event !== 'Initialize') return { reason: 'no_initialize_log' };
  const a = dec.args as Record<string, string>;
  const s = await agreed(() => readV4State(rpc, c.contract, c.poolId!, hex(block - 1)));
  const state = emptyPoolState();
  seedConcentrated(state, s.sqrtPriceX96, s.tick, s.liquidity);
  const creation: Coordinate = {
    block: Number(log.blockNumber),
    txIndex: Number(log.transactionIndex),
    logIndex: Number(log.logIndex),
    txHash: log.transactionHash,
  };
  return {
    ok: {
      row: {
        key: poolKeyOf('v4', c.contract, c.poolId!),
        protocol: 'v4',
        contract: c.contract,
        poolId: c.poolId,
        currency0: a.currency0,
        currency1: a.currency1,
        fee: Number(a.fee),
        tickSpacing: Number(a.tickSpacing),
        hooks: a.hooks,
        factory: c.contract,
        provenance: provenance(creation),
      },
      state,
      ...pos(c),
    },
  };
}

/**
 * The block's markets seeds: from `prepare` (live; also stored with the block) or, on a rebuild,
 * the ones stored when the block was first applied.
 */
export function marketSeedsOf(batch: BlockBatch, d: BlockDelta): MarketSeeds | null {
  return storedSeeds<MarketSeeds>(batch, d, 'markets');
}
