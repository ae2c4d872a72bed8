/**
 * Response schemas of the pool routes and the market shapes the token market routes share:
 * pool identity, protocol-native state and liquidity, window statistics, swaps, ticks, bars,
 * candles, USD liquidity. Amounts are base units as decimal strings (R6); prices are exact
 * rationals `{priceNumerator, priceDenominator}` in the stated unit; USD values exact rationals
 * `{numerator, denominator}`; null fields carry a sibling reason (R7).
 */
// biome-ignore lint/correctness/noUnusedImports: named so the emitted .d.ts can name TypeBox's symbol keys (TS4023)
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import {
  Address,
  Amount,
  Approx,
  Coordinate,
  Count,
  Enum,
  Hash,
  Nullable,
  Obj,
  ReasonOf,
  UnixSeconds,
} from '../../schemas.js';

/** The projection every pool and token market route reads. */
export const MARKETS = 'markets';

/**
 * What a pool route declaring `asOf` answers at `atBlock` / `atBlockHash` (appended to its
 * summary): the state is the pool's `markets.state_history` row at or below N (one reverse seek:
 * V2 reserves in base units, V3/V4 sqrtPriceX96 as Q64.96, tick, in-range liquidity L), the
 * windows are differences of the running totals at or below N (`markets.pool_cumulative`), the
 * pool is not_found before its registration block.
 */
export const AS_OF_POOL =
  ' As of a block: atBlock / atBlockHash (state = the latest state_history row at or below N; windows end at N, from the running totals at or below N; not_found before the pool was registered).';

const Int = Type.String({ pattern: '^-?(0|[1-9][0-9]*)$' });
const Positive = Type.String({ pattern: '^[1-9][0-9]*$' });
const Block = Type.Integer({ minimum: 0, description: 'block number' });

/** 52-byte pool key, 0x hex. */
export const PoolKey = Type.String({
  pattern: '^0x[0-9a-f]{104}$',
  description:
    'pool key (52 bytes hex): v2/v3 pool address + 32 zero bytes; v4 PoolManager + poolId; launchpad curve + token + 12 zero bytes',
});
export const Protocol = Enum(['v2', 'v3', 'v4', 'launchpad'], 'pool protocol');

/** An exact rational price `{priceNumerator, priceDenominator}` in `unit`. */
export const Price = (unit: string, what = 'price') =>
  Obj(
    {
      priceNumerator: { ...Int, description: `${what}: numerator, decimal string` },
      priceDenominator: { ...Positive, description: `${what}: denominator (> 0), decimal string` },
      approx: Approx(unit),
    },
    { description: `${what}, exact rational: ${unit}` },
  );
/** The price fields spread into a row. */
export const priceFields = (unit: string, what = 'price') => ({
  priceNumerator: { ...Int, description: `${what} (${unit}): numerator, decimal string` },
  priceDenominator: { ...Positive, description: `${what}: denominator (> 0), decimal string` },
  priceApprox: Approx(unit),
});
/** An exact rational `{numerator, denominator}` in `unit`. */
export const Fraction = (unit: string) =>
  Obj(
    {
      numerator: { ...Int, description: 'numerator, decimal string' },
      denominator: { ...Positive, description: 'denominator (> 0), decimal string' },
      approx: Approx(unit),
    },
    { description: `exact rational: ${unit}` },
  );

export const POOL_PRICE_UNIT = 'currency1 base units per currency0 base unit';

/** Pool identity (every pool row and the detail). */
export const poolIdentityProps = {
  key: PoolKey,
  protocol: Protocol,
  address: Nullable(Address, 'the pool contract for v2/v3; null for v4 (see contract + poolId) and curves'),
  contract: { ...Address, description: 'pool contract (v2/v3), PoolManager (v4), shared curve (launchpad)' },
  poolId: Nullable(Type.String({ pattern: '^0x[0-9a-f]{64}$' }), 'V4 pool id (bytes32); null otherwise'),
  currency0: { ...Address, description: 'currency0 as the protocol orders them (native = the zero address)' },
  currency1: { ...Address, description: 'currency1' },
  fee: Nullable(
    Type.Integer({ minimum: 0 }),
    'fee in hundredths of a basis point (3000 = 0.30 %); null for a curve',
  ),
  feeUnit: Type.Literal('hundredths of a basis point', { description: 'unit of fee' }),
  tickSpacing: Nullable(Type.Integer(), 'tick spacing (v3/v4); null otherwise'),
  hooks: Nullable(Address, 'V4 hooks contract; null otherwise'),
  factory: { ...Address, description: 'factory, PoolManager or launchpad that registered the pool' },
  created: {
    ...Coordinate,
    description: 'registration coordinate: the factory event, or the first observed event (first_sight)',
  },
  createdAt: UnixSeconds('block timestamp of `created`, unix seconds'),
  provenance: Obj(
    {
      discovery: Enum(
        ['factory_event', 'first_sight'],
        'factory_event: its creation event was indexed; first_sight: it predates the indexed range and was registered at its first observed event',
      ),
      verifiedAtBlock: Type.Integer({
        minimum: 0,
        description: 'block the pool was verified against its factory at',
      }),
      seededAtBlock: Nullable(
        Type.Integer({ minimum: 0 }),
        'block whose end state seeded the pool (first_sight); null for factory_event',
      ),
      creation: Nullable(Coordinate, 'creation event coordinate when known; null otherwise'),
    },
    { description: 'how the pool was found and verified' },
  ),
};
export const PoolIdentity = Obj(poolIdentityProps, { description: 'a registered pool' });

