import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { builtInMarkets, MARKET_DEFAULTS } from './defaults.js';

describe('built-in market defaults', () => {
  it('cover Ethereum, Base, Arbitrum One and OP Mainnet', () => {
    for (const id of [1, 8453, 42161, 10]) expect(MARKET_DEFAULTS[id], String(id)).toBeDefined();
  });

  it('every chain has V2, V3, V4 (+StateView), wrapped native and a USD stablecoin, all EIP-55 checksummed', () => {
    for (const [id, d] of Object.entries(MARKET_DEFAULTS)) {
      const all = [
        d.v2Factory,
        d.v3Factory,
        d.v4PoolManager,
        d.v4StateView,
        d.wrappedNative,
        ...d.usdStablecoins,
      ];
      expect(d.usdStablecoins.length, id).toBeGreaterThan(0);
      for (const a of all) {
        expect(a, `${d.name} ${a}`).toMatch(/^0x[0-9a-fA-F]{40}$/);
        // Mixed case as published: the checksum catches a mistyped character.
        expect(a, `${d.name} ${a} checksum`).toBe(getAddress(a.toLowerCase()));
      }
      expect(new Set(all.map((a) => a.toLowerCase())).size, `${d.name} distinct`).toBe(all.length);
    }
  });

  it('builtInMarkets lowercases and orders quote assets stablecoins → wrapped native → native', () => {
    const m = builtInMarkets(8453)!;
    expect(m.v2Factories).toEqual(['0x8909dc15e40173ff4699343b6eb8132c65e18ec6']);
    expect(m.v4Managers).toEqual(['0x498581ff718922c3f8e6a244956af099b2652b2b']);
    expect(m.quoteAssets.slice(-2)).toEqual([
      '0x4200000000000000000000000000000000000006',
      '0x0000000000000000000000000000000000000000',
    ]);
    expect(builtInMarkets(31337)).toBeNull();
  });
});
