/**
 * Ingest at a transfer-heavy chain shape: one anvil chain of `--blocks` blocks × `--tx` plain ERC-20
 * transfers (bench/transfer-chain.ts), the node's raw fetch ceiling on it (bench/rawfetch.ts, the
 * indexer's own request pattern without processing), then one indexer per `--main` build backfilled
 * to head on the same node, one after the other, each with a fresh data directory and the default
 * configuration (as a new user runs it).
 *
 * Reports per build: time to head (from spawn, and from its first committed block), transactions/s
 * and events/s over the backfill, each as a ratio of the raw fetch ceiling, and main-thread
 * milliseconds per block by commit stage (the indexer's `indexer_ingest_commit_stage_seconds_total`
 * counter; builds without it show "n/a").
 *
 * Usage: node dist/bench/ingest-transfers.js [--blocks 1000] [--tx 50] [--senders 500]
 *          [--wallets 5000] [--main label=/path/to/dist/app/main.js]… [--rounds 1] [--prof]
 *          [--peer ponder|subsquid|ponder,subsquid] [--env-of label=K=V,K2=V2]…
 *          [--node-of label=--flag,--flag2=v]… [--out report.md]
 * `--env-of` and `--node-of` give one `--main` label its environment and node flags (so one build
 * can run under two labels, e.g. with and without a V8 GC flag).
 * `--peer` adds peers on the same node after the indexer runs, one at a time, in the order given,
 * in the same table: Ponder (bench/peer-ponder.ts) and Subsquid (bench/peer-subsquid.ts, on a
 * local PostgreSQL), each installed from npm into a temp dir kept between runs. With peers, each
 * build is also timed until the tokens projection and every projection are at head, the sampled
 * balances of the project and of Subsquid are held to `balanceOf` at head (bench/peer-check.ts),
 * and a side-by-side section gives the ratios and issue AA's budgets against the bare fetch.
 * `npm run bench -- --peer ponder,subsquid` runs this.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type TableSize, tableSizes } from '@chain-indexer/indexer/testing';
import { callersOf, topSelf } from './cpuprofile.js';
import {
  benchArgs,
  emitReport,
  envFor,
  type IndexerChild,
  log,
  onCleanup,
  rssMiB,
  runIfEntry,
  sleep,
  startIndexerChild,
} from './lib.js';
import {
  type BalanceCheck,
  balancesOnNode,
  checkCell,
  compareBalances,
  sampleHolders,
} from './peer-check.js';
import { blockHashes, type LogsFetchResult, logsFetch, type RawFetchResult, rawFetch } from './rawfetch.js';
import { buildTransferChain, type TransferChain } from './transfer-chain.js';

/** Task sizes the raw fetch ceiling tries (its best counts): the indexer's default and a larger one. */
const CEILING_TASK_SIZES = [5, 20];
/** The indexer's default decode threads (packages/indexer/src/config). */
const DECODE_THREADS = 2;

export interface IngestRun {
  /** Logical bytes per table of the store at head (when asked for). */
  tables?: TableSize[];
  label: string;
  main: string;
  /** Seconds from spawn until the anchor reached the chain head. */
  toHeadSeconds: number;
  /** Seconds from the first committed block until head. */
  backfillSeconds: number;
  blocksPerSecond: number;
  txPerSecond: number;
  eventsPerSecond: number;
  peakRssMiB: number;
  /** Main-thread CPU ms per block over the backfill (from /proc; insensitive to other load). */
  mainCpuMsPerBlock: number;
  /** CPU ms per block of the whole indexer process (main thread, decode workers, RocksDB). */
  processCpuMsPerBlock: number;
  /**
   * Process CPU ms per block by thread over the whole run from spawn (start-up included; every
   * block 0..head): serving, engine, writer, decode, replay and the rest ({@link threadCpuSplit}).
   */
  cpuMsPerBlockByThread?: Record<string, number> | null;
  /** Main-thread ms per block by commit stage (null when the build has no stage counter). */
  stageMsPerBlock: Record<string, number> | null;
  slowCommits: number;
  /**
   * Main-thread commit time per block by transaction count class (`0-49`, `50-149`, `150+`), from
   * the indexer's `indexer_ingest_block_commit_seconds` histogram: blocks, p99 as the histogram
   * bucket bound it falls in (ms; Infinity past the last bucket), and the share of blocks ≤ 15 ms.
   * Null for builds without the histogram.
   */
  commitBySize: Record<string, { blocks: number; p99LeMs: number; shareLe15: number }> | null;
  /**
   * Memory at head (MiB, from the indexer's own process metrics): resident set, main-thread V8
   * heap (total) and external memory; the rest of the RSS is worker-thread heaps, RocksDB
   * (memtables, block cache, table readers) and allocator slack. Null without the metrics.
   */
  memoryAtHead: MemorySplit | null;
  /**
   * The same split at the highest RSS the indexer's metrics showed during the backfill (scraped
   * every ~2 s, so within 2 s of the peak {@link peakRssMiB} samples every 100 ms). Null without
   * the metrics.
   */
  memoryAtPeak: MemorySplit | null;
  /** Size of the data directory at head (MiB, every file). */
  diskMiB: number;
  /**
   * Size of the data directory once RocksDB's compaction has caught up after the backfill (MiB;
   * `indexer_storage_compaction_pending_bytes` 0 and no compaction running, waited for up to
   * {@link SETTLE_MAX_MS}), and how long that took. Null when it did not settle in time.
   */
  settled: {
    diskMiB: number;
    seconds: number;
    levelsMiB: Record<string, number>;
    /** Table files of the current version, and all on disk (older versions pinned included). */
    sstLiveMiB: number;
    sstTotalMiB: number;
    /** RocksDB versions alive (more than a few: iterators or snapshots pin old ones). */
    liveVersions: number;
  } | null;
  profileTop?: string;
  /**
   * With `lanes`: seconds from spawn until the tokens projection's checkpoint (the token's
   * balances and transfers) and until every projection's checkpoint reached the head.
   */
  tokensAtHeadSeconds?: number;
  projectionsAtHeadSeconds?: number;
  /** The sampled balances held to balanceOf at head (peers' runs). */
  check?: BalanceCheck;
}

