/**
 * The table registry: ids and names unique, every owner's tables in one id range, codecs
 * round-trip, and every declared invariant is run by the start-up check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANON, HEADER, META } from '../schema/tables/chain.js';
import { ALL_TABLES } from '../schema/tables/index.js';
import { BALANCE, HOLDER_CUR, SEARCH, TOKEN_BY_COORD } from '../schema/tables/tokens.js';
import { checkInvariants, createStore } from './index.js';

describe('table registry', () => {
  it('ids and names are unique', () => {
    const ids = ALL_TABLES.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    const names = ALL_TABLES.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of ALL_TABLES) expect(t.id).toBeGreaterThan(0);
  });

  it('each owner keeps its tables together (no id of one owner between two of another)', () => {
    const byOwner = new Map<string, number[]>();
    for (const t of ALL_TABLES) byOwner.set(t.owner, [...(byOwner.get(t.owner) ?? []), t.id]);
    for (const [owner, ids] of byOwner) {
      const lo = Math.min(...ids);
      const hi = Math.max(...ids);
      const strangers = ALL_TABLES.filter((t) => t.owner !== owner && t.id > lo && t.id < hi);
      expect(
        strangers.map((t) => t.name),
        owner,
      ).toEqual([]);
    }
  });

  it('keys round-trip and sort like their tuples', () => {
    const a = '0x00000000000000000000000000000000000000aa';
    const b = '0x00000000000000000000000000000000000000bb';
    expect(TOKEN_BY_COORD.decodeKey(TOKEN_BY_COORD.key(7, 3, 0xffffffff, a))).toEqual([7, 3, 0xffffffff, a]);
    expect(SEARCH.decodeKey(SEARCH.key(1, 'usd', b))).toEqual([1, 'usd', b]);
    expect(META.decodeKey(META.key('checkpoint:blocks'))).toEqual(['checkpoint:blocks']);
    // Balance-descending index: a larger balance sorts first.
    const big = HOLDER_CUR.key(a, 10n ** 30n, b);
    const small = HOLDER_CUR.key(a, 5n, a);
    expect(Buffer.compare(big, small)).toBeLessThan(0);
    expect(HOLDER_CUR.decodeKey(big)).toEqual([a, 10n ** 30n, b]);
    expect(BALANCE.value.decode(BALANCE.value.encode(-12345678901234567890n))).toBe(-12345678901234567890n);
    expect(CANON.keyWidth).toBe(9);
    expect(HEADER.layout).toBe('number');
  });

  it('keyId is the latin1 of the key bytes, for fixed and variable parts, long keys and prefixes', () => {
    const a = '0x00000000000000000000000000000000000000aa';
    const b = '0x00000000000000000000000000000000000000bb';
    const cases: Array<[Buffer, string]> = [
      [TOKEN_BY_COORD.key(7, 3, 0xffffffff, a), TOKEN_BY_COORD.keyId(7, 3, 0xffffffff, a)],
      [SEARCH.key(1, 'usd', b), SEARCH.keyId(1, 'usd', b)],
      [SEARCH.key(1, 'é'.repeat(700), b), SEARCH.keyId(1, 'é'.repeat(700), b)], // past the scratch buffer
      [META.key('checkpoint:blocks'), META.keyId('checkpoint:blocks')],
      [HOLDER_CUR.key(a, 10n ** 30n, b), HOLDER_CUR.keyId(a, 10n ** 30n, b)],
      [BALANCE.key(a, b), BALANCE.keyId(a, b)],
    ];
    for (const [bytes, id] of cases) expect(Buffer.from(id, 'latin1').equals(bytes)).toBe(true);
    expect(() => BALANCE.keyId(a, '0xnothex' as `0x${string}`)).toThrow();
  });

  it('every declared invariant runs at start-up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-'));
    const store = await createStore({ dataDir: dir, unfinalisedWindow: 4 });
    try {
      store.commitBlock({ number: 0, hash: `0x${'11'.repeat(32)}` }, (b) => b.insert(HEADER, [0], '{}'));
      const declared = ALL_TABLES.flatMap((t) => t.invariants.map((i) => i.name));
      expect(declared.length).toBeGreaterThan(0);
      expect(checkInvariants(store).sort()).toEqual(declared.sort());
      // A broken invariant refuses: drop the header of the checkpoint block.
      store.rocks.write([{ key: HEADER.key(0), value: null }]);
      expect(() => checkInvariants(store)).toThrow(/checkpoint_has_header/);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
