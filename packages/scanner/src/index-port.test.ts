/** Chain roles of the scanner (main, rh, other) from the served chains and the environment. */
import { describe, expect, it } from 'vitest';
import { chainRoles } from './index-port.js';

describe('chainRoles', () => {
  it('main is the first chain; rh is the second embedded devnet, none otherwise', () => {
    expect([...chainRoles(['devnet', 'devnet2'], {}, true)]).toEqual([
      ['devnet', 'main'],
      ['devnet2', 'rh'],
    ]);
    expect([...chainRoles(['eth', 'base'], {}, false)]).toEqual([
      ['eth', 'main'],
      ['base', 'other'],
    ]);
    expect([...chainRoles(['devnet'], {}, true)]).toEqual([['devnet', 'main']]);
  });

  it('SCANNER_MAIN_CHAIN and SCANNER_RH_CHAIN choose; unknown or equal chains are refused', () => {
    const env = { SCANNER_MAIN_CHAIN: 'base', SCANNER_RH_CHAIN: 'robinhood' };
    expect([...chainRoles(['eth', 'base', 'robinhood'], env, false)]).toEqual([
      ['eth', 'other'],
      ['base', 'main'],
      ['robinhood', 'rh'],
    ]);
    expect(() => chainRoles(['eth'], { SCANNER_RH_CHAIN: 'rh' }, false)).toThrow('not served');
    expect(() => chainRoles(['eth', 'x'], { SCANNER_RH_CHAIN: 'eth' }, false)).toThrow('both');
  });
});