/**
 * The rates of a backfill of blocks 0..`chain.head` that started at `tFirst` and reached the head
 * at `tHead`, the indexer spawned at `t0` (performance.now() each): seconds to head, seconds of
 * backfill, and blocks, transactions and events per second of backfill.
 */
export function backfillRates(
  t: { t0: number; tFirst: number; tHead: number },
  chain: { head: number; txCount: number; logCount: number },
) {
  const backfillSeconds = (t.tHead - t.tFirst) / 1000;
  return {
    toHeadSeconds: (t.tHead - t.t0) / 1000,
    backfillSeconds,
    blocksPerSecond: (chain.head + 1) / backfillSeconds,
    txPerSecond: chain.txCount / backfillSeconds,
    eventsPerSecond: chain.logCount / backfillSeconds,
  };
}

/** What a peer indexer's run does not report: stage counters, commit histogram, memory split, disk. */
export const PEER_UNMEASURED = {
  stageMsPerBlock: null,
  slowCommits: 0,
  commitBySize: null,
  memoryAtHead: null,
  memoryAtPeak: null,
  diskMiB: Number.NaN,
  settled: null,
} satisfies Partial<IngestRun>;

/**
 * CPU seconds (user + system) of one thread of a process (`tid` = pid: the main thread), or of
 * the whole process when `tid` is absent, from /proc (clock ticks of 1/100 s). Unlike wall-clock
 * stage times, it does not grow when other processes take the cores.
 */
export function cpuSeconds(pid: number, tid?: number): number {
  try {
    const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds since start by thread, from one scrape of `indexer_thread_cpu_seconds_total` (each
 * thread's own count: serving, engine, writer, decode and replay threads, the kinds summed over
 * their threads) and the process's total from /proc at the same moment: `rest` is what no thread
 * of ours reports — V8's platform threads (parallel and concurrent GC of every isolate) and
 * libuv's pool; RocksDB's flush and compaction threads are `rocksdb` when `rocksdbSeconds` (their
 * CPU, {@link rocksdbThreadSeconds}) is given. Null for builds without the metric.
 */
export function threadCpuSplit(
  metrics: string,
  processSeconds: number,
  rocksdbSeconds = 0,
): Record<string, number> | null {
  const out: Record<string, number> = {};
  for (const l of metrics.split('\n')) {
    const m = /^indexer_thread_cpu_seconds_total\{[^}]*thread="([a-z]+)[^"]*"\} (\S+)$/.exec(l);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  if (!Object.keys(out).length) return null;
  if (rocksdbSeconds > 0) out.rocksdb = rocksdbSeconds;
  out.rest = processSeconds - Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}

/**
 * CPU seconds of RocksDB's own background threads (flush and compaction: the tasks of process
 * `pid` whose name starts with `rocksdb`, as RocksDB names them on Linux); 0 where /proc says nothing.
 */
export function rocksdbThreadSeconds(pid: number): number {
  let sum = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith('rocksdb'))
          sum += cpuSeconds(pid, Number(tid));
      } catch {
        // the thread exited meanwhile
      }
    }
  } catch {
    return 0;
  }
  return sum;
}

function stageCounters(metrics: string): Record<string, number> | null {
  const out: Record<string, number> = {};
  let any = false;
  for (const l of metrics.split('\n')) {
    if (!l.startsWith('indexer_ingest_commit_stage_seconds_total{')) continue;
    const stage = /stage="([^"]+)"/.exec(l)?.[1];
    if (!stage) continue;
    out[stage] = Number(l.split(' ').pop());
    any = true;
  }
  return any ? out : null;
}

/** Longest wait for RocksDB's compaction to catch up after a backfill (ms). */
export const SETTLE_MAX_MS = 600_000;

/**
 * Waits until the indexer's RocksDB has no compaction pending or running (its metrics), then
 * measures the data directory: the size a backfilled store settles at. Null after
 * {@link SETTLE_MAX_MS}.
 */