const reservesProps = {
  kind: Type.Literal('reserves', { description: 'V2 pair or launchpad curve' }),
  reserve0: Nullable(
    { ...Amount, description: 'reserve of currency0, base units' },
    'null before the first Sync',
  ),
  reserve1: Nullable(
    { ...Amount, description: 'reserve of currency1, base units' },
    'null before the first Sync',
  ),
  reason: ReasonOf(['no_sync_yet'], 'no_sync_yet: no state recorded at the anchor; null otherwise'),
};
export const concentratedProps = {
  kind: Type.Literal('concentrated', { description: 'V3 or V4 pool' }),
  sqrtPriceX96: Nullable({ ...Amount, description: 'square-root price, Q64.96' }, 'null before Initialize'),
  sqrtPriceX96Unit: Type.Literal('Q64.96', { description: 'unit of sqrtPriceX96' }),
  tick: Nullable(Type.Integer({ description: 'current tick' }), 'null before Initialize'),
  liquidity: Nullable(
    { ...Amount, description: 'active liquidity L at the current tick' },
    'null before Initialize',
  ),
  liquidityNote: Type.Literal('active liquidity at the current tick (L), not a token amount', {
    description: 'what liquidity is',
  }),
  reason: ReasonOf(['not_initialized'], 'not_initialized: no state recorded at the anchor; null otherwise'),
};
/** Exact protocol-native liquidity: reserves, or the concentrated state. */
export const NativeLiquidity = Type.Union([Obj(reservesProps), Obj(concentratedProps)], {
  description: 'protocol-native liquidity, never merged across kinds',
});
const stateExtra = {
  swaps: Count('swaps of the pool up to the anchor (0 without state)'),
  lastSwapBlock: Nullable(Block, 'null before the first swap'),
};
/** The detail's state: native liquidity plus swap counters. */
export const PoolStateSchema = Type.Union(
  [Obj({ ...reservesProps, ...stateExtra }), Obj({ ...concentratedProps, ...stateExtra })],
  {
    description: 'state at the end of the anchor block',
  },
);

/** A distinct count: exact when every swap of the window was examined. */
export const DistinctCount = Obj(
  {
    lowerBound: Count('distinct transaction origins found'),
    exact: Type.Boolean({
      description: 'true when every swap of the window was examined (the scan bound was not reached)',
    }),
  },
  { description: 'distinct traders by transaction origin' },
);

const windowProps = {
  volume0: { ...Amount, description: 'Σ|amount0| of the window, currency0 base units' },
  volume1: { ...Amount, description: 'Σ|amount1| of the window, currency1 base units' },
  trades: Count('swaps in the window'),
  buys: Count('swaps where the trader received currency0'),
  sells: Count('swaps where the trader gave currency0'),
  open: Nullable(Price(POOL_PRICE_UNIT, 'first trade price of the window'), 'null without trades'),
  close: Nullable(Price(POOL_PRICE_UNIT, 'last trade price of the window'), 'null without trades'),
  priceChange: Nullable(Price('(close − open) / open, unitless', 'price change'), 'see priceChangeReason'),
  priceChangeReason: ReasonOf(['no_trades_in_window']),
  priceChangeUnit: Type.Literal('(close − open) / open, exact rational', {
    description: 'unit of priceChange',
  }),
};
const windows = (w: TSchema) =>
  Obj(
    { '5m': w, '1h': w, '4h': w, '24h': w },
    { description: 'rolling windows of whole 1-minute buckets ending at the anchor' },
  );
