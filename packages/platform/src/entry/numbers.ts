/** `@chain-indexer/platform/numbers`: exact ratios of big integers as decimal strings. */

/** A ratio n/d (scaled by 10^-scale) as a decimal string of 12 significant digits and a number. */
export { type ApproxDecimal, approxDecimal } from '../decimal.js';
