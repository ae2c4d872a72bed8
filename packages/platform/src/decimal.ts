/**
 * Human-readable decimals beside exact rationals (R6: a value approximate by construction says
 * so). The exact figure stays the rational; its sibling is `{decimal, approximate: true,
 * significantDigits}`: the rational (scaled to whole units where the field says so) rounded to
 * {@link SIGNIFICANT_DIGITS} significant digits, half away from zero, in plain decimal notation
 * (no exponent, no thousands separator, trailing zeros trimmed).
 */

/** Significant digits of every approximate decimal sibling. */
export const SIGNIFICANT_DIGITS = 12 as const;

/** The decimal sibling of an exact rational. */
export interface ApproxDecimal {
  /** The value rounded to `significantDigits` significant digits, e.g. `"3012.55450123"`, `"-0.000123"`. */
  decimal: string;
  approximate: true;
  significantDigits: typeof SIGNIFICANT_DIGITS;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/**
 * `n / d × 10^scale` as a decimal string rounded to `digits` significant digits (half away from
 * zero). `d` must be non-zero; `scale` shifts whole units (e.g. token decimals) without loss.
 * @throws RangeError when d is 0.
 */
export function decimalString(n: bigint, d: bigint, scale = 0, digits = SIGNIFICANT_DIGITS): string {
  if (d === 0n) throw new RangeError('denominator is zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  if (scale > 0) n *= 10n ** BigInt(scale);
  else if (scale < 0) d *= 10n ** BigInt(-scale);
  if (n === 0n) return '0';
  const neg = n < 0n;
  const a = abs(n);
  // e: the power of ten of the leading digit (a/d in [10^e, 10^(e+1))).
  let e = a.toString().length - d.toString().length;
  const below = e >= 0 ? a < d * 10n ** BigInt(e) : a * 10n ** BigInt(-e) < d;
  if (below) e -= 1;
  // q = round(a/d × 10^(digits-1-e)): an integer of `digits` digits (or digits+1 after carry).
  const shift = digits - 1 - e;
  const num = shift >= 0 ? a * 10n ** BigInt(shift) : a;
  const den = shift >= 0 ? d : d * 10n ** BigInt(-shift);
  let q = num / den;
  if ((num % den) * 2n >= den) q += 1n;
  let s = q.toString();
  let point = s.length - shift; // digits before the decimal point
  if (point <= 0) {
    s = '0'.repeat(1 - point) + s;
    point = 1;
  }
  let out = point >= s.length ? s + '0'.repeat(point - s.length) : `${s.slice(0, point)}.${s.slice(point)}`;
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return neg ? `-${out}` : out;
}

/** The sibling object of `n / d × 10^scale` (see {@link decimalString}). */
export function approxDecimal(n: bigint, d: bigint, scale = 0): ApproxDecimal {
  return { decimal: decimalString(n, d, scale), approximate: true, significantDigits: SIGNIFICANT_DIGITS };
}

/** {@link approxDecimal} of a published rational `{numerator, denominator}` (decimal strings). */
export function approxOf(r: { numerator: string; denominator: string }, scale = 0): ApproxDecimal {
  return approxDecimal(BigInt(r.numerator), BigInt(r.denominator), scale);
}
