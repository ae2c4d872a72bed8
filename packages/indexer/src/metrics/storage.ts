/**
 * The storage gauges of each served chain: RocksDB table-file bytes per LSM level, memory and
 * table-file bytes by kind, and one gauge per numeric RocksDB property (live data, pending
 * compaction, running compactions, live versions). Read at scrape time from `store.property`.
 */

import { chainGauge, instruments } from './define.js';
import type { RegisterGauges } from './sources.js';

/** Registers the storage gauges on `registry`, reading `chains()` at every scrape. */
export const registerStorageGauges: RegisterGauges = (registry, chains) => {
  const { gauge } = instruments(registry);
  gauge(
    'indexer_storage_level_bytes',
    'RocksDB table-file bytes per LSM level (rocksdb.levelstats, MiB resolution); with the default `bottom` compression L0 and L1 are stored plain, deeper levels ZSTD',
    ['chain', 'level'],
    (m) => {
      for (const c of chains())
        for (const [level, mib] of levelSizes(c.store.property('rocksdb.levelstats')))
          m.set({ chain: c.name, level: String(level) }, mib * 2 ** 20);
    },
  );
  // RocksDB properties by kind, one gauge per family (chain and kind labels).
  const rocksKindGauges: Array<[name: string, help: string, kinds: Record<string, string>]> = [
    [
      'indexer_storage_memory_bytes',
      'RocksDB memory by kind: memtables (cur-size-all-mem-tables), table_readers (index and filter blocks outside the block cache), block_cache (usage)',
      {
        memtables: 'rocksdb.cur-size-all-mem-tables',
        table_readers: 'rocksdb.estimate-table-readers-mem',
        block_cache: 'rocksdb.block-cache-usage',
      },
    ],
    [
      'indexer_storage_sst_bytes',
      'RocksDB table-file bytes: live (files of the current version: rocksdb.live-sst-files-size) and total (every file still on disk, those kept alive by an older version that an open iterator pins included: rocksdb.total-sst-files-size)',
      { live: 'rocksdb.live-sst-files-size', total: 'rocksdb.total-sst-files-size' },
    ],
  ];
  for (const [name, help, kinds] of rocksKindGauges)
    gauge(name, help, ['chain', 'kind'], (m) => {
      for (const c of chains())
        for (const [kind, property] of Object.entries(kinds))
          m.set({ chain: c.name, kind }, Number(c.store.property(property)) || 0);
    });
  // One gauge per chain and RocksDB property (a number), for storage dashboards and alerts.
  const rocksGauges: Array<[name: string, property: string, help: string]> = [
    [
      'indexer_storage_live_data_bytes',
      'rocksdb.estimate-live-data-size',
      'RocksDB estimated live data size',
    ],
    [
      'indexer_storage_compaction_pending_bytes',
      'rocksdb.estimate-pending-compaction-bytes',
      'RocksDB estimate of the bytes compaction still has to rewrite; the data directory shrinks toward its settled size as it falls to 0',
    ],
    [
      'indexer_storage_compactions_running',
      'rocksdb.num-running-compactions',
      'RocksDB compactions running now',
    ],
    [
      'indexer_storage_live_versions',
      'rocksdb.num-live-versions',
      'RocksDB versions alive: more than a few means open iterators or snapshots pin old ones (and their files)',
    ],
  ];
  for (const [name, property, help] of rocksGauges)
    chainGauge(
      registry,
      chains,
      name,
      `${help} (${property})`,
      (c) => Number(c.store.property(property)) || 0,
    );
};

/**
 * Parses RocksDB's `rocksdb.levelstats` text ("Level Files Size(MB)" then one row per level) into
 * [level, MiB] pairs; an unparsable answer gives none.
 */
export function levelSizes(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+(?:\.\d+)?)\s*$/.exec(line);
    if (m) out.push([Number(m[1]), Number(m[3])]);
  }
  return out;
}
