/**
 * Metrics (prom-client), exposed only on a separate loopback listener (`METRICS_PORT`), never on
 * the public port. Names follow `indexer_<subsystem>_<what>_<unit>`.
 */

import { getHeapStatistics } from 'node:v8';
import { type us_listen_socket, uws, uwsBinding } from '@chain-indexer/platform/http';
import client from 'prom-client';
import { openGaps } from '../ingest/gaps.js';
import type { Ingest } from '../ingest/index.js';
import type { ThreadHeap } from '../schema/delta.js';
import { lagDisconnectCount, openConnections } from '../server/sse.js';
import { blockTimestamp } from '../storage/headers.js';
import type { Store } from '../storage/index.js';
import { type ChainMetrics, createChainMetrics } from './chain.js';
import { type OpsGaugeSource, registerOpsGauges } from './ops.js';

export type { ChainMetrics } from './chain.js';
export type { OpsGaugeSource } from './ops.js';

export interface Metrics {
  registry: client.Registry;
  /** The chain instruments, on a read replica (it ingests on this thread); null otherwise. */
  chain: ChainMetrics | null;
  httpDuration: client.Histogram<'route' | 'status'>;
  /** Rows one request read through its views (server/read-meter.ts), by route. */
  httpRowsRead: client.Histogram<'route'>;
  /** Time a commit message takes from the engine thread to the serving thread, seconds. */
  engineHandOver: client.Histogram<'chain'>;
  /** The serving thread's own time per commit (projection states re-read, frames published), seconds. */
  servingCommitSeconds: client.Histogram<'chain'>;
  /** Starts the loopback listener; resolves with the bound port. */
  listen(port: number): Promise<number>;
  close(): void;
}

/** What the gauges read of one served chain. */
export interface ChainGaugeSource {
  name: string;
  store: Store;
  ingest: Ingest;
  /** Live subscribers of the chain's stream hub (one per open stream; a leaked one never goes away). */
  hubSubscribers(): number;
  /** Hits and misses of the chain's response cache (src/server/response-cache.ts). */
  responseCache?(): { hits: number; misses: number };
  /** The chain's engine: its threads' heaps and its thread's CPU (null on a read replica). */
  engine?(): { heaps: readonly ThreadHeap[]; cpuMicros: number | null } | null;
}