async function settleDisk(
  ix: { metrics(): Promise<string> },
  dataDir: string,
): Promise<IngestRun['settled']> {
  const t0 = performance.now();
  const gauge = (m: string, name: string) =>
    Number(
      m
        .split('\n')
        .find((l) => l.startsWith(`${name}{`))
        ?.split(' ')
        .pop() ?? Number.NaN,
    );
  let quiet = 0;
  while (performance.now() - t0 < SETTLE_MAX_MS) {
    const m = await ix.metrics();
    const pending = gauge(m, 'indexer_storage_compaction_pending_bytes');
    const running = gauge(m, 'indexer_storage_compactions_running');
    if (Number.isNaN(pending) || Number.isNaN(running)) return null; // a build without the gauges
    // Two quiet looks in a row: a flush between them would start a compaction again.
    quiet = pending === 0 && running === 0 ? quiet + 1 : 0;
    if (quiet >= 2) {
      // Table-file bytes per LSM level (L0 and L1 are stored plain under `bottom` compression).
      const levelsMiB: Record<string, number> = {};
      for (const l of m.split('\n')) {
        const lv = /^indexer_storage_level_bytes\{[^}]*level="(\d+)"[^}]*\} (\S+)/.exec(l);
        if (lv && Number(lv[2]) > 0) levelsMiB[`L${lv[1]}`] = Number(lv[2]) / 2 ** 20;
      }
      const sst = (kind: string) =>
        Number(
          m
            .split('\n')
            .find((l) => l.startsWith('indexer_storage_sst_bytes{') && l.includes(`kind="${kind}"`))
            ?.split(' ')
            .pop(),
        ) /
        2 ** 20;
      return {
        diskMiB: dirBytes(dataDir) / 2 ** 20,
        seconds: (performance.now() - t0) / 1000,
        levelsMiB,
        sstLiveMiB: sst('live'),
        sstTotalMiB: sst('total'),
        liveVersions: gauge(m, 'indexer_storage_live_versions'),
      };
    }
    await sleep(2_000);
  }
  return null;
}

/** Bytes of every file under `dir` (recursive). */
function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    // A compaction running meanwhile deletes table files between the listing and the stat.
    total += e.isDirectory() ? dirBytes(p) : (statSync(p, { throwIfNoEntry: false })?.size ?? 0);
  }
  return total;
}

/** Per transaction-count class: blocks, p99 bucket bound (ms) and share ≤ 15 ms (see IngestRun). */
export function commitHistogram(metrics: string): IngestRun['commitBySize'] {
  const buckets = new Map<string, Array<[number, number]>>();
  for (const l of metrics.split('\n')) {
    if (!l.startsWith('indexer_ingest_block_commit_seconds_bucket{')) continue;
    const size = /size="([^"]+)"/.exec(l)?.[1];
    const le = /le="([^"]+)"/.exec(l)?.[1];
    if (!size || !le) continue;
    const list = buckets.get(size) ?? [];
    list.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le) * 1000, Number(l.split(' ').pop())]);
    buckets.set(size, list);
  }
  if (!buckets.size) return null;
  const out: NonNullable<IngestRun['commitBySize']> = {};
  for (const [size, list] of buckets) {
    list.sort((a, b) => a[0] - b[0]);
    const blocks = list[list.length - 1][1];
    if (!blocks) continue;
    const p99 = list.find(([, c]) => c >= 0.99 * blocks)![0];
    const le15 = list.find(([le]) => le >= 15)!;
    out[size] = { blocks, p99LeMs: p99, shareLe15: (le15[0] === 15 ? le15[1] : Number.NaN) / blocks };
  }
  return out;
}

/** "p99 ≤ 15 ms (99.2 % ≤ 15 ms, 100 blocks)" for one class, or "n/a". */
export function commitCell(r: IngestRun, size: string): string {
  const c = r.commitBySize?.[size];
  if (!c) return 'n/a';
  const bound = Number.isFinite(c.p99LeMs) ? `≤ ${c.p99LeMs} ms` : '> 500 ms';
  return `p99 ${bound} (${(100 * c.shareLe15).toFixed(1)} % ≤ 15 ms, ${c.blocks} blocks)`;
}

/**
 * Where an indexer's resident memory goes (MiB, from its own metrics): RSS, main-thread V8 heap
 * (total), external memory, the engine, writer, replay and decode threads' V8 heaps (total,
 * `indexer_thread_heap_bytes`), RocksDB's memtables, table readers (index and filter blocks
 * outside the block cache) and block cache; `rest` is what none of those name (the writer's
 * native batches, the replay thread, allocator slack, code). Figures a build does not report are NaN.
 */
export interface MemorySplit {
  rss: number;
  mainHeap: number;
  external: number;
  engineHeap: number;
  /** The writer thread's V8 heap (NaN for builds that do not report it). */
  writerHeap: number;
  /** The replay thread's V8 heap (TRACES on; NaN when absent or not reported). */
  replayHeap: number;
  decodeHeaps: number;
  memtables: number;
  tableReaders: number;
  blockCache: number;
  rest: number;
}