const statsProps = (w: TSchema) => ({
  asOfTimestamp: UnixSeconds('the anchor block timestamp the windows end at'),
  windowAlignment: Type.Literal('windows cover 1-minute buckets (t − window, t]', {
    description: 'window rule',
  }),
  base: { ...Address, description: 'currency0' },
  quote: { ...Address, description: 'currency1' },
  volumeUnit: Type.Literal(
    'base units of currency0 (volume0) and currency1 (volume1), both sides of each trade',
    { description: 'unit of the volumes' },
  ),
  windows: windows(w),
});
/** Window statistics embedded in the detail (no distinct traders). */
export const PoolWindowStats = Obj(statsProps(Obj(windowProps)), {
  description: 'window statistics at the anchor',
});
/** Window statistics with distinct traders (stats routes). */
export const poolStatsProps = statsProps(Obj({ ...windowProps, distinctTraders: DistinctCount }));

/**
 * The chain position of a swap, the leading properties of every swap and trade row: block, its
 * timestamp (unix seconds), transaction index, log index of the swap event, transaction hash.
 * Fresh schema objects on each call.
 */
export const swapPositionProps = () => ({
  block: Block,
  timestamp: UnixSeconds('block timestamp, unix seconds'),
  txIndex: Type.Integer({ minimum: 0, description: 'transaction index' }),
  logIndex: Type.Integer({ minimum: 0, description: 'log index of the swap event' }),
  txHash: Hash,
});

/** A swap in pool perspective. */
export const SwapSchema = Obj({
  ...swapPositionProps(),
  origin: { ...Address, description: 'the transaction sender (origin), never the router' },
  sender: Nullable(Address, 'event sender (router or caller); null when the protocol reports none'),
  recipient: Nullable(Address, 'event recipient; null when the protocol reports none'),
  amount0: { ...Amount, description: 'signed currency0 base units: positive = the pool received it' },
  amount1: { ...Amount, description: 'signed currency1 base units: positive = the pool received it' },
  side: Enum(['buy', 'sell'], 'buy: the trader received currency0 (amount0 < 0); else sell'),
  tick: Nullable(Type.Integer(), 'tick after the swap (v3/v4); null otherwise'),
  sqrtPriceX96: Nullable({ ...Amount, description: 'Q64.96 after the swap' }, 'v3/v4 only; null otherwise'),
  ...priceFields(POOL_PRICE_UNIT, 'price after the trade'),
});

/** A per-trade tick row. */
export const TickSchema = Obj({
  ...swapPositionProps(),
  origin: { ...Address, description: 'the transaction sender' },
  side: Enum(['buy', 'sell'], 'buy: the trader received currency0'),
  amount0: { ...Amount, description: 'signed currency0 base units (pool perspective)' },
  amount1: { ...Amount, description: 'signed currency1 base units (pool perspective)' },
  ...priceFields(POOL_PRICE_UNIT, 'price after the trade'),
  tick: Nullable(Type.Integer(), 'tick after the swap (v3/v4); null otherwise'),
});

const TickAt = Obj(
  { block: Block, logIndex: Type.Integer({ minimum: 0, description: 'log index' }) },
  { description: 'tick coordinate' },
);
/** A bar folded over ticks. */
export const BarSchema = Obj({
  first: TickAt,
  last: TickAt,
  trades: Count('ticks in the bar'),
  open: Price(POOL_PRICE_UNIT, 'first price'),
  high: Price(POOL_PRICE_UNIT, 'highest price'),
  low: Price(POOL_PRICE_UNIT, 'lowest price'),
  close: Price(POOL_PRICE_UNIT, 'last price'),
  volumeBase: { ...Amount, description: 'Σ|amount0|, currency0 base units' },
  volumeQuote: { ...Amount, description: 'Σ|amount1|, currency1 base units' },
  complete: Type.Boolean({ description: 'false for the trailing bar still forming at the anchor' }),
});

/** A candle (pool grain, or token grain oriented quote per token). */
export const candleSchema = (unit: string, base: string, quote: string) =>
  Obj({
    t: UnixSeconds('bucket start, unix seconds'),
    open: Price(unit, 'open'),
    high: Price(unit, 'high'),
    low: Price(unit, 'low'),
    close: Price(unit, 'close'),
    ...priceFields(unit, 'close (repeated flat)'),
    volumeBase: { ...Amount, description: `Σ volume of ${base}, base units` },
    volumeQuote: { ...Amount, description: `Σ volume of ${quote}, base units` },
    trades: Count('trades in the bucket'),
    buys: Count(`trades where the trader received ${base}`),
    sells: Count(`trades where the trader gave ${base}`),
  });