export function createMetrics(deps: {
  /** The served chains (read at every scrape: chains opened later appear). */
  chains: () => readonly ChainGaugeSource[];
  /** What the alerting gauges read (metrics/ops.ts); none when absent. */
  ops?: () => readonly OpsGaugeSource[];
  /** Register the chain instruments here (a read replica): true; else the engines own them. */
  chainMetrics?: boolean;
  /** Metrics of other threads (each chain's engine: `registry.getMetricsAsJSON()`), merged into every scrape. */
  extra?: () => Promise<unknown[]>;
}): Metrics {
  const registry = new client.Registry();
  registerOpsGauges(registry, deps.ops ?? (() => []));
  client.collectDefaultMetrics({ register: registry, prefix: 'indexer_process_' });
  // The chain instruments live where they are recorded: in each chain's ingest engine thread
  // (engine/worker.ts, its own registry, merged into every scrape through `extra`), or here for a
  // read replica, which ingests on this thread.
  const chain = deps.chainMetrics ? createChainMetrics(registry) : null;
  const httpDuration = new client.Histogram({
    name: 'indexer_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25],
    registers: [registry],
  });
  const engineHandOver = new client.Histogram({
    name: 'indexer_engine_handover_seconds',
    help: 'Time from the engine thread posting a commit to the serving thread handling it, seconds',
    labelNames: ['chain'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
    registers: [registry],
  });
  const servingCommitSeconds = new client.Histogram({
    name: 'indexer_serving_commit_seconds',
    help: "The serving thread's time per commit of the engine (projection states re-read, stream frames published), seconds",
    labelNames: ['chain'],
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02],
    registers: [registry],
  });
  const httpRowsRead = new client.Histogram({
    name: 'indexer_http_request_rows_read',
    help: 'Rows one request read through its storage views (walked rows, skipped ones included; point reads), by route',
    labelNames: ['route'],
    buckets: [10, 100, 1_000, 10_000, 50_000, 100_000, 1_000_000],
    registers: [registry],
  });
  // 1 on the core that serves, 0 on the other: an alert on node_http == 1 finds a stand-in in the fleet.
  const httpCore = new client.Gauge({
    name: 'indexer_http_core',
    help: 'The HTTP core that serves this process: uws (native uWebSockets.js) or node_http (its node:http stand-in, SECURITY.md "HTTP core"); 1 on the serving one',
    labelNames: ['core'],
    registers: [registry],
  });
  for (const core of ['uws', 'node_http'] as const)
    httpCore.set({ core }, uwsBinding().core === core ? 1 : 0);
  new client.Gauge({
    name: 'indexer_ingest_head_lag_blocks',
    help: 'Blocks between the node head and the indexed head',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) {
        const s = c.ingest.status();
        const h = c.store.committedHead();
        this.set({ chain: c.name }, s.nodeHead != null && h ? Math.max(0, s.nodeHead - h.number) : 0);
      }
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_head_lag_seconds',
    help: 'Seconds between now and the indexed head block timestamp',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) {
        const h = c.store.committedHead();
        const ts = h ? blockTimestamp(c.store, h.number) : null;
        this.set({ chain: c.name }, ts === null ? 0 : Math.max(0, Date.now() / 1000 - ts));
      }
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_queue_depth',
    help: 'Decode tasks waiting for a worker thread',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) this.set({ chain: c.name }, c.ingest.poolStats().queueSize);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_utilization_ratio',
    help: 'Decode pool utilisation (0..1)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) this.set({ chain: c.name }, c.ingest.poolStats().utilization);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_task_seconds',
    help: 'Decode task run time percentiles',
    labelNames: ['chain', 'quantile'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) {
        const p = c.ingest.poolStats();
        this.set({ chain: c.name, quantile: '0.5' }, p.runTimeP50Ms / 1000);
        this.set({ chain: c.name, quantile: '0.99' }, p.runTimeP99Ms / 1000);
      }
    },
  });
  new client.Counter({
    name: 'indexer_response_cache_requests_total',
    help: 'Requests of cacheable routes by outcome: hit (served again until the next store write) or miss (handler ran)',
    labelNames: ['chain', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of deps.chains()) {
        const r = c.responseCache?.();
        if (!r) continue;
        this.inc({ chain: c.name, outcome: 'hit' }, r.hits);
        this.inc({ chain: c.name, outcome: 'miss' }, r.misses);
      }
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_head_block',
    help: 'Indexed head block number',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) this.set({ chain: c.name }, c.store.committedHead()?.number ?? -1);
    },
  });
  new client.Gauge({
    name: 'indexer_storage_level_bytes',
    help: 'RocksDB table-file bytes per LSM level (rocksdb.levelstats, MiB resolution); with the default `bottom` compression L0 and L1 are stored plain, deeper levels ZSTD',
    labelNames: ['chain', 'level'],
    registers: [registry],
    collect() {
      for (const c of deps.chains())
        for (const [level, mib] of levelSizes(c.store.property('rocksdb.levelstats')))
          this.set({ chain: c.name, level: String(level) }, mib * 2 ** 20);
    },
  });
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
    new client.Gauge({
      name,
      help,
      labelNames: ['chain', 'kind'],
      registers: [registry],
      collect() {
        for (const c of deps.chains())
          for (const [kind, property] of Object.entries(kinds))
            this.set({ chain: c.name, kind }, Number(c.store.property(property)) || 0);
      },
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
    new client.Gauge({
      name,
      help: `${help} (${property})`,
      labelNames: ['chain'],
      registers: [registry],
      collect() {
        for (const c of deps.chains()) this.set({ chain: c.name }, Number(c.store.property(property)) || 0);
      },
    });

  new client.Gauge({
    name: 'indexer_streams_open_connections',
    help: 'Open SSE connections',
    registers: [registry],
    collect() {
      this.set(openConnections());
    },
  });
  new client.Gauge({
    name: 'indexer_streams_hub_subscribers',
    help: 'Subscribers registered with the live stream hub (equals open streams unless one leaked)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) this.set({ chain: c.name }, c.hubSubscribers());
    },
  });
  new client.Gauge({
    name: 'indexer_streams_lag_disconnects',
    help: 'SSE consumers disconnected for overflowing their bounded queue (since start)',
    registers: [registry],
    collect() {
      this.set(lagDisconnectCount());
    },
  });
  new client.Counter({
    name: 'indexer_ingest_roots_blocks_total',
    help: 'Blocks by roots-check outcome (VERIFY_ROOTS): verified (header hash, transaction hashes and both roots rebuilt and matched), not_checkable (a transaction type or header field the encoder does not know), unchecked (VERIFY_ROOTS=off), mismatch (decode tasks failed by a block that kept disagreeing with its header: ingest halts)',
    labelNames: ['chain', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of deps.chains()) {
        const r = c.ingest.status().roots;
        this.inc({ chain: c.name, outcome: 'verified' }, r.verified);
        this.inc({ chain: c.name, outcome: 'not_checkable' }, r.notCheckable);
        this.inc({ chain: c.name, outcome: 'unchecked' }, r.unchecked);
        this.inc({ chain: c.name, outcome: 'mismatch' }, r.mismatches);
      }
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_halted',
    help: 'Whether ingest is halted (1) and why (reason: reorg_beyond_window, storage_write_failed, roots_mismatch, …); 0 with reason none while it runs',
    labelNames: ['chain', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of deps.chains()) {
        const s = c.ingest.status();
        this.set(
          { chain: c.name, reason: s.state === 'halted' ? (s.haltReason ?? 'unknown') : 'none' },
          s.state === 'halted' ? 1 : 0,
        );
      }
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_open_gaps',
    help: 'Open ingest gaps (all lanes)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of deps.chains()) this.set({ chain: c.name }, openGaps(c.store).length);
    },
  });
  // Every thread's heap has an owner in the metrics: this serving thread, each chain's engine
  // thread and its decode threads (as they last reported, with their tasks).
  new client.Gauge({
    name: 'indexer_thread_heap_bytes',
    help: 'V8 heap of each thread, bytes, by kind: used, total (allocated), limit (resourceLimits or default), external (ArrayBuffers and other off-heap memory the thread holds)',
    labelNames: ['chain', 'thread', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      const set = (chain: string, h: ThreadHeap) => {
        this.set({ chain, thread: h.thread, kind: 'used' }, h.used);
        this.set({ chain, thread: h.thread, kind: 'total' }, h.total);
        this.set({ chain, thread: h.thread, kind: 'limit' }, h.limit);
        this.set({ chain, thread: h.thread, kind: 'external' }, h.external);
      };
      const own = getHeapStatistics();
      set('', {
        thread: 'serving',
        used: own.used_heap_size,
        total: own.total_heap_size,
        limit: own.heap_size_limit,
        external: own.external_memory,
      });
      for (const c of deps.chains()) for (const h of c.engine?.()?.heaps ?? []) set(c.name, h);
    },
  });
  new client.Counter({
    name: 'indexer_engine_cpu_seconds_total',
    help: "CPU time of each chain's ingest engine thread (user + system), seconds",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of deps.chains()) {
        const us = c.engine?.()?.cpuMicros;
        if (us != null) this.inc({ chain: c.name }, us / 1e6);
      }
    },
  });
  let sock: us_listen_socket | null = null;
  /** This thread's metrics and every engine thread's, as one exposition (counters summed by label set). */
  const scrape = async (): Promise<string> => {
    const extra = deps.extra ? await deps.extra() : [];
    if (!extra.length) return registry.metrics();
    const all = [await registry.getMetricsAsJSON(), ...extra];
    return client.AggregatorRegistry.aggregate(all as never).metrics();
  };
  return {
    registry,
    chain,
    engineHandOver,
    servingCommitSeconds,
    httpDuration,
    httpRowsRead,
    listen(port) {
      const app = uws.App();
      app.get('/metrics', (res) => {
        let aborted = false;
        res.onAborted(() => {
          aborted = true;
        });
        scrape().then((text) => {
          if (aborted) return;
          res.cork(() => res.writeHeader('content-type', registry.contentType).end(text));
        });
      });
      app.any('/*', (res) => {
        res.writeStatus('404 Not Found').end('not found');
      });
      return new Promise((resolve, reject) =>
        app.listen('127.0.0.1', port, (s) => {
          if (!s) return reject(new Error(`metrics: cannot listen on 127.0.0.1:${port}`));
          sock = s;
          resolve(uws.us_socket_local_port(s));
        }),
      );
    },
    close() {
      if (sock) uws.us_listen_socket_close(sock);
    },
  };
}

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