/** The {@link MemorySplit} of one metrics scrape; null when the process metrics are absent. */
export function memorySplit(metrics: string): MemorySplit | null {
  const lines = metrics.split('\n');
  const mib = (prefix: string) => {
    const line = lines.find((l) => l.startsWith(prefix));
    return line ? Number(line.split(' ').pop()) / 2 ** 20 : Number.NaN;
  };
  const rss = mib('indexer_process_process_resident_memory_bytes ');
  if (Number.isNaN(rss)) return null;
  const rocks = (kind: string) => {
    let sum = Number.NaN;
    for (const l of lines)
      if (l.startsWith('indexer_storage_memory_bytes{') && l.includes(`kind="${kind}"`))
        sum = (Number.isNaN(sum) ? 0 : sum) + Number(l.split(' ').pop()) / 2 ** 20;
    return sum;
  };
  const heaps = (thread: string) => {
    let sum = Number.NaN;
    for (const l of lines)
      if (
        l.startsWith('indexer_thread_heap_bytes{') &&
        l.includes('kind="total"') &&
        l.includes(`thread="${thread}`)
      )
        sum = (Number.isNaN(sum) ? 0 : sum) + Number(l.split(' ').pop()) / 2 ** 20;
    return sum;
  };
  const m = {
    rss,
    mainHeap: mib('indexer_process_nodejs_heap_size_total_bytes '),
    external: mib('indexer_process_nodejs_external_memory_bytes '),
    engineHeap: heaps('engine-'),
    writerHeap: heaps('writer-'),
    replayHeap: heaps('replay-'),
    decodeHeaps: heaps('decode-'),
    memtables: rocks('memtables'),
    tableReaders: rocks('table_readers'),
    blockCache: rocks('block_cache'),
  };
  const named = [
    m.mainHeap,
    m.external,
    m.engineHeap,
    m.writerHeap,
    m.replayHeap,
    m.decodeHeaps,
    m.memtables,
    m.tableReaders,
    m.blockCache,
  ].filter((x) => !Number.isNaN(x));
  return { ...m, rest: rss - named.reduce((a, b) => a + b, 0) };
}

/** Backfills `chain` with the build at `main`; resolves when its anchor reaches the head. */
export async function runIndexer(
  chain: { rpcUrl: string; head: number; txCount: number; logCount: number },
  label: string,
  main: string,
  o: {
    prof?: boolean;
    env?: Record<string, string>;
    /** Node flags of the indexer's process (before the entry point), e.g. V8's GC flags. */
    execArgv?: string[];
    tables?: boolean;
    settle?: boolean;
    /** Also wait for every projection's checkpoint to reach the head, and time each. */
    lanes?: boolean;
    /** Runs at head, before the indexer stops (e.g. to check its answers). */
    atHead?: (ix: IndexerChild) => Promise<void>;
  } = {},
): Promise<IngestRun> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'ingest-transfers-data-'));
  const profDir = mkdtempSync(join(os.tmpdir(), 'ingest-transfers-prof-'));
  const t0 = performance.now();
  const ix = await startIndexerChild({
    rpcUrl: chain.rpcUrl,
    chain: 'bench',
    dataDir,
    main,
    env: o.env,
    execArgv: [...(o.prof ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), ...(o.execArgv ?? [])],
  });
  let tFirst: number | null = null;
  let first = { block: 0, main: 0, proc: 0 };
  let peak = 0;
  let polls = 0;
  let memoryAtPeak: MemorySplit | null = null;
  let tAnchor: number | null = null;
  let tTokens: number | null = null;
  let tLanes: number | null = null;
  for (;;) {
    peak = Math.max(peak, rssMiB(ix.pid));
    if (polls % 20 === 0) {
      const m = memorySplit(await ix.metrics());
      if (m && m.rss > (memoryAtPeak?.rss ?? 0)) memoryAtPeak = m;
    }
    let a: number;
    if (o.lanes) {
      // The checkpoints of one committed state: the anchor and each projection's lane.
      const cp = (await ix.get('/checkpoints').catch(() => null))?.body as {
        anchor?: { block?: number } | null;
        lanes?: Array<{ lane: string; block: number | null }>;
      } | null;
      a = typeof cp?.anchor?.block === 'number' ? cp.anchor.block : -1;
      const proj = (cp?.lanes ?? []).filter((l) => l.lane.startsWith('projection:'));
      const now = performance.now();
      if (tTokens === null && (proj.find((l) => l.lane === 'projection:tokens')?.block ?? -1) >= chain.head)
        tTokens = now;
      if (tLanes === null && proj.length && proj.every((l) => (l.block ?? -1) >= chain.head)) tLanes = now;
    } else a = await ix.anchor();
    if (a >= 0 && tFirst === null) {
      tFirst = performance.now();
      first = { block: a, main: cpuSeconds(ix.pid, ix.pid), proc: cpuSeconds(ix.pid) };
    }
    if (a >= chain.head && tAnchor === null) tAnchor = performance.now();
    if (tAnchor !== null && (!o.lanes || (tTokens !== null && tLanes !== null))) break;
    if (performance.now() - t0 > 3_600_000) throw new Error(`${label}: not at head after an hour`);
    // A halted ingest never reaches the head: say why at once instead of waiting out the hour.
    if (++polls % 20 === 10 && /indexer_ingest_state\{[^}]*state="halted"\} 1/.test(await ix.metrics()))
      throw new Error(`${label}: ingest halted:\n${ix.logs().slice(-2000)}`);
    await sleep(100);
  }
  const tHead = tAnchor ?? performance.now();
  const mainCpu = cpuSeconds(ix.pid, ix.pid) - first.main;
  const procCpu = cpuSeconds(ix.pid) - first.proc;
  const cpuBlocks = chain.head - first.block;
  const metrics = await ix.metrics();
  const stages = stageCounters(metrics);
  const commitBySize = commitHistogram(metrics);
  const memoryAtHead = memorySplit(metrics);
  const blocks = chain.head + 1;
  const cpuSplit = threadCpuSplit(metrics, cpuSeconds(ix.pid), rocksdbThreadSeconds(ix.pid));
  const cpuMsPerBlockByThread = cpuSplit
    ? Object.fromEntries(Object.entries(cpuSplit).map(([k, v]) => [k, (1000 * v) / blocks]))
    : null;
  const stageMsPerBlock = stages
    ? Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, (1000 * v) / blocks]))
    : null;
  const slowCommits = ix
    .logs()
    .split('\n')
    .filter((x) => x.includes('slow block commit')).length;
  const diskMiB = dirBytes(dataDir) / 2 ** 20;
  if (o.atHead) await o.atHead(ix);
  const settled = o.settle ? await settleDisk(ix, dataDir) : null;
  let profileTop: string | undefined;
  if (o.prof) {
    process.kill(ix.pid, 'SIGTERM');
    for (let i = 0; i < 300 && !readdirSync(profDir).some((f) => f.split('.')[4] === '0'); i++)
      await sleep(100);
  }
  await ix.stop();
  if (o.prof) {
    const main0 = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[4] === '0');
    if (main0) {
      const path = join(profDir, main0);
      profileTop = topSelf(path, 40);
      for (const hot of ['_getManySync', '_writeSync'])
        profileTop += `\n\n${hot} by caller:\n${callersOf(path, hot, 4, 10)}`;
    }
    // Worker threads (decode pool, traces replay): where the rest of the process CPU goes.
    const workers = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile') && f.split('.')[4] !== '0');
    for (const w of workers.slice(0, 4))
      profileTop = `${profileTop ?? ''}\n\nWorker thread ${w.split('.')[4]} self time (top 15):\n${topSelf(join(profDir, w), 15)}`;
  }
  // Logical bytes per table (keys and values as stored), from the stopped store.
  const tables = o.tables ? await tableSizes(dataDir) : undefined;
  rmSync(dataDir, { recursive: true, force: true });
  // BENCH_KEEP_PROF=1 keeps the profiles for a closer look (the path is logged).
  if (process.env.BENCH_KEEP_PROF) log(`profiles kept in ${profDir}`);
  else rmSync(profDir, { recursive: true, force: true });
  return {
    tables,
    label,
    main,
    ...backfillRates({ t0, tFirst: tFirst ?? t0, tHead }, chain),
    peakRssMiB: peak,
    mainCpuMsPerBlock: (1000 * mainCpu) / cpuBlocks,
    processCpuMsPerBlock: (1000 * procCpu) / cpuBlocks,
    cpuMsPerBlockByThread,
    stageMsPerBlock,
    slowCommits,
    commitBySize,
    memoryAtHead,
    memoryAtPeak,
    diskMiB,
    settled,
    profileTop,
    ...(o.lanes
      ? { tokensAtHeadSeconds: (tTokens! - t0) / 1000, projectionsAtHeadSeconds: (tLanes! - t0) / 1000 }
      : {}),
  };
}

