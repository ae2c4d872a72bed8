/**
 * RocksDB tuning (config ROCKSDB_*): every compression mode opens, stores and reads back the same
 * rows, and a data directory written with one mode reopens with another (each table file records
 * its own compression), so an operator can change the setting between restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { DEFAULT_ROCKS_TUNING, openRocks, type RocksTuning } from './binding.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const rows = Array.from({ length: 2000 }, (_, i) => ({
  key: Buffer.from(`k${String(i).padStart(6, '0')}`),
  value: Buffer.from(JSON.stringify({ i, text: 'x'.repeat(i % 300) })),
}));

describe('RocksDB tuning', () => {
  it('every compression mode round-trips, and a directory reopens under another mode', async () => {
    const modes: Array<RocksTuning['compression']> = ['off', 'bottom', 'zstd'];
    for (const [i, compression] of modes.entries()) {
      const dir = mkdtempSync(join(os.tmpdir(), `tuning-${compression}-`));
      dirs.push(dir);
      const compactions: Array<RocksTuning['compaction']> = ['default', 'level', 'universal'];
      const a = await openRocks(dir, {
        compression,
        cacheMb: 8,
        indexInCache: i % 2 === 0,
        compaction: compactions[i],
        memtableMb: 16,
      });
      a.write(rows);
      await a.close();
      const next = modes[(i + 1) % modes.length];
      const b = await openRocks(dir, {
        compression: next,
        cacheMb: 16,
        indexInCache: i % 2 === 1,
        compaction: compactions[(i + 1) % compactions.length],
      });
      const back: string[] = [];
      b.each({}, (k, v) => {
        back.push(`${Buffer.from(k).toString()}=${Buffer.from(v).toString()}`);
        return true;
      });
      expect(back).toEqual(rows.map((r) => `${r.key.toString()}=${r.value.toString()}`));
      await b.close();
    }
  });

  it('config: defaults, every accepted value, and a typed refusal of anything else', () => {
    const key = () => 'k';
    expect(loadConfig({}, key).storageTuning).toEqual({
      compression: DEFAULT_ROCKS_TUNING.compression,
      cacheMb: 64,
      indexInCache: false,
      compaction: DEFAULT_ROCKS_TUNING.compaction ?? 'default',
      memtableMb: DEFAULT_ROCKS_TUNING.memtableMb,
    });
    const c = loadConfig(
      { ROCKSDB_COMPRESSION: 'bottom', ROCKSDB_CACHE_MB: '256', ROCKSDB_INDEX_IN_CACHE: 'on' },
      key,
    );
    expect(c.storageTuning).toMatchObject({ compression: 'bottom', cacheMb: 256, indexInCache: true });
    const u = loadConfig({ ROCKSDB_COMPACTION: 'universal', ROCKSDB_MEMTABLE_MB: '32' }, key).storageTuning;
    expect(u).toMatchObject({ compaction: 'universal', memtableMb: 32 });
    expect(() => loadConfig({ ROCKSDB_COMPACTION: 'fifo' }, key)).toThrow(/ROCKSDB_COMPACTION/);
    expect(() => loadConfig({ ROCKSDB_MEMTABLE_MB: '2' }, key)).toThrow(/ROCKSDB_MEMTABLE_MB/);
    expect(loadConfig({ ROCKSDB_COMPRESSION: 'zstd' }, key).storageTuning.compression).toBe('zstd');
    expect(() => loadConfig({ ROCKSDB_COMPRESSION: 'lz4' }, key)).toThrow(
      /ROCKSDB_COMPRESSION must be one of/,
    );
    expect(() => loadConfig({ ROCKSDB_INDEX_IN_CACHE: 'yes' }, key)).toThrow(/ROCKSDB_INDEX_IN_CACHE/);
    expect(() => loadConfig({ ROCKSDB_CACHE_MB: '1' }, key)).toThrow(/ROCKSDB_CACHE_MB/);
  });
});
