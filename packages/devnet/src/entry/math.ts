/**
 * `@chain-indexer/devnet/math`: the numbers behind the devnet's pools and traffic — Uniswap price,
 * tick and liquidity math, and the seeded PRNG that makes a run repeatable.
 */

/** Uniswap V3/V4 price ↔ tick ↔ sqrtPriceX96, liquidity for amounts, V4 pool ids, price bounds. */
export {
  alignTick,
  liquidityFor,
  MAX_SQRT_PRICE_MINUS_1,
  MIN_SQRT_PRICE_PLUS_1,
  priceToTick,
  rawPrice,
  sqrtPriceX96,
  usdToRaw,
  v4PoolId,
} from '../math.js';
/** A seeded PRNG (uniform in [0, 1)): the same seed gives the same traffic. */
export { prng } from '../prng.js';
