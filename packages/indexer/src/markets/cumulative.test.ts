import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolCum } from '../schema/rows/markets.js';
import { poolCumCodec } from '../schema/tables/markets.js';

const u256 = fc.bigInt({ min: 0n, max: (1n << 300n) - 1n });
const price = fc
  .tuple(fc.bigInt({ min: 1n, max: 1n << 200n }), fc.bigInt({ min: 1n, max: 1n << 200n }))
  .map(([n, d]) => `${n}/${d}`);

describe('PoolCum binary codec', () => {
  it('round-trips every field exactly (zero volumes, sums beyond 2^256, long rationals)', () => {
    fc.assert(
      fc.property(
        fc.record({
          volume0: u256,
          volume1: u256,
          buyVolume0: u256,
          buyVolume1: u256,
          trades: fc.nat({ max: 2 ** 32 - 1 }),
          buys: fc.nat({ max: 2 ** 32 - 1 }),
          sells: fc.nat({ max: 2 ** 32 - 1 }),
          open: price,
          close: price,
        }),
        (c: PoolCum) => {
          expect(poolCumCodec.decode(poolCumCodec.encode(c))).toEqual(c);
        },
      ),
      { numRuns: 500 },
    );
  });
});
