/**
 * Metrics (prom-client), exposed only on a separate loopback listener (`METRICS_PORT`), never on
 * the public port. Names follow `indexer_<subsystem>_<what>_<unit>`.
 */
import client from 'prom-client';
import { openGaps } from '../ingest/gaps.js';
import type { Ingest } from '../ingest/index.js';
import { lagDisconnectCount, openConnections } from '../server/sse.js';
import { type us_listen_socket, uws } from '../server/uws.js';
import { blockTimestamp } from '../storage/headers.js';
import type { Store } from '../storage/index.js';

export interface Metrics {
  registry: client.Registry;
  rpcDuration: client.Histogram<'method' | 'outcome'>;
  rpcRetries: client.Counter<'method'>;
  blocksCommitted: client.Counter;
  eventsCommitted: client.Counter;
  reorgs: client.Histogram;
  httpDuration: client.Histogram<'route' | 'status'>;
  /** Starts the loopback listener; resolves with the bound port. */
  listen(port: number): Promise<number>;
  close(): void;
}

export function createMetrics(deps: {
  store: () => Store | null;
  ingest: () => Ingest | null;
  /** Live subscribers of the stream hub (one per open stream; a leaked one never goes away). */
  hubSubscribers?: () => number;
}): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'indexer_process_' });
  const rpcDuration = new client.Histogram({
    name: 'indexer_rpc_request_duration_seconds',
    help: 'JSON-RPC request latency by method and outcome',
    labelNames: ['method', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [registry],
  });
  const rpcRetries = new client.Counter({
    name: 'indexer_rpc_retries_total',
    help: 'JSON-RPC retries (429, 5xx, timeouts, dropped connections) by method',
    labelNames: ['method'],
    registers: [registry],
  });
  const blocksCommitted = new client.Counter({
    name: 'indexer_ingest_blocks_total',
    help: 'Blocks committed',
    registers: [registry],
  });
  const eventsCommitted = new client.Counter({
    name: 'indexer_ingest_events_total',
    help: 'Logs committed',
    registers: [registry],
  });
  const reorgs = new client.Histogram({
    name: 'indexer_ingest_reorg_depth_blocks',
    help: 'Reorgs by depth (blocks rolled back)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  const httpDuration = new client.Histogram({
    name: 'indexer_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'status'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25],
    registers: [registry],
  });
  new client.Gauge({
    name: 'indexer_ingest_head_lag_blocks',
    help: 'Blocks between the node head and the indexed head',
    registers: [registry],
    collect() {
      const s = deps.ingest()?.status();
      const h = deps.store()?.head();
      this.set(s?.nodeHead != null && h ? Math.max(0, s.nodeHead - h.number) : 0);
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_head_lag_seconds',
    help: 'Seconds between now and the indexed head block timestamp',
    registers: [registry],
    collect() {
      const s = deps.store();
      const h = s?.head();
      const ts = h ? blockTimestamp(s!.rocks, h.number) : null;
      this.set(ts === null ? 0 : Math.max(0, Date.now() / 1000 - ts));
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_queue_depth',
    help: 'Decode tasks waiting for a worker thread',
    registers: [registry],
    collect() {
      this.set(deps.ingest()?.poolStats().queueSize ?? 0);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_utilization_ratio',
    help: 'Decode pool utilisation (0..1)',
    registers: [registry],
    collect() {
      this.set(deps.ingest()?.poolStats().utilization ?? 0);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_task_seconds',
    help: 'Decode task run time percentiles',
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      const p = deps.ingest()?.poolStats();
      this.set({ quantile: '0.5' }, (p?.runTimeP50Ms ?? 0) / 1000);
      this.set({ quantile: '0.99' }, (p?.runTimeP99Ms ?? 0) / 1000);
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_head_block',
    help: 'Indexed head block number',
    registers: [registry],
    collect() {
      this.set(deps.store()?.head()?.number ?? -1);
    },
  });
  new client.Gauge({
    name: 'indexer_storage_live_data_bytes',
    help: 'RocksDB estimated live data size',
    registers: [registry],
    collect() {
      const s = deps.store();
      this.set(s ? Number(s.rocks.property('rocksdb.estimate-live-data-size')) || 0 : 0);
    },
  });
  new client.Gauge({
    name: 'indexer_storage_memory_bytes',
    help: 'RocksDB memory by kind: memtables (cur-size-all-mem-tables), table_readers (index and filter blocks outside the block cache), block_cache (usage)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const s = deps.store();
      const prop = (name: string) => (s ? Number(s.rocks.property(name)) || 0 : 0);
      this.set({ kind: 'memtables' }, prop('rocksdb.cur-size-all-mem-tables'));
      this.set({ kind: 'table_readers' }, prop('rocksdb.estimate-table-readers-mem'));
      this.set({ kind: 'block_cache' }, prop('rocksdb.block-cache-usage'));
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
    registers: [registry],
    collect() {
      this.set(deps.hubSubscribers?.() ?? 0);
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
  new client.Gauge({
    name: 'indexer_ingest_open_gaps',
    help: 'Open ingest gaps (all lanes)',
    registers: [registry],
    collect() {
      const s = deps.store();
      this.set(s ? openGaps(s).length : 0);
    },
  });
  let sock: us_listen_socket | null = null;
  return {
    registry,
    rpcDuration,
    rpcRetries,
    blocksCommitted,
    eventsCommitted,
    reorgs,
    httpDuration,
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
