/** Liquidity amounts and their USD value: exact by construction, checked on hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { emptyPoolState, type PoolRow, type PoolState } from '../schema/rows/markets.js';
import { liquidityAmounts, liquidityUsd } from './liquidity.js';
import { fromSqrtPriceX96, type Rational, rational } from './rational.js';

const pool = (protocol: PoolRow['protocol']): PoolRow => ({
  key: `0x${'11'.repeat(52)}`,
  protocol,
  contract: `0x${'22'.repeat(20)}`,
  poolId: null,
  currency0: `0x${'aa'.repeat(20)}`,
  currency1: `0x${'bb'.repeat(20)}`,
  fee: 3000,
  tickSpacing: 60,
  hooks: null,
  factory: `0x${'33'.repeat(20)}`,
  created: { block: 1, txIndex: 0, logIndex: 0, txHash: `0x${'44'.repeat(32)}` } as PoolRow['created'],
  createdAt: 0,
});
const state = (s: Partial<PoolState>): PoolState => ({ ...emptyPoolState(), ...s });
const Q96 = 1n << 96n;
const mul = (a: Rational, b: Rational) => rational(a.n * b.n, a.d * b.d);

describe('liquidityAmounts', () => {
  it('V2 and curves: the reserves; none before the first Sync', () => {
    expect(liquidityAmounts(pool('v2'), state({ reserve0: '5', reserve1: '7' }))).toEqual({
      basis: 'reserves',
      amounts: [rational(5n, 1n), rational(7n, 1n)],
      reason: null,
    });
    expect(liquidityAmounts(pool('launchpad'), null).reason).toBe('no_reserves_yet');
  });

  it('V3/V4: in-range virtual reserves L·2^96/√P and L·√P/2^96; both sides worth the same at P', () => {
    const L = 10n ** 18n;
    // Price 4 (√P = 2): amount0 = L/2, amount1 = 2L.
    const a = liquidityAmounts(pool('v3'), state({ sqrtPriceX96: `${2n * Q96}`, liquidity: `${L}` }));
    expect(a.basis).toBe('in_range_virtual_reserves');
    expect(a.amounts).toEqual([rational(L, 2n), rational(2n * L, 1n)]);
    // An awkward mainnet-sized price: amount0 · P = amount1 exactly.
    const sqrtP = 1_461_446_703_485_210_103_287_273_052_203_988_822_378_723_970_341n / 1_234_567n;
    const b = liquidityAmounts(
      pool('v4'),
      state({ sqrtPriceX96: `${sqrtP}`, liquidity: '987654321987654321' }),
    );
    expect(mul(b.amounts![0], fromSqrtPriceX96(sqrtP))).toEqual(b.amounts![1]);
    expect(liquidityAmounts(pool('v4'), state({})).reason).toBe('not_initialized');
    expect(liquidityAmounts(pool('v3'), state({ sqrtPriceX96: '0', liquidity: '1' })).reason).toBe(
      'not_initialized',
    );
  });
});

describe('liquidityUsd', () => {
  const amounts: [Rational, Rational] = [rational(10n ** 18n, 1n), rational(3n * 10n ** 6n, 2n)];
  it('both sides stablecoins: the sum at par', () => {
    expect(liquidityUsd(amounts, [18, 6])).toEqual({
      value: rational(5n, 2n), // 1 USD + 1.5 USD
      reason: null,
      method: 'both_sides_stablecoins_at_par',
    });
  });
  it('one side: twice it; neither: null with side_unpriced', () => {
    expect(liquidityUsd(amounts, [null, 6]).value).toEqual(rational(3n, 1n));
    expect(liquidityUsd(amounts, [18, null]).value).toEqual(rational(2n, 1n));
    expect(liquidityUsd(amounts, [null, null])).toEqual({
      value: null,
      reason: 'side_unpriced',
      method: null,
    });
  });
});
