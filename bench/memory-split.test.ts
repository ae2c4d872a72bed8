import { describe, expect, it } from 'vitest';
import { memorySplit, nodeFlagsFor, threadCpuSplit } from './ingest-transfers.js';

const MiB = 2 ** 20;
/** A scrape of the indexer's metrics as it prints them (recorded shape, values chosen). */
const scrape = [
  '# HELP indexer_process_process_resident_memory_bytes Resident memory size in bytes.',
  `indexer_process_process_resident_memory_bytes ${1000 * MiB}`,
  `indexer_process_nodejs_heap_size_total_bytes ${250 * MiB}`,
  `indexer_process_nodejs_external_memory_bytes ${80 * MiB}`,
  `indexer_storage_memory_bytes{chain="bench",kind="memtables"} ${60 * MiB}`,
  `indexer_storage_memory_bytes{chain="bench",kind="table_readers"} ${200 * MiB}`,
  `indexer_storage_memory_bytes{chain="bench",kind="block_cache"} ${64 * MiB}`,
  `indexer_thread_heap_bytes{chain="",thread="serving",kind="total"} ${250 * MiB}`,
  `indexer_thread_heap_bytes{chain="bench",thread="engine-1",kind="total"} ${100 * MiB}`,
  `indexer_thread_heap_bytes{chain="bench",thread="engine-1",kind="used"} ${90 * MiB}`,
  `indexer_thread_heap_bytes{chain="bench",thread="writer-4",kind="total"} ${6 * MiB}`,
  `indexer_thread_heap_bytes{chain="bench",thread="decode-2",kind="total"} ${30 * MiB}`,
  `indexer_thread_heap_bytes{chain="bench",thread="decode-3",kind="total"} ${20 * MiB}`,
].join('\n');

describe('memorySplit', () => {
  it('names each part and leaves the rest to what none names', () => {
    expect(memorySplit(scrape)).toEqual({
      rss: 1000,
      mainHeap: 250,
      external: 80,
      memtables: 60,
      tableReaders: 200,
      blockCache: 64,
      engineHeap: 100,
      writerHeap: 6,
      replayHeap: Number.NaN,
      decodeHeaps: 50,
      rest: 190,
    });
  });

  it('sums a kind over chains, and leaves RocksDB out of the rest when a build has no such gauge', () => {
    const two = `${scrape}\nindexer_storage_memory_bytes{chain="other",kind="memtables"} ${4 * MiB}`;
    expect(memorySplit(two)?.memtables).toBe(64);
    const old = scrape
      .split('\n')
      .filter((l) => !l.startsWith('indexer_storage'))
      .join('\n');
    expect(memorySplit(old)).toMatchObject({ memtables: Number.NaN, rest: 514 });
  });

  it('is null without the process metrics', () => {
    expect(memorySplit('indexer_ingest_head 5')).toBeNull();
  });
});

describe('threadCpuSplit', () => {
  it("sums each kind of thread and leaves the process's rest", () => {
    const m = [
      'indexer_thread_cpu_seconds_total{chain="",thread="serving"} 1.5',
      'indexer_thread_cpu_seconds_total{chain="bench",thread="engine-1"} 7',
      'indexer_thread_cpu_seconds_total{chain="bench",thread="writer-2"} 2',
      'indexer_thread_cpu_seconds_total{chain="bench",thread="decode-4"} 3',
      'indexer_thread_cpu_seconds_total{chain="bench",thread="decode-5"} 1',
    ].join('\n');
    expect(threadCpuSplit(m, 20)).toEqual({ serving: 1.5, engine: 7, writer: 2, decode: 4, rest: 5.5 });
    expect(threadCpuSplit('indexer_ingest_head 5', 20)).toBeNull();
  });
});

describe('nodeFlagsFor', () => {
  it('gives each label its own node flags, in order', () => {
    const argv = [
      '--node-of',
      'gc1=--single-threaded-gc,--max-semi-space-size=32',
      '--node-of',
      'gc10=--x',
      '--node-of',
      'gc1=--y',
    ];
    expect(nodeFlagsFor(argv, 'gc1')).toEqual(['--single-threaded-gc', '--max-semi-space-size=32', '--y']);
    expect(nodeFlagsFor(argv, 'gc')).toEqual([]);
  });
});
