/**
 * Exact number formatting for the console: every figure the API sends as a decimal string or an
 * exact rational stays a BigInt until it becomes text (no float ever touches a balance or price,
 * except the chart's plotted values, which are floats by nature).
 */

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Base units as an exact decimal (`1234500` with 6 decimals → `1.2345`); raw when decimals unknown. */
export function formatUnits(raw: string | bigint, decimals: number | null | undefined): string {
  const v = BigInt(raw);
  if (decimals === null || decimals === undefined) return `${v} (base units)`;
  const neg = v < 0n;
  const a = neg ? -v : v;
  const int = a / pow10(decimals);
  const frac = (a % pow10(decimals)).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${groupThousands(int.toString())}${frac ? `.${frac}` : ''}`;
}

/** `1234567` → `1,234,567`. */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * `num/den × 10^shift` as a decimal with `sig` significant digits (rounded half up); scientific
 * notation outside 1e-9 … 1e21. `—` when the denominator is zero.
 */
export function ratioToDecimal(num: string | bigint, den: string | bigint, shift = 0, sig = 8): string {
  let n = BigInt(num);
  let d = BigInt(den);
  if (d === 0n) return '—';
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const neg = n < 0n;
  if (neg) n = -n;
  if (n === 0n) return '0';
  if (shift > 0) n *= pow10(shift);
  else if (shift < 0) d *= pow10(-shift);
  // e = floor(log10(n/d)), from digit counts then corrected by one comparison.
  let e = n.toString().length - d.toString().length;
  if (e >= 0 ? n < d * pow10(e) : n * pow10(-e) < d) e--;
  const p = sig - 1 - e;
  let v = p >= 0 ? (n * pow10(p) * 2n + d) / (2n * d) : (n * 2n + d * pow10(-p)) / (2n * d * pow10(-p));
  if (v.toString().length > sig) {
    v /= 10n;
    e++;
  }
  const digits = v.toString();
  const sign = neg ? '-' : '';
  if (e >= 21 || e < -9) {
    const m = digits.replace(/0+$/, '');
    return `${sign}${m[0]}${m.length > 1 ? `.${m.slice(1)}` : ''}e${e}`;
  }
  if (e >= sig - 1) return sign + groupThousands(digits + '0'.repeat(e - (sig - 1)));
  if (e >= 0) {
    const int = digits.slice(0, e + 1);
    const frac = digits.slice(e + 1).replace(/0+$/, '');
    return `${sign}${groupThousands(int)}${frac ? `.${frac}` : ''}`;
  }
  return `${sign}0.${'0'.repeat(-e - 1)}${digits.replace(/0+$/, '')}`;
}

/** A float for charts: `num/den × 10^shift` (precision of a double, which a chart needs only). */
export function ratioToNumber(num: string | bigint, den: string | bigint, shift = 0): number {
  const s = ratioToDecimal(num, den, shift, 15).replaceAll(',', '');
  return s === '—' ? Number.NaN : Number(s);
}

/** Shortened hex (`0x1234…abcd`). */
export const short = (hex: string | null | undefined, n = 6): string =>
  !hex ? '—' : hex.length <= 2 + 2 * n ? hex : `${hex.slice(0, 2 + n)}…${hex.slice(-4)}`;

/** A fraction 0..1 as a percentage. */
export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`;

/** Native currency of the chain (the zero address as a quote). */
export const NATIVE = '0x0000000000000000000000000000000000000000';

/** What a token amount is shown in: its symbol and decimals (null: unknown, shown in base units). */
export interface TokenMeta {
  symbol: string | null;
  decimals: number | null;
}

/** `1,234.5 USDC` from base units; base units in the title. Unknown decimals: base units, said so. */
export function unitsText(raw: string, meta: TokenMeta | null | undefined): string {
  if (!meta || meta.decimals === null) return formatUnits(raw, null);
  return `${formatUnits(raw, meta.decimals)}${meta.symbol ? ` ${meta.symbol}` : ''}`;
}

/** `n/d` quote base units as quote units (12 significant digits) with the symbol. */
export function quoteText(n: string, d: string, meta: TokenMeta | null | undefined): string {
  if (!meta || meta.decimals === null) return `${ratioToDecimal(n, d, 0, 12)} (quote base units)`;
  return `${ratioToDecimal(n, d, -meta.decimals, 12)}${meta.symbol ? ` ${meta.symbol}` : ''}`;
}

/**
 * `$1,234.57` from an exact USD rational: whole cents (rounded half up) from one dollar, four
 * significant digits below (`$0.0001234`).
 */
export function usdText(num: string, den: string): string {
  let n = BigInt(num);
  let d = BigInt(den);
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const neg = n < 0n;
  const a = neg ? -n : n;
  if (a < d) return `${neg ? '-' : ''}$${ratioToDecimal(a, d, 0, 4)}`;
  const cents = (a * 200n + d) / (2n * d);
  const int = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}$${int}.${(cents % 100n).toString().padStart(2, '0')}`;
}
