import { describe, expect, it } from 'vitest';
import { ACTIVITY } from './wallets.js';

describe('ACTIVITY table codecs', () => {
  it('round-trips child references, including the native ordinal and empty lists', () => {
    for (const a of [
      { roles: 0, transfers: [], trades: [] },
      { roles: 3, transfers: [0, 7, 0x8000_0000 + 12], trades: [4, 9] },
      { roles: 1, transfers: [], trades: [0xffff_fffe] },
    ])
      expect(ACTIVITY.value.decode(ACTIVITY.value.encode(a))).toEqual(a);
  });
  it('keys sort by (block, txIndex) inside the wallet prefix', () => {
    const w = `0x${'ab'.repeat(20)}` as const;
    const keys = [
      ACTIVITY.key(w, 2, 0),
      ACTIVITY.key(w, 1, 5),
      ACTIVITY.key(w, 256, 1),
      ACTIVITY.key(w, 1, 0),
    ];
    const sorted = [...keys].sort(Buffer.compare).map((k) => [k.readUInt32BE(25), k.readUInt32BE(29)]);
    expect(sorted).toEqual([
      [1, 0],
      [1, 5],
      [2, 0],
      [256, 1],
    ]);
    for (const k of keys) expect(k.subarray(0, 21)).toEqual(ACTIVITY.prefix(w));
  });
});