/** Report lines: process CPU ms per block by thread, for the runs that have the split. */
export function threadCpuTable(runs: readonly IngestRun[]): string[] {
  const order = ['serving', 'engine', 'writer', 'decode', 'replay', 'rocksdb', 'rest'];
  const have = runs.filter((r) => r.cpuMsPerBlockByThread);
  if (!have.length) return [];
  const kinds = order.filter((k) => have.some((r) => r.cpuMsPerBlockByThread?.[k] !== undefined));
  return [
    '',
    "Process CPU ms per block by thread, over the whole run from spawn (start-up included; each thread's own count, `indexer_thread_cpu_seconds_total`; `rocksdb` = RocksDB's flush and compaction threads by their names in /proc; `rest` = the process's /proc total minus them all: V8's platform threads doing every isolate's parallel and concurrent GC, and libuv's pool):",
    '',
    `| build | ${kinds.join(' | ')} | total |`,
    `| --- | ${kinds.map(() => '---:').join(' | ')} | ---: |`,
    ...have.map((r) => {
      const c = r.cpuMsPerBlockByThread!;
      const total = Object.values(c).reduce((a, b) => a + b, 0);
      return `| ${r.label} | ${kinds.map((k) => (c[k] === undefined ? 'n/a' : c[k].toFixed(2))).join(' | ')} | ${total.toFixed(2)} |`;
    }),
  ];
}

/** The node's raw fetch ceiling over blocks 0..head: best of `reps` timed passes. */
export async function rawCeiling(
  url: string,
  head: number,
  txCount: number,
  logCount: number,
  reps = 2,
): Promise<RawFetchResult> {
  const hashes = await blockHashes(url, 0, head);
  let best: RawFetchResult | null = null;
  for (let i = 0; i < reps * CEILING_TASK_SIZES.length; i++) {
    const r = await rawFetch({
      url,
      from: 0,
      to: head,
      blocksPerTask: CEILING_TASK_SIZES[i % CEILING_TASK_SIZES.length],
      concurrency: 2 * DECODE_THREADS,
      hashes,
      logsTotal: logCount,
      txsTotal: txCount,
    });
    if (!best || r.seconds < best.seconds) best = r;
  }
  return best!;
}

