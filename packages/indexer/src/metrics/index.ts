/**
 * Metrics (prom-client), exposed only on a separate loopback listener (`METRICS_PORT`), never on
 * the public port. Names follow `indexer_<subsystem>_<what>_<unit>`.
 */

import { type us_listen_socket, uws, uwsBinding } from '@chain-indexer/platform/uws.js';
import client from 'prom-client';
import { openGaps } from '../ingest/gaps.js';
import type { Ingest } from '../ingest/index.js';
import { lagDisconnectCount, openConnections } from '../server/sse.js';
import { blockTimestamp } from '../storage/headers.js';
import type { Store } from '../storage/index.js';
import { type OpsGaugeSource, registerOpsGauges } from './ops.js';

export type { OpsGaugeSource } from './ops.js';

/** The per-chain instruments a chain's follower and RPC client record into (label `chain`). */
export interface ChainMetrics {
  rpcDuration: client.Histogram<'chain' | 'method' | 'outcome'>;
  rpcRetries: client.Counter<'chain' | 'method'>;
  blocksCommitted: client.Counter<'chain'>;
  eventsCommitted: client.Counter<'chain'>;
  /** Main-thread seconds spent committing blocks, by stage (chain records, each projection, write). */
  commitStageSeconds: client.Counter<'chain' | 'stage'>;
  /**
   * Main-thread time of one block's commit (every stage, pauses excluded), seconds, by the block's
   * transaction count class (`size`: `0-49`, `50-149`, `150+`).
   */
  blockCommitSeconds: client.Histogram<'chain' | 'size'>;
  /** Steps of a live block from head poll to visible (ingest/timeline.ts), seconds. */
  liveStageSeconds: client.Histogram<'chain' | 'stage'>;
  reorgs: client.Histogram<'chain'>;
  /** History segments committed. */
  segmentsCommitted: client.Counter<'chain'>;
  /** Blocks and transactions committed, by mode (`history` segments or the `live` window). */
  modeBlocks: client.Counter<'chain' | 'mode'>;
  modeTransactions: client.Counter<'chain' | 'mode'>;
  /** Pools first seen after START_BLOCK, by protocol and outcome (`registered` or why not). */
  marketsFirstSight: client.Counter<'chain' | 'protocol' | 'outcome'>;
  /** Node faults found (ingest/node-check.ts): `block_missing` or `parent_missing`. */
  nodeFaults: client.Counter<'chain' | 'kind'>;
}

export interface Metrics extends ChainMetrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'route' | 'status'>;
  /** Rows one request read through its views (server/read-meter.ts), by route. */
  httpRowsRead: client.Histogram<'route'>;
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
}

export function createMetrics(deps: {
  /** The served chains (read at every scrape: chains opened later appear). */
  chains: () => readonly ChainGaugeSource[];
  /** What the alerting gauges read (metrics/ops.ts); none when absent. */
  ops?: () => readonly OpsGaugeSource[];
}): Metrics {
  const registry = new client.Registry();
  registerOpsGauges(registry, deps.ops ?? (() => []));
  client.collectDefaultMetrics({ register: registry, prefix: 'indexer_process_' });
  const rpcDuration = new client.Histogram({
    name: 'indexer_rpc_request_duration_seconds',
    help: 'JSON-RPC request latency by chain, method and outcome',
    labelNames: ['chain', 'method', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [registry],
  });
  const rpcRetries = new client.Counter({
    name: 'indexer_rpc_retries_total',
    help: 'JSON-RPC retries (429, 5xx, timeouts, dropped connections) by chain and method',
    labelNames: ['chain', 'method'],
    registers: [registry],
  });
  const blocksCommitted = new client.Counter({
    name: 'indexer_ingest_blocks_total',
    help: 'Blocks committed',
    labelNames: ['chain'],
    registers: [registry],
  });
  const eventsCommitted = new client.Counter({
    name: 'indexer_ingest_events_total',
    help: 'Logs committed',
    labelNames: ['chain'],
    registers: [registry],
  });
  const commitStageSeconds = new client.Counter({
    name: 'indexer_ingest_commit_stage_seconds_total',
    help: 'Main-thread time of block commits by stage (chain, one per projection, write), seconds',
    labelNames: ['chain', 'stage'],
    registers: [registry],
  });
  const blockCommitSeconds = new client.Histogram({
    name: 'indexer_ingest_block_commit_seconds',
    help: 'Main-thread time of one block commit (all stages, pauses excluded) by transaction count class, seconds',
    labelNames: ['chain', 'size'],
    buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.5],
    registers: [registry],
  });
  const liveStageSeconds = new client.Histogram({
    name: 'indexer_ingest_live_stage_seconds',
    help: 'Wall time of each step of a live block from the head poll to visible (plan, queue, fetch, verify, shape, encode, handoff, wait, build, write; total = all), seconds',
    labelNames: ['chain', 'stage'],
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
    registers: [registry],
  });
  const segmentsCommitted = new client.Counter({
    name: 'indexer_ingest_segments_total',
    help: 'History segments committed (many final blocks in one write, no undo)',
    labelNames: ['chain'],
    registers: [registry],
  });
  const modeBlocks = new client.Counter({
    name: 'indexer_ingest_mode_blocks_total',
    help: 'Blocks committed by ingest mode: history (segments) or live (block by block)',
    labelNames: ['chain', 'mode'],
    registers: [registry],
  });
  const modeTransactions = new client.Counter({
    name: 'indexer_ingest_mode_transactions_total',
    help: 'Transactions committed by ingest mode: history (segments) or live (block by block)',
    labelNames: ['chain', 'mode'],
    registers: [registry],
  });
  const reorgs = new client.Histogram({
    name: 'indexer_ingest_reorg_depth_blocks',
    help: 'Reorgs by depth (blocks rolled back)',
    labelNames: ['chain'],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const nodeFaults = new client.Counter({
    name: 'indexer_ingest_node_faults_total',
    help: 'Node faults: the node could no longer return a block it served (block_missing) or named a parent it does not have (parent_missing); ingest pauses on each',
    labelNames: ['chain', 'kind'],
    registers: [registry],
  });
  const marketsFirstSight = new client.Counter({
    name: 'indexer_markets_first_sight_pools_total',
    help: 'Pools first seen after START_BLOCK by protocol and outcome (registered, not_a_pool, not_configured_factory, factory_mismatch, no_initialize_log, node_error)',
    labelNames: ['chain', 'protocol', 'outcome'],
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'indexer_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25],
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
  let sock: us_listen_socket | null = null;
  return {
    registry,
    rpcDuration,
    rpcRetries,
    blocksCommitted,
    eventsCommitted,
    commitStageSeconds,
    blockCommitSeconds,
    liveStageSeconds,
    reorgs,
    segmentsCommitted,
    modeBlocks,
    modeTransactions,
    marketsFirstSight,
    nodeFaults,
    httpDuration,
    httpRowsRead,
    listen(port) {
      const app = uws.App();
      app.get('/metrics', (res) => {
        let aborted = false;
        res.onAborted(() => {
          aborted = true;
        });
        registry.metrics().then((text) => {
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
