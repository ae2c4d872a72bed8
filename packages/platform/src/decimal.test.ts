import { describe, expect, it } from 'vitest';
import { approxDecimal, decimalString } from './decimal.js';

describe('decimalString', () => {
  it('rounds to 12 significant digits, half away from zero, plain notation', () => {
    expect(decimalString(1n, 3n)).toBe('0.333333333333');
    expect(decimalString(2n, 3n)).toBe('0.666666666667');
    expect(decimalString(-2n, 3n)).toBe('-0.666666666667');
    expect(decimalString(10n, 1n)).toBe('10');
    expect(decimalString(123456789012345n, 1n)).toBe('123456789012000');
    expect(decimalString(1234567890125n, 10n ** 13n)).toBe('0.123456789013');
    expect(decimalString(999999999999999n, 10n ** 15n)).toBe('1');
    expect(decimalString(0n, 7n)).toBe('0');
    expect(decimalString(1n, 10n ** 30n)).toBe('0.000000000000000000000000000001');
    expect(decimalString(5n, -2n)).toBe('-2.5');
  });

  it('scales by powers of ten exactly: wei to ETH, base units to whole tokens', () => {
    expect(decimalString(10_194_913_733_200_000_000n, 1n, -18)).toBe('10.1949137332');
    expect(decimalString(1_500_000n, 1n, -6)).toBe('1.5');
    // USDC (6) per WETH (18): 3,012.55 USDC per WETH as base units per base unit.
    expect(decimalString(301255n, 10n ** 14n, 12)).toBe('3012.55');
  });

  it('an 81-digit rational gives a short decimal', () => {
    const n = 10n ** 80n * 123n + 7n;
    expect(decimalString(n, 10n ** 80n)).toBe('123');
  });

  it('the sibling object flags itself approximate with its precision', () => {
    expect(approxDecimal(1n, 8n)).toEqual({ decimal: '0.125', approximate: true, significantDigits: 12 });
  });

  it('refuses a zero denominator', () => {
    expect(() => decimalString(1n, 0n)).toThrow(RangeError);
  });
});
