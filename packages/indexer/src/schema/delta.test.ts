/** The probe row's canonical order (delta.ts canonicalProbes): its stored bytes never depend on answer order. */
import { describe, expect, it } from 'vitest';
import { canonicalProbes, type MetadataProbes } from './delta.js';
import type { TokenMetadata } from './rows/tokens.js';

const meta = (symbol: string): TokenMetadata =>
  ({
    name: { value: `${symbol} token`, reason: null, encoding: 'string' },
    symbol: { value: symbol, reason: null, encoding: 'string' },
    decimals: { value: 18, reason: null, encoding: null },
    totalSupply: { value: '1', reason: null, encoding: null },
    codeHash: `0x${'ab'.repeat(32)}`,
  }) as unknown as TokenMetadata;

describe('canonicalProbes', () => {
  it('stores the same probes as the same bytes whichever eth_call answered first', () => {
    const a = '0xe57682065c7b5168fbbd805563ec31a77199ef38';
    const b = '0x1e2bba3635735aa90b2c389a3708cd7afcf2f8be';
    const first: MetadataProbes = { [a]: meta('A'), [b]: meta('B') };
    const second: MetadataProbes = { [b]: meta('B'), [a]: meta('A') };
    expect(JSON.stringify(first)).not.toBe(JSON.stringify(second));
    expect(JSON.stringify(canonicalProbes(first))).toBe(JSON.stringify(canonicalProbes(second)));
    expect(Object.keys(canonicalProbes(first))).toEqual([b, a]);
    expect(canonicalProbes(first)).toEqual(first);
  });
});
