/**
 * The versioned-table registry (schema/history.ts): every table that keeps versions by block
 * declares how they are pruned, so HISTORY_RETENTION reaches a new one without anyone remembering
 * to add it to the pruner; each declaration matches its table's key layout.
 */
import { describe, expect, it } from 'vitest';
import { K, V } from './codec.js';
import { looksVersioned, undeclaredVersioned, VERSIONED_TABLES } from './history.js';
import { defineTable } from './table.js';
import { ALL_TABLES } from './tables/index.js';

describe('versioned tables: every one is declared', () => {
  it('every table named …_history, or documented as written each block, has a pruning declaration', () => {
    expect(undeclaredVersioned(ALL_TABLES)).toEqual([]);
  });

  it('a new …_history table without a declaration fails the check', () => {
    const t = defineTable({
      id: 0xfe,
      owner: 'markets',
      name: 'tick_history',
      doc: 'ticks of a pool as of each block that changed them',
      key: [K.address, K.u64],
      value: V.u64,
    });
    expect(looksVersioned(t)).toBe(true);
    expect(undeclaredVersioned([...ALL_TABLES, t])).toEqual(['markets.tick_history']);
  });

  it('declarations name registered block tables, once each, in the pruner order', () => {
    const ids = VERSIONED_TABLES.map((v) => v.table.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const v of VERSIONED_TABLES) {
      expect(ALL_TABLES).toContain(v.table);
      expect(v.table.kind, v.table.name).toBe('block');
      expect(v.lookbackSeconds, v.table.name).toBeGreaterThanOrEqual(0);
      expect(v.readers.length, v.table.name).toBeGreaterThan(0);
    }
  });

  it("a `since` table's key is fixed width and ends with the u64 block; an `interval` table's with fromBlock", () => {
    for (const v of VERSIONED_TABLES) {
      const t = v.table;
      expect(t.keyWidth, t.name).not.toBeNull();
      const last = t.layout.split(', ').at(-1);
      expect(last, t.name).toBe(v.layout.kind === 'since' ? 'block' : 'fromBlock');
      // The last 8 bytes of a key are that block, big-endian (what the pruner reads).
      const key = Buffer.alloc(t.keyWidth as number, 0x11);
      key[0] = t.id;
      key.writeUInt32BE(0, key.length - 8);
      key.writeUInt32BE(1234, key.length - 4);
      expect(t.decodeKey(key).at(-1), t.name).toBe(1234);
    }
  });
});
