/**
 * The USD mark rule (./usd.ts) over a table of venue prices: stablecoin par, a stablecoin quote,
 * a quote marked through a stablecoin venue, quote priority, and every unmarked reason. The venue
 * choice itself is the markets reader's (its own tests and the scanner-scans e2e cover it); here
 * the reader answers from the table, exactly as its `pairPrice` contract says.
 */

import type { Rational } from '@chain-indexer/indexer/types';
import { describe, expect, it } from 'vitest';
import type { ReadCtx } from '../index-port.js';
import { usdMarker } from './usd.js';

const A = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const NATIVE = A(0);
const [USDC, DAI, WETH, LINK, MEME, ODD, DUST, NOPRICE] = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => A(0x100 + n));

/** (base, quote) → price (null: a venue before its first trade). */
/** The V2 pool contract of pair `k` in the table (its key is the address + 32 zero bytes, as the indexer's). */
const poolOf = (prices: Record<string, unknown>, k: string) => A(0x900 + Object.keys(prices).indexOf(k));

function ctx(prices: Record<string, Rational | null>, decimals: Record<string, number>): ReadCtx {
  const markets = {
    pairPrice: (_v: unknown, base: string, quote: string) => {
      const k = `${base}/${quote}`;
      if (!(k in prices)) return null;
      const contract = poolOf(prices, k);
      return {
        venue: { pool: { key: `${contract}${'0'.repeat(64)}`, protocol: 'v2', contract, poolId: null } },
        price: prices[k],
      };
    },
  };
  const tokens = {
    find: (_v: unknown, t: string) =>
      t in decimals ? { metadata: { decimals: { value: decimals[t] } } } : null,
  };
  return {
    view: {} as never,
    anchor: { chain: 'c', block: 10, hash: `0x${'0'.repeat(64)}` },
    readers: { markets, tokens } as never,
    config: {
      usdStablecoins: [USDC, DAI],
      quoteAssets: [USDC, DAI, WETH, NATIVE],
      verifiedAbis: [],
      labelled: new Map(),
    },
  };
}

const decimals = { [USDC]: 6, [DAI]: 18, [WETH]: 18, [LINK]: 18 };

describe('usdMarker', () => {
  it('marks a stablecoin at par, a token through a stablecoin venue, and one through a quote', () => {
    const prices = {
      [`${LINK}/${USDC}`]: { n: 15n, d: 10n ** 12n }, // 15 USDC (6 dec) per LINK (18 dec)
      [`${MEME}/${NATIVE}`]: { n: 1n, d: 1000n },
      [`${NATIVE}/${USDC}`]: { n: 3000n, d: 10n ** 12n },
    };
    const mark = usdMarker(ctx(prices, decimals));
    const approx = (decimal: string) => ({ decimal, approximate: true, significantDigits: 12 });
    expect(mark(USDC)).toEqual({
      marked: true,
      mark: {
        method: 'usd_stablecoin_par',
        usdPerBaseUnit: { numerator: '1', denominator: '1000000' },
        usdPerUnitApprox: approx('1'),
        usdPerUnitApproxReason: null,
        stablecoin: { address: USDC, decimals: 6 },
        legs: [],
      },
    });
    const link = mark(LINK);
    expect(link).toMatchObject({
      marked: true,
      mark: {
        method: 'venue_price_in_usd_stablecoin',
        usdPerBaseUnit: { numerator: '3', denominator: (2n * 10n ** 17n).toString() }, // 15 / 10^18
        usdPerUnitApprox: approx('15'),
      },
    });
    if (!link.marked) throw new Error('unreachable');
    // The leg names the 20-byte V2 pool (not its 52-byte key) and the price in whole units.
    expect(link.mark.legs).toEqual([
      {
        base: LINK,
        quote: USDC,
        pool: poolOf(prices, `${LINK}/${USDC}`),
        poolId: null,
        contract: poolOf(prices, `${LINK}/${USDC}`),
        protocol: 'v2',
        poolKey: `${poolOf(prices, `${LINK}/${USDC}`)}${'0'.repeat(64)}`,
        price: { numerator: '3', denominator: (2n * 10n ** 11n).toString() }, // 15 / 10^12, reduced
        priceApprox: approx('15'),
        priceApproxReason: null,
      },
    ]);
    const meme = mark(MEME);
    expect(meme).toMatchObject({ marked: true, mark: { method: 'venue_price_via_quote' } });
    if (!meme.marked) throw new Error('unreachable');
    // 1/1000 native per token × 3000/10^12 USDC per wei / 10^6 = 3 / 10^18 USD per base unit.
    expect(meme.mark.usdPerBaseUnit).toEqual({ numerator: '3', denominator: (10n ** 18n).toString() });
    expect(meme.mark.legs.map((l) => [l.base, l.quote, l.pool])).toEqual([
      [MEME, NATIVE, poolOf(prices, `${MEME}/${NATIVE}`)],
      [NATIVE, USDC, poolOf(prices, `${NATIVE}/${USDC}`)],
    ]);
    // MEME's decimals are unknown: no whole-unit figures for it, each with the reason; ETH at 3000 USDC.
    expect(meme.mark).toMatchObject({ usdPerUnitApprox: null, usdPerUnitApproxReason: 'decimals_unknown' });
    expect(meme.mark.legs.map((l) => [l.priceApprox?.decimal ?? null, l.priceApproxReason])).toEqual([
      [null, 'decimals_unknown'],
      ['3000', null],
    ]);
  });

  it('tries quotes in priority order and skips one without a price or a USD route', () => {
    const mark = usdMarker(
      ctx(
        {
          [`${LINK}/${USDC}`]: null, // venue without a trade
          [`${LINK}/${WETH}`]: { n: 1n, d: 200n }, // WETH has no USD venue
          [`${LINK}/${NATIVE}`]: { n: 1n, d: 100n },
          [`${NATIVE}/${DAI}`]: { n: 2000n, d: 1n },
        },
        decimals,
      ),
    );
    const link = mark(LINK);
    expect(link).toMatchObject({ marked: true, mark: { method: 'venue_price_via_quote' } });
    if (!link.marked) throw new Error('unreachable');
    // 1/100 × 2000 / 10^18 = 20 / 10^18.
    expect(link.mark.usdPerBaseUnit).toEqual({ numerator: '1', denominator: (5n * 10n ** 16n).toString() });
    expect(link.mark.stablecoin).toEqual({ address: DAI, decimals: 18 });
  });

  it('states why a holding is unmarked, with every quote tried', () => {
    const mark = usdMarker(
      ctx(
        {
          [`${ODD}/${WETH}`]: { n: 1n, d: 2n },
          [`${NOPRICE}/${USDC}`]: null,
        },
        { [DAI]: 18, [WETH]: 18 }, // USDC decimals unknown
      ),
    );
    expect(mark(DUST)).toEqual({
      marked: false,
      reason: 'no_pool_against_a_quote_asset',
      tried: [USDC, DAI, WETH, NATIVE].map((quote) => ({ quote, reason: 'no_pool_against_a_quote_asset' })),
    });
    expect(mark(ODD)).toMatchObject({ marked: false, reason: 'quote_has_no_usd_route' });
    expect(mark(NOPRICE)).toMatchObject({ marked: false, reason: 'venue_has_no_price_yet' });
    expect(mark(USDC)).toEqual({ marked: false, reason: 'decimals_unknown', tried: [] });
  });
});
