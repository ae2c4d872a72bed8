import { approxDecimal } from '@chain-indexer/platform/numbers';

/**
 * Exact rational prices: numerator/denominator bigints in lowest terms, denominator > 0. No float
 * ever carries a price. Units are stated by the caller (e.g. quote base units per base base unit).
 */
export interface Rational {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** n/d in lowest terms. @throws RangeError when d is zero. */
export function rational(n: bigint, d: bigint): Rational {
  if (d === 0n) throw new RangeError('zero denominator');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export const cmp = (a: Rational, b: Rational): number => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};

/** 1/x. @throws RangeError for zero. */
export const invert = (x: Rational): Rational => rational(x.d, x.n);

/** Price from a Uniswap V3/V4 sqrtPriceX96 (Q64.96): (sqrtP)² / 2^192, currency1 per currency0 in base units. */
export const fromSqrtPriceX96 = (sqrtPriceX96: bigint): Rational =>
  rational(sqrtPriceX96 * sqrtPriceX96, 1n << 192n);

/** JSON form used on the wire: decimal strings, and the rounded decimal sibling (`approx`). */
export const ratJson = (x: Rational) => ({
  priceNumerator: x.n.toString(),
  priceDenominator: x.d.toString(),
  approx: approxDecimal(x.n, x.d),
});

/** {@link ratJson} of a rational that may be absent (null, undefined): null then. */
export const ratJsonOrNull = (x: Rational | null | undefined) => (x ? ratJson(x) : null);

/** The price fields spread into a row: `{priceNumerator, priceDenominator, priceApprox}`. */
export const priceFieldsJson = (x: Rational) => ({
  priceNumerator: x.n.toString(),
  priceDenominator: x.d.toString(),
  priceApprox: approxDecimal(x.n, x.d),
});

/** Stored form: "n/d". */
export const ratStr = (x: Rational) => `${x.n}/${x.d}`;
export const ratParse = (s: string): Rational => {
  const i = s.indexOf('/');
  return { n: BigInt(s.slice(0, i)), d: BigInt(s.slice(i + 1)) };
};

export const add = (a: Rational, b: Rational): Rational => rational(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Rational, b: Rational): Rational => rational(a.n * b.d - b.n * a.d, a.d * b.d);
