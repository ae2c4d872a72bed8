/** The quote rules and the windows rule, on hand-built pools (pure functions, no store). */
import { describe, expect, it } from 'vitest';
import type { PoolRow } from '../schema/rows/markets.js';
import { quoteCandidates, resolveFirstPaintQuote, resolveQuote } from './venue.js';
import { WINDOWS, windowFrom } from './windows.js';

const T = `0x${'aa'.repeat(20)}`;
const WETH = `0x${'ee'.repeat(20)}`;
const USDC = `0x${'cc'.repeat(20)}`;
const DAI = `0x${'dd'.repeat(20)}`;
let n = 0;
const pool = (c0: string, c1: string): PoolRow => ({
  key: `0x${(++n).toString(16).padStart(104, '0')}`,
  protocol: 'v2',
  contract: `0x${'22'.repeat(20)}`,
  poolId: null,
  currency0: c0,
  currency1: c1,
  fee: 3000,
  tickSpacing: null,
  hooks: null,
  factory: `0x${'33'.repeat(20)}`,
  created: { block: n, txIndex: 0, logIndex: 0, txHash: `0x${'44'.repeat(32)}` },
  createdAt: 0,
});

describe('quote rule', () => {
  const pools = [pool(T, WETH), pool(USDC, T), pool(T, DAI), pool(T, USDC)];
  it('candidates are the counter currencies, once each, ascending', () => {
    expect(quoteCandidates(pools, T)).toEqual([USDC, DAI, WETH].sort());
  });
  it('named: admitted when a pool pairs them (any case), else not_admitted', () => {
    expect(resolveQuote(pools, T, WETH.toUpperCase().replace('0X', '0x'))).toMatchObject({
      ok: true,
      quote: WETH,
      how: 'named',
    });
    expect(resolveQuote(pools, T, `0x${'99'.repeat(20)}`)).toMatchObject({ ok: false, kind: 'not_admitted' });
  });
  it('absent: the only counter currency, else ambiguous; no pools: no_pools', () => {
    expect(resolveQuote([pools[0]], T, undefined)).toMatchObject({ ok: true, how: 'only_counter_currency' });
    expect(resolveQuote(pools, T, undefined)).toMatchObject({ ok: false, kind: 'ambiguous' });
    expect(resolveQuote([], T, undefined)).toMatchObject({ ok: false, kind: 'no_pools' });
  });
  it('first paint extends only the ambiguous case: the stablecoin quote with the largest positive volume', () => {
    const stables = new Set([USDC, DAI]);
    const vol = new Map<string, bigint>([
      [pools[0].key, 10n ** 30n], // WETH: largest, but not USD-markable
      [pools[1].key, 5n],
      [pools[3].key, 6n], // USDC: 11 over two pools
      [pools[2].key, 10n], // DAI: 10
    ]);
    const v = (p: PoolRow) => vol.get(p.key) ?? 0n;
    expect(resolveFirstPaintQuote(pools, T, undefined, stables, v)).toMatchObject({
      ok: true,
      quote: USDC,
      how: 'largest_usd_markable_volume',
    });
    // The strict rule's answers are unchanged (named, single, not admitted).
    expect(resolveFirstPaintQuote(pools, T, WETH, stables, v)).toEqual(resolveQuote(pools, T, WETH));
    expect(resolveFirstPaintQuote([pools[0]], T, undefined, stables, v)).toEqual(
      resolveQuote([pools[0]], T, undefined),
    );
    // No USD-markable volume: still ambiguous, with the candidates.
    expect(resolveFirstPaintQuote(pools, T, undefined, stables, () => 0n)).toMatchObject({
      ok: false,
      kind: 'ambiguous',
      candidates: quoteCandidates(pools, T),
    });
  });
});

describe('windows', () => {
  it('are 5m, 1h, 4h, 24h of whole minutes: a window starts at the first minute after now − length', () => {
    expect(WINDOWS.map(([w]) => w)).toEqual(['5m', '1h', '4h', '24h']);
    expect(windowFrom(1_000_000, 300)).toBe(999_720); // now−300 = 999,700 → next minute boundary
    expect(windowFrom(999_960, 300)).toBe(999_720); // now on a boundary: (now − 300, now] = 5 whole minutes
    for (const [, s] of WINDOWS) expect(windowFrom(86_400 * 3 + 17, s) % 60).toBe(0);
  });
});
