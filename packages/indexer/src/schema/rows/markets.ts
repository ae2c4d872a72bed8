/** Row shapes of the markets projection (JSON; amounts as decimal strings in base units). */
import type { Coordinate } from './tokens.js';

export type Protocol = 'v2' | 'v3' | 'v4' | 'launchpad';

/** A registered pool. currency0/currency1 as the protocol orders them (native = 0x0). */
export interface PoolRow {
  /** Hex pool key: 20-byte address (v2/v3), manager+poolId (v4), curve+token (launchpad). */
  key: string;
  protocol: Protocol;
  /** Pool contract (v2/v3), PoolManager (v4: `contract`), shared curve address (launchpad). */
  contract: string;
  /** V4 pool id (bytes32); null otherwise. */
  poolId: string | null;
  currency0: string;
  currency1: string;
  /** Fee in hundredths of a basis point (V3/V4 units: 3000 = 0.30 %); V2 is 3000; null for a curve. */
  fee: number | null;
  tickSpacing: number | null;
  hooks: string | null;
  /** Factory / manager / launchpad that registered the pool. */
  factory: string;
  /**
   * Registration coordinate: the factory event (`factory_event`) or, for a pool first seen after
   * START_BLOCK (`first_sight`), its first observed event.
   */
  created: Coordinate;
  /** Block timestamp of `created`, unix seconds. */
  createdAt: number;
  /** How the pool was found and verified; absent on rows written before first-sight discovery (= factory_event). */
  provenance?: PoolProvenance;
}

/**
 * Where a registered pool comes from. `factory_event`: its creation event (PairCreated,
 * PoolCreated, V4 Initialize) was indexed. `first_sight`: it predates the indexed range and was
 * registered at its first observed event, verified against its configured factory at block
 * `verifiedAtBlock` (V2 getPair, V3 getPool, V4 its Initialize log on the manager) and its state
 * seeded by eth_call at `seededAtBlock` (the block before).
 */
export interface PoolProvenance {
  discovery: 'factory_event' | 'first_sight';
  verifiedAtBlock: number;
  /** Block whose end state seeded the pool (first_sight only); null for factory_event. */
  seededAtBlock: number | null;
  /** Chain coordinate of the creation event when known (V4 Initialize found by eth_getLogs), else null. */
  creation: Coordinate | null;
}

/** Exact protocol-native state at the end of a block. */
export interface PoolState {
  /** V2 / curve reserves (base units). */
  reserve0: string | null;
  reserve1: string | null;
  /** V3/V4: Q64.96 square-root price, current tick, active liquidity. */
  sqrtPriceX96: string | null;
  tick: number | null;
  liquidity: string | null;
  /** Marginal price, currency1 base units per currency0 base unit, "n/d"; null before any price. */
  price: string | null;
  swaps: number;
  lastSwapBlock: number | null;
  /**
   * All-time high and low of the pool's trade price up to the end of this block (the same prices
   * its candles fold: currency1 base units per currency0 base unit, "n/d"), each with the UTC day
   * bucket (unix seconds) of its first trade at that price; absent before the first swap. Versioned
   * with the state (markets.state_history), so the extreme at block N is one reverse seek.
   */
  high?: { price: string; day: number };
  low?: { price: string; day: number };
}

/** A pool's state before any event of it was applied: no reserves, price or swaps yet. */
export const emptyPoolState = (): PoolState => ({
  reserve0: null,
  reserve1: null,
  sqrtPriceX96: null,
  tick: null,
  liquidity: null,
  price: null,
  swaps: 0,
  lastSwapBlock: null,
});

/** A swap in pool perspective: positive amount = the pool received it. */
/** Where a swap stands in the chain: block, its timestamp (unix seconds), transaction and log index, hash. */
export interface SwapPosition {
  block: number;
  timestamp: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
}

export interface SwapRow extends SwapPosition {
  /** The transaction sender (origin), never the router. */
  origin: string;
  /** Event sender (router or caller) and recipient where the protocol reports them. */
  sender: string | null;
  recipient: string | null;
  amount0: string;
  amount1: string;
  /** Price after the trade, "n/d" currency1 per currency0 (base units). */
  price: string;
  /** 'buy' when the trader received currency0 (amount0 < 0), else 'sell'. */
  side: 'buy' | 'sell';
  tick: number | null;
  sqrtPriceX96: string | null;
}

/** Trade figures of a span of one pool (pool perspective: currency0/currency1, base units). */
export interface TradeFigures {
  /** Sum of |amount0| and |amount1| over the span's swaps (base units). */
  volume0: string;
  volume1: string;
  trades: number;
  buys: number;
  sells: number;
  /** |amount0| and |amount1| of buy trades only (trader received currency0), base units. */
  buyVolume0: string;
  buyVolume1: string;
}

/** The figures of a span without trades. */
export const NO_TRADES: Readonly<TradeFigures> = {
  volume0: '0',
  volume1: '0',
  trades: 0,
  buys: 0,
  sells: 0,
  buyVolume0: '0',
  buyVolume1: '0',
};

/** One candle bucket at pool grain: base = currency0, quote = currency1. */
export interface CandleRow extends TradeFigures {
  t: number;
  open: string;
  high: string;
  low: string;
  close: string;
  /** Chain coordinates (block, logIndex) of the bucket's first and last trade: exact merging across pools. */
  first: [number, number];
  last: [number, number];
}

/**
 * Running totals of one pool through the end of a block it traded in (markets projection, from its
 * Swap events), plus that block's first and last trade price. Windows are differences of two rows
 * (see windows.ts): sums exact in base units, counts in trades.
 */
export interface PoolCum {
  /** Σ|amount0|, Σ|amount1| over every swap up to and including the block, base units. */
  volume0: bigint;
  volume1: bigint;
  /** The same over buy trades only (trader received currency0), base units. */
  buyVolume0: bigint;
  buyVolume1: bigint;
  trades: number;
  buys: number;
  sells: number;
  /** Price after the block's first and last swap of this pool, `n/d` (currency1 per currency0). */
  open: string;
  close: string;
}

export const FRAMES = { '1s': 1, '30s': 30, '1m': 60, '1h': 3600, '1d': 86400 } as const;
export type Frame = keyof typeof FRAMES;
export const FRAME_IDS: Record<Frame, number> = { '1s': 1, '30s': 2, '1m': 3, '1h': 4, '1d': 5 };

/** A liquidity event row (mint/burn/sync-like changes) with its chain coordinate and origin. */
export type LiquidityEventRow = {
  kind: string;
  block: number;
  txIndex: number;
  logIndex: number;
  txHash: string;
  origin: string;
} & Record<string, unknown>;
