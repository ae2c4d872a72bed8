import { describe, expect, it } from 'vitest';
import { formatUnits, ratioToDecimal } from './format.js';

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
