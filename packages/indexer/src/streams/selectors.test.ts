import { describe, expect, it } from 'vitest';
import type { Frame } from './log.js';
import { matches, parseList } from './selectors.js';

const frame = (keys: Frame['keys']): Frame => ({
  topic: 'amm_events',
  event: 'swap',
  json: '{"amount0":"1","amount1":"-2"}',
  keys,
  seq: 1,
  id: 'x',
  block: 1,
});

describe('stream selectors', () => {
  it('a selection naming one dimension (others undefined) matches on it and never throws', () => {
    // What /stream/amm-events?tokens=0x… builds: pools, wallets and launchpads are undefined.
    const sel = {
      all: false,
      dims: {
        tokens: parseList('tokens', '0x00000000000000000000000000000000000000aa', 'address'),
        pools: parseList('pools', undefined, 'pool'),
        wallets: parseList('wallets', undefined, 'address'),
        launchpads: parseList('launchpads', undefined, 'name'),
      },
    };
    const hit = frame({
      pools: ['0x00000000000000000000000000000000000000bb'],
      tokens: ['0x00000000000000000000000000000000000000aa'],
    });
    const miss = frame({
      pools: ['0x00000000000000000000000000000000000000bb'],
      wallets: ['0x00000000000000000000000000000000000000cc'],
      tokens: ['0x00000000000000000000000000000000000000dd'],
    });
    expect(matches(sel, hit)).toBe(true);
    expect(matches(sel, miss)).toBe(false);
  });
});
