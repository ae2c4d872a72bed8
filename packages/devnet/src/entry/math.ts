/**
 * `@chain-indexer/devnet/math`: the numbers behind the devnet's pools and traffic — Uniswap price,
 * tick and liquidity math, and the seeded PRNG that makes a run repeatable.
 */

/**
 * Uniswap V2/V3/V4 math (all of math.ts): price ↔ tick ↔ sqrtPriceX96, liquidity and amounts, pool
 * addresses and V4 pool ids, the tick and price bounds, the devnet's ETH price.
 */
export * from '../math.js';
/** A seeded PRNG (uniform in [0, 1)): the same seed gives the same traffic. */
export { prng } from '../prng.js';