/** A position's tick range (V3 and V4 liquidity events). */
const tickRange = {
  tickLower: Type.Integer({ description: 'lower tick of the position' }),
  tickUpper: Type.Integer({ description: 'upper tick of the position (exclusive)' }),
};
const liqBase = {
  block: Block,
  txIndex: Type.Integer({ minimum: 0, description: 'transaction index' }),
  logIndex: Type.Integer({ minimum: 0, description: 'log index' }),
  txHash: Hash,
  origin: { ...Address, description: 'the transaction sender' },
};
const amt = (d: string) => ({ ...Amount, description: d });
/** A liquidity event (V2 Mint/Burn, V3 Mint/Burn/Collect, V4 ModifyLiquidity). */
export const LiquidityEvent = Type.Union(
  [
    Obj({
      kind: Enum(['add', 'remove'], 'V2 Mint (add) or Burn (remove)'),
      ...liqBase,
      sender: { ...Address, description: 'event sender (router or caller)' },
      amount0: amt('currency0 base units'),
      amount1: amt('currency1 base units'),
      to: Nullable(Address, 'Burn recipient; null for Mint'),
    }),
    Obj({
      kind: Enum(['add', 'remove'], 'V3 Mint (add) or Burn (remove)'),
      ...liqBase,
      owner: { ...Address, description: 'position owner' },
      ...tickRange,
      liquidity: amt('liquidity L added or removed'),
      amount0: amt('currency0 base units'),
      amount1: amt('currency1 base units'),
    }),
    Obj({
      kind: Type.Literal('collect', { description: 'V3 Collect' }),
      ...liqBase,
      owner: { ...Address, description: 'position owner' },
      recipient: { ...Address, description: 'recipient of the collected amounts' },
      ...tickRange,
      amount0: amt('currency0 base units collected'),
      amount1: amt('currency1 base units collected'),
    }),
    Obj({
      kind: Enum(['add', 'remove'], 'V4 ModifyLiquidity by the sign of liquidityDelta'),
      ...liqBase,
      sender: { ...Address, description: 'event sender (router or caller)' },
      ...tickRange,
      liquidityDelta: amt('signed liquidity delta'),
      salt: Hash,
    }),
  ],
  { description: 'a liquidity event with its chain coordinate and origin' },
);

/** A USD mark of one currency. */
export const UsdMark = Obj({
  currency: { ...Address, description: 'the marked currency' },
  usdPerUnit: Nullable(Type.Literal('1'), 'USD per whole unit; null when unmarked (see reason)'),
  route: Nullable(Type.Literal('usd_stablecoin_par'), 'the mark route; null when unmarked'),
  decimals: Nullable(Type.Integer({ minimum: 0 }), 'decimals of the stablecoin; null when unmarked'),
  reason: ReasonOf(['decimals_unknown', 'no_stablecoin_route']),
});

/** liquidityUsd and its provenance (pool liquidity routes). */
export const liquidityUsdProps = {
  liquidityUsd: Nullable(Fraction('USD (whole dollars)'), 'see liquidityUsdReason'),
  liquidityUsdReason: ReasonOf(['no_reserves_yet', 'not_initialized', 'side_unpriced']),
  liquidityUsdMethod: Nullable(
    Enum(['both_sides_stablecoins_at_par', 'stable_side_times_two_at_pool_marginal_price']),
    'null when liquidityUsd is null',
  ),
  liquidityUsdBasis: Enum(
    ['reserves', 'in_range_virtual_reserves'],
    'reserves (V2, curves) or the in-range virtual reserves of L at the current price (V3/V4; not the pool balance)',
  ),
};
export const LiquidityUsdAmounts = Nullable(
  Obj({
    amount0: Fraction('currency0 base units'),
    amount1: Fraction('currency1 base units'),
    unit: Type.Literal('base units of currency0 (amount0) and currency1 (amount1), exact rationals', {
      description: 'unit of the amounts',
    }),
  }),
  'the valued amounts; null when there are none (see liquidityUsdReason)',
);
export const UsdMarks = Obj({
  method: Type.Literal('configured USD stablecoins at par (1 USD per whole unit); no other routes', {
    description: 'how currencies are marked',
  }),
  marks: Type.Array(UsdMark, { description: 'currency0 then currency1' }),
});
