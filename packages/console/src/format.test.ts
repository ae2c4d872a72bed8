import { describe, expect, it } from 'vitest';
import { formatUnits, quoteText, ratioToDecimal, unitsText, usdText } from './format.js';

describe('console number formatting (exact)', () => {
  it('rationals become rounded decimals with the asked significant digits', () => {
    expect(ratioToDecimal(1n, 3n)).toBe('0.33333333');
    expect(ratioToDecimal(2n, 3n, 0, 4)).toBe('0.6667');
    expect(ratioToDecimal(123456789n, 1n)).toBe('123,456,790');
    expect(ratioToDecimal(15n, 10n)).toBe('1.5');
    expect(ratioToDecimal(1n, 10n ** 30n)).toBe('1e-30');
    expect(ratioToDecimal(-5n, 1000n)).toBe('-0.005');
    expect(ratioToDecimal(999999999n, 1n, 0, 3)).toBe('1,000,000,000');
    expect(ratioToDecimal(7n, 0n)).toBe('—');
    // A V3 price in base units (LINK/USDC), shifted by 18 − 6 decimals.
    expect(
      ratioToDecimal(
        '94103847726090864679830967606681411077193795225',
        '6277101735386680763835789423207666416102355444464034512896',
        12,
      ),
    ).toBe('14.991608');
  });
  it('base units become exact decimals', () => {
    expect(formatUnits('1234500', 6)).toBe('1.2345');
    expect(formatUnits('-1000000', 6)).toBe('-1');
    expect(formatUnits('123456789000000000000000', 18)).toBe('123,456.789');
    expect(formatUnits('5', null)).toBe('5 (base units)');
  });
});

describe('human units beside exact ones', () => {
  it('token amounts in token units with the symbol; unknown decimals stay base units, said so', () => {
    expect(unitsText('1234500000', { symbol: 'USDC', decimals: 6 })).toBe('1,234.5 USDC');
    expect(unitsText('10194913733200000000', { symbol: 'ETH', decimals: 18 })).toBe('10.1949137332 ETH');
    expect(unitsText('42', { symbol: null, decimals: null })).toBe('42 (base units)');
  });

  it('quote-base-unit rationals in quote units (native PnL in ETH, not wei)', () => {
    expect(quoteText('10194913733200000000', '1', { symbol: 'ETH', decimals: 18 })).toBe('10.1949137332 ETH');
    expect(quoteText('-3', '2', { symbol: 'USDC', decimals: 6 })).toBe('-0.0000015 USDC');
    expect(quoteText('7', '2', null)).toBe('3.5 (quote base units)');
  });

  it('USD in dollars and cents, rounded; small values keep four significant digits', () => {
    expect(usdText('2469', '2')).toBe('$1,234.50');
    expect(usdText('1234567', '1000')).toBe('$1,234.57');
    expect(usdText('-5', '4')).toBe('-$1.25');
    expect(usdText('1', '8100')).toBe('$0.0001235');
  });
});
