/**
 * The markets domain: pools (V2, V3, V4, launchpad curves), their state, swaps, candles and
 * liquidity events, and the token market views over them (quote rule, default venue, windows).
 * Exports the projection factory and the reader.
 */

export type {
  CandleRow,
  Frame,
  LiquidityEventRow,
  PoolProvenance,
  PoolRow,
  PoolState,
  Protocol,
  SwapRow,
} from '../schema/rows/markets.js';
export type { OrientedCandle, TokenExtreme } from './candles.js';
export { alignRange, MAX_SPAN_BUCKETS, orientedCandleJson, poolCandleJson } from './candles.js';
export { type MarketsConfig, marketsConfigFor, quoteAssetsOf } from './config.js';
export { firstBlockAtOrAfter } from './cumulative.js';
export { SEARCH_SCAN_CEILING } from './lists.js';
export {
  add,
  cmp,
  invert,
  priceFieldsJson,
  type Rational,
  rational,
  ratJson,
  ratJsonOrNull,
  ratParse,
  ratStr,
  sub,
} from './rational.js';
export { candleAtBlock, poolAt, provenanceOf, stateAt } from './read.js';
export {
  createMarketsReader,
  type MarketsReader,
  type MarketsReaderDeps,
  OVERVIEW_POOLS,
  type OverviewMarket,
  type PoolDetail,
  type PoolRef,
  type PoolStats,
  poolRefKey,
  type TokenOverview,
  type TokenSeriesKind,
  type TokenStatsResult,
} from './reader.js';
export {
  fracJson,
  liquidityJson,
  membershipJson,
  poolIdentity,
  poolStatsJson,
  priceJson,
  statsBodyJson,
  swapJson,
  tradeJson,
  usdJson,
  venueJson,
  windowsJson,
} from './render.js';
export {
  type Bar,
  MAX_TICKS_PER_PAGE,
  positionOf,
  type TokenTrade,
  TRADERS_SCAN_LIMIT,
  type TraderRow,
} from './swaps.js';
export type { Quote, TokenRef, TokenRows, TokenWindow } from './token-market.js';
export { AGGREGATE_POOLS, type RankedPool } from './token-pools.js';
export type { UsdMark } from './usd.js';
export {
  chooseVenue,
  orient,
  orientCandle,
  resolveQuote,
  tokenPools,
  VENUE_RULE,
  type VenueChoice,
} from './venue.js';
export {
  DISTINCT_SCAN_LIMIT,
  type DistinctCount,
  scanWindowSwaps,
  WINDOW_ALIGNMENT,
  WINDOW_NAMES,
  WINDOW_SECONDS,
  type WindowName,
  type WindowStats,
  windowFrom,
} from './windows.js';
