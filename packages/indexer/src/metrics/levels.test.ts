/** RocksDB's levelstats text parsed into per-level sizes (the indexer_storage_level_bytes gauge). */
import { describe, expect, it } from 'vitest';
import { levelSizes } from './index.js';

describe('levelSizes', () => {
  it('reads each level row of rocksdb.levelstats', () => {
    const text =
      'Level Files Size(MB)\n--------------------\n  0        3       95\n  1        1       60\n  2       12      731\n  3       84     3890\n  4        0        0\n';
    expect(levelSizes(text)).toEqual([
      [0, 95],
      [1, 60],
      [2, 731],
      [3, 3890],
      [4, 0],
    ]);
  });
  it('gives nothing for an answer it cannot read', () => {
    expect(levelSizes('')).toEqual([]);
    expect(levelSizes('Level Files Size(MB)\n')).toEqual([]);
  });
});