/**
 * The fetch a logs-only history plan would make of the token's chain (rawfetch.ts `logsFetch`:
 * the token's logs by `eth_getLogs` and the headers, 100-block ranges, as many in flight as the
 * indexer's own fetch): the best of 4 passes, and the logs it returned (checked against the chain).
 */
export async function logsCeiling(chain: TransferChain): Promise<LogsFetchResult> {
  let best: LogsFetchResult | null = null;
  for (let i = 0; i < 4; i++) {
    const r = await logsFetch({
      url: chain.node.rpcUrl,
      from: 0,
      to: chain.head,
      address: chain.token,
      range: 100,
      concurrency: 2 * DECODE_THREADS,
    });
    if (r.logs !== chain.logCount)
      throw new Error(`eth_getLogs returned ${r.logs} logs, the chain has ${chain.logCount}`);
    if (!best || r.seconds < best.seconds) best = r;
  }
  return best!;
}

const f1 = (x: number) => x.toFixed(1);
const f0 = (x: number) => x.toFixed(0);

/** Markdown report of one run: the chain, the ceiling, and one row per build. */
export function report(chain: TransferChain, raw: RawFetchResult[], runs: IngestRun[]): string {
  const ceilBlocks = Math.max(...raw.map((r) => r.blocksPerSecond));
  const ceilTx = (ceilBlocks * chain.txCount) / (chain.head + 1);
  const ceilEv = (ceilBlocks * chain.logCount) / (chain.head + 1);
  const lines: string[] = [];
  lines.push(
    `Chain: anvil, ${chain.head + 1} blocks (0..${chain.head}), ${chain.spec.blocks} blocks × ${chain.spec.txPerBlock} ERC-20 transfers among ${chain.spec.wallets} wallets (${chain.spec.senders} senders); ${chain.txCount} txs, ${chain.logCount} logs; generated in ${f0(chain.generationSeconds)} s.`,
    '',
    `Raw fetch ceiling (bench/rawfetch.ts, ${CEILING_TASK_SIZES.join(' or ')} blocks/task × ${2 * DECODE_THREADS} in flight, best pass; measured ${raw.length === 1 ? 'once' : 'before and after the indexer runs'}): ` +
      raw.map((r) => `${f0(r.blocksPerSecond)} blocks/s`).join(', ') +
      ` → ceiling ${f0(ceilBlocks)} blocks/s = ${f0(ceilTx)} tx/s = ${f0(ceilEv)} events/s.`,
    '',
    '| build | time to head (from spawn) | backfill | blocks/s | tx/s | events/s | tx/s ÷ ceiling | events/s ÷ ceiling | main-thread CPU ms/block | process CPU ms/block | peak RSS | slow commits (>100 ms) | commit time, 50–149 tx blocks |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  );
  for (const r of runs)
    lines.push(
      `| ${r.label} | ${f1(r.toHeadSeconds)} s | ${f1(r.backfillSeconds)} s | ${f0(r.blocksPerSecond)} | ${f0(r.txPerSecond)} | ${f0(r.eventsPerSecond)} | ${(r.txPerSecond / ceilTx).toFixed(2)} | ${(r.eventsPerSecond / ceilEv).toFixed(2)} | ${f1(r.mainCpuMsPerBlock)} | ${f1(r.processCpuMsPerBlock)} | ${f0(r.peakRssMiB)} MiB | ${r.slowCommits} | ${commitCell(r, '50-149')} |`,
    );
  lines.push(...threadCpuTable(runs));
  const stageNames = [...new Set(runs.flatMap((r) => Object.keys(r.stageMsPerBlock ?? {})))];
  if (stageNames.length) {
    lines.push(
      '',
      "Main-thread wall ms per block by commit stage (mean over every block; `indexer_ingest_commit_stage_seconds_total`; wall clock, so it grows with the machine's other load):",
      '',
      `| build | ${stageNames.join(' | ')} | total |`,
      `| --- | ${stageNames.map(() => '---:').join(' | ')} | ---: |`,
    );
    for (const r of runs) {
      const s = r.stageMsPerBlock;
      const total = s ? Object.values(s).reduce((a, b) => a + b, 0) : Number.NaN;
      lines.push(
        `| ${r.label} | ${stageNames.map((n) => (s && n in s ? s[n].toFixed(2) : 'n/a')).join(' | ')} | ${s ? total.toFixed(2) : 'n/a'} |`,
      );
    }
  }
  for (const r of runs)
    if (r.profileTop)
      lines.push(
        '',
        `Main-thread self time, ${r.label} (--cpu-prof, top 40):`,
        '',
        '```',
        r.profileTop,
        '```',
      );
  return lines.join('\n');
}

/**
 * The side-by-side of issue AA: each build's times from spawn (the token's balances and transfers
 * queryable at head, every projection at head) beside each peer's time to head, the ratios, the
 * bare fetch of the same blocks and receipts, and the three budgets judged on the first build.
 */
export function peersReport(
  chain: TransferChain,
  raw: RawFetchResult[],
  builds: IngestRun[],
  peers: IngestRun[],
  logsPlan: LogsFetchResult | null = null,
): string {
  const fetchS = Math.min(...raw.map((r) => r.seconds));
  const ev = (s: number) => chain.logCount / s;
  const lines: string[] = [
    `Side by side (start-up included: every time runs from the spawn of the indexer's process; each indexer alone on the node): ${chain.logCount} Transfer events.`,
    '',
    '| indexer | at head (from spawn) | what "at head" is | events/s from spawn | events/s over its backfill | peak RSS | answer |',
    '| --- | ---: | --- | ---: | ---: | ---: | --- |',
  ];
  for (const b of builds) {
    lines.push(
      `| ${b.label}: the token's balances and transfers | ${f1(b.tokensAtHeadSeconds ?? Number.NaN)} s | \`projection:tokens\` checkpoint = head | ${f0(ev(b.tokensAtHeadSeconds ?? Number.NaN))} | | | ${checkCell(b.check)} (\`/tokens/{token}/balance/{wallet}\`) |`,
      `| ${b.label}: every projection ready | ${f1(b.projectionsAtHeadSeconds ?? Number.NaN)} s | every \`projection:*\` checkpoint = head (anchor at head: ${f1(b.toHeadSeconds)} s) | ${f0(ev(b.projectionsAtHeadSeconds ?? Number.NaN))} | ${f0(b.eventsPerSecond)} | ${f0(b.peakRssMiB)} MiB | |`,
    );
  }
  for (const p of peers) {
    const sq = p as IngestRun & { finality?: number; postgresPeakRssMiB?: number; transferRows?: number };
    const what =
      sq.finality !== undefined
        ? `\`squid_processor\` status or hot block = head (finality confirmation ${sq.finality})`
        : '`/status` names the head';
    const rss =
      sq.postgresPeakRssMiB !== undefined
        ? `${f0(p.peakRssMiB)} MiB (PostgreSQL ${f0(sq.postgresPeakRssMiB)})`
        : `${f0(p.peakRssMiB)} MiB`;
    const answer =
      sq.transferRows !== undefined
        ? `${checkCell(p.check)}; ${sq.transferRows} transfer rows`
        : 'not checked';
    lines.push(
      `| ${p.label} | ${f1(p.toHeadSeconds)} s | ${what} | ${f0(ev(p.toHeadSeconds))} | ${f0(p.eventsPerSecond)} | ${rss} | ${answer} |`,
    );
  }
  lines.push(
    '',
    `Bare fetch of the same blocks and receipts from the same node (bench/rawfetch.ts: \`eth_getBlockByNumber(n, true)\` and \`eth_getBlockReceipts\` batches, ${CEILING_TASK_SIZES.join(' or ')} blocks per task, ${2 * DECODE_THREADS} in flight, no processing; fastest of ${raw.length} × ${2 * CEILING_TASK_SIZES.length} passes): ${fetchS.toFixed(2)} s (${f0(Math.max(...raw.map((r) => r.blocksPerSecond)))} blocks/s, ${f1(Math.max(...raw.map((r) => r.bytes)) / 2 ** 20)} MiB).`,
    ...(logsPlan
      ? [
          '',
          `The fetch a logs-only history plan would make instead (bench/rawfetch.ts \`logsFetch\`: the token's logs by \`eth_getLogs\` and the headers by \`eth_getBlockByNumber(n, false)\`, 100-block ranges, ${2 * DECODE_THREADS} in flight, no processing; fastest of 4 passes, after the runs): ${logsPlan.seconds.toFixed(2)} s (${f1(logsPlan.bytes / 2 ** 20)} MiB, ${logsPlan.logs} logs), ${(fetchS / logsPlan.seconds).toFixed(1)} × faster than the blocks and receipts.`,
        ]
      : []),
  );
  const b = builds[0];
  if (b) {
    lines.push('', `Ratios and budgets (${b.label}):`, '');
    const tok = b.tokensAtHeadSeconds ?? Number.NaN;
    const all = b.projectionsAtHeadSeconds ?? Number.NaN;
    for (const p of peers)
      lines.push(
        `- vs ${p.label}: the token's tables at head in ${(tok / p.toHeadSeconds).toFixed(2)} × its time, every projection in ${(all / p.toHeadSeconds).toFixed(2)} ×; events/s from spawn ${(p.toHeadSeconds / all).toFixed(2)} × its (every projection), over the backfill ${(b.eventsPerSecond / p.eventsPerSecond).toFixed(2)} ×.`,
      );
    const sq = peers.find((p) => (p as { finality?: number }).finality !== undefined);
    const po = peers.find((p) => (p as { finality?: number }).finality === undefined);
    const met = (ok: boolean) => (ok ? '**met**' : '**not met**');
    if (sq)
      lines.push(
        `- Budget: the token's balances and transfers queryable at head no later than Subsquid reaches head: ${f1(tok)} s against ${f1(sq.toHeadSeconds)} s — ${met(tok <= sq.toHeadSeconds)}.`,
      );
    lines.push(
      `- Budget: every projection ready within 1.5 × the bare fetch: ${f1(all)} s against ${fetchS.toFixed(2)} s = ${(all / fetchS).toFixed(1)} × — ${met(all <= 1.5 * fetchS)}.`,
    );
    if (po)
      lines.push(
        `- Budget: ≥ 5 × Ponder's events/s: ${(po.toHeadSeconds / all).toFixed(2)} × from spawn (every projection ready against Ponder at head), ${(b.eventsPerSecond / po.eventsPerSecond).toFixed(2)} × over each one's backfill — ${met(po.toHeadSeconds / all >= 5)} (judged from spawn).`,
      );
  }
  return lines.join('\n');
}

/** The node flags `--node-of label=--a,--b=v` gives build `label` (every such argument, in order). */
export function nodeFlagsFor(argv: string[], label: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1] ?? '';
    if (argv[i] === '--node-of' && v.startsWith(`${label}=`))
      out.push(
        ...v
          .slice(label.length + 1)
          .split(',')
          .filter(Boolean),
      );
  }
  return out;
}

