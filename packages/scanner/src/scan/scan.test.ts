/** Unit rules of the scan layer: the indexer-refusal mapping, PUSH4 selector extraction, shares, stop labels. */

import { DomainError } from '@chain-indexer/indexer/port';
import { describe, expect, it } from 'vitest';
import { ScannerError } from '../errors.js';
import { NO_INDEX } from '../index-port.js';
import { shareOf, stopLabel } from './common.js';
import { push4Immediates } from './contract.js';
import { chainFor, mapIndexError } from './read.js';

describe('mapIndexError', () => {
  it('maps absence, bad input and every unavailable state; leaves other errors alone', () => {
    const nf = mapIndexError(new DomainError('not_found', 'token 0x… is not indexed')) as ScannerError;
    expect([nf.code, nf.status]).toEqual(['NOT_FOUND', 404]);
    expect((mapIndexError(new DomainError('bad_request', 'x')) as ScannerError).code).toBe('INVALID_INPUT');
    for (const c of [
      'projection_unavailable',
      'node_unavailable',
      'not_ready',
      'ingest_halted',
      'replica_lagging',
    ] as const) {
      const e = mapIndexError(new DomainError(c as never, 'busy', { projection: 'wallets' })) as ScannerError;
      expect([e.code, e.status, e.retryable]).toEqual(['INDEX_UNAVAILABLE', 503, true]);
      expect(e.extra).toMatchObject({ reason: c });
    }
    const other = new Error('boom');
    expect(mapIndexError(other)).toBe(other);
  });

  it('a scanner without an index, or without an rh chain, names what is missing', () => {
    expect(() => chainFor(NO_INDEX, 'main')).toThrow(
      expect.objectContaining({ code: 'CHAIN_NOT_CONFIGURED', extra: { missing: 'index' } }),
    );
    const one = { ...NO_INDEX, chains: () => [{ name: 'eth', chainId: 1, role: 'main' as const }] };
    expect(chainFor(one, 'main')).toBe('eth');
    expect(() => chainFor(one, 'rh')).toThrow(
      expect.objectContaining({ extra: { missing: 'SCANNER_RH_CHAIN' } }),
    );
    expect(() => NO_INDEX.read('eth', () => 1)).toThrow(ScannerError);
  });
});

describe('push4Immediates', () => {
  it('reads PUSH4 immediates and never reads push data as opcodes', () => {
    // PUSH4 40c10f19, PUSH2 6300 (push data that looks like PUSH4), PUSH4 8456cb59, PUSH32 with 0x63 inside.
    const code = `0x6340c10f1961630063${'8456cb59'}7f${'63'.repeat(32)}00` as const;
    expect([...push4Immediates(code)]).toEqual(['0x40c10f19', '0x8456cb59']);
    expect(push4Immediates('0x63aabb')).toEqual(new Set()); // truncated PUSH4
  });
});

describe('shares and stop labels', () => {
  it('shares are exact with floored basis points; no share of an empty whole', () => {
    expect(shareOf(1n, 3n)).toEqual({ numerator: '1', denominator: '3', bps: 3333 });
    expect(shareOf(1n, 0n)).toBeNull();
  });
  it('exchange and bridge labels stop a funding chain', () => {
    expect(stopLabel([{ label: 'Exchange:Binance' }])).toBe('exchange');
    expect(stopLabel([{ label: 'bridge:op' }])).toBe('bridge');
    expect(stopLabel([{ label: 'token' }, { label: 'kol' }])).toBeNull();
  });
});