/** CLI entry (see the module doc); also `npm run bench -- --peer ponder`. */
export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { arg, mains } = benchArgs(argv);
  const spec = {
    seed: Number(arg('--seed', '1')),
    blocks: Number(arg('--blocks', '1000')),
    txPerBlock: Number(arg('--tx', '50')),
    senders: Number(arg('--senders', '500')),
    wallets: Number(arg('--wallets', '5000')),
  };
  const prof = argv.includes('--prof');
  const stateDir = join(os.tmpdir(), 'indexer-bench-solc');
  mkdirSync(stateDir, { recursive: true });
  const chain = await buildTransferChain(spec, stateDir);
  onCleanup(() => chain.node.stop());
  const raw: RawFetchResult[] = [];
  raw.push(await rawCeiling(chain.node.rpcUrl, chain.head, chain.txCount, chain.logCount));
  log(`raw fetch: ${f0(raw[0].blocksPerSecond)} blocks/s`);
  const runs: IngestRun[] = [];
  const rounds = Number(arg('--rounds', '1'));
  const peers = arg('--peer', '').split(',').filter(Boolean);
  for (const p of peers)
    if (p !== 'ponder' && p !== 'subsquid')
      throw new Error(`--peer ${p}: ponder or subsquid (comma-separated)`);
  // With peers every indexer's answer is checked: sampled balances against balanceOf at head.
  const sample = peers.length ? await sampleHolders(chain) : [];
  const want = peers.length
    ? await balancesOnNode(chain.node.rpcUrl, chain.token, sample, chain.head)
    : new Map<string, bigint>();
  const checkProject = async (ix: IndexerChild, r: { check?: BalanceCheck }) => {
    const got = new Map<string, bigint>();
    for (const w of sample) {
      const b = (await ix.get(`/tokens/${chain.token}/balance/${w}`)).body?.data?.balance;
      if (typeof b === 'string') got.set(w, BigInt(b));
    }
    r.check = compareBalances(got, want);
  };
  // Builds alternate round by round, so a change of the machine's load hits every build alike.
  for (let round = 1; round <= rounds; round++)
    for (const [name, main] of mains) {
      const label = rounds > 1 ? `${name} (round ${round})` : name;
      log(`indexer ${label}: ${main}`);
      const holder: { check?: BalanceCheck } = {};
      const r = await runIndexer(
        { rpcUrl: chain.node.rpcUrl, head: chain.head, txCount: chain.txCount, logCount: chain.logCount },
        label,
        main,
        {
          prof,
          env: envFor(argv, name, '--env-of'),
          execArgv: nodeFlagsFor(argv, name),
          ...(peers.length ? { lanes: true, atHead: (ix: IndexerChild) => checkProject(ix, holder) } : {}),
        },
      );
      r.check = holder.check;
      log(
        `indexer ${label}: head in ${f1(r.toHeadSeconds)} s, ${f0(r.txPerSecond)} tx/s, ${f0(r.eventsPerSecond)} events/s; stages ${JSON.stringify(r.stageMsPerBlock)}`,
      );
      runs.push(r);
    }
  const peerRuns: IngestRun[] = [];
  // Same node, same chain, after the indexer runs, one at a time, in the order given.
  for (const peer of peers) {
    if (peer === 'ponder') {
      const { runPonder } = await import('./peer-ponder.js');
      log('peer: Ponder');
      const p = await runPonder({
        rpcUrl: chain.node.rpcUrl,
        chainId: 31337,
        token: chain.token,
        startBlock: chain.deployBlock,
        head: chain.head,
        txCount: chain.txCount,
        logCount: chain.logCount,
      });
      log(`peer ${p.label}: ready in ${f1(p.toHeadSeconds)} s, ${f0(p.eventsPerSecond)} events/s`);
      peerRuns.push(p);
    } else {
      const { runSubsquid } = await import('./peer-subsquid.js');
      log('peer: Subsquid');
      const p = await runSubsquid({
        rpcUrl: chain.node.rpcUrl,
        token: chain.token,
        head: chain.head,
        txCount: chain.txCount,
        logCount: chain.logCount,
        sample,
      });
      log(`peer ${p.label}: at head in ${f1(p.toHeadSeconds)} s, ${f0(p.eventsPerSecond)} events/s`);
      peerRuns.push(p);
    }
  }
  runs.push(...peerRuns);
  raw.push(await rawCeiling(chain.node.rpcUrl, chain.head, chain.txCount, chain.logCount));
  const logsPlan = peers.length ? await logsCeiling(chain) : null;
  let md = report(chain, raw, runs);
  if (peers.length)
    md += `\n\n${peersReport(chain, raw, runs.slice(0, runs.length - peerRuns.length), peerRuns, logsPlan)}`;
  emitReport(md, arg);
}

runIfEntry('ingest-transfers.js', main);
