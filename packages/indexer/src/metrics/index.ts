/**
 * Metrics (prom-client), exposed only on a separate loopback listener (`METRICS_PORT`), never on
 * the public port. Names follow `indexer_<subsystem>_<what>_<unit>`.
 */

import { type us_listen_socket, uws, uwsBinding } from '@chain-indexer/platform/http';
import client from 'prom-client';
import { type ChainMetrics, createChainMetrics } from './chain.js';
import { instruments } from './define.js';
import { registerIngestGauges } from './ingest.js';
import { type OpsGaugeSource, registerOpsGauges } from './ops.js';
import { registerServingGauges } from './serving.js';
import type { ChainGaugeSource } from './sources.js';
import { registerStorageGauges } from './storage.js';

export type { ChainMetrics } from './chain.js';
export type { OpsGaugeSource } from './ops.js';
export type { ChainGaugeSource } from './sources.js';
export { levelSizes } from './storage.js';

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

/**
 * The serving process's metrics: its registry (default process metrics prefixed
 * `indexer_process_`, the ops gauges, the HTTP and hand-over histograms, and the ingest, storage
 * and serving gauges read from `deps.chains()` at each scrape), served by `listen` on loopback.
 */
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
  const { histogram } = instruments(registry);
  const httpDuration = histogram(
    'indexer_http_request_duration_seconds',
    'HTTP request latency by route and status',
    ['route', 'status'],
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25],
  );
  const engineHandOver = histogram(
    'indexer_engine_handover_seconds',
    'Time from the engine thread posting a commit to the serving thread handling it, seconds',
    ['chain'],
    [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1],
  );
  const servingCommitSeconds = histogram(
    'indexer_serving_commit_seconds',
    "The serving thread's time per commit of the engine (projection states re-read, stream frames published), seconds",
    ['chain'],
    [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02],
  );
  const httpRowsRead = histogram(
    'indexer_http_request_rows_read',
    'Rows one request read through its storage views (walked rows, skipped ones included; point reads), by route',
    ['route'],
    [10, 100, 1_000, 10_000, 50_000, 100_000, 1_000_000],
  );
  // 1 on the core that serves, 0 on the other: an alert on node_http == 1 finds a stand-in in the fleet.
  const httpCore = new client.Gauge({
    name: 'indexer_http_core',
    help: 'The HTTP core that serves this process: uws (native uWebSockets.js) or node_http (its node:http stand-in, SECURITY.md "HTTP core"); 1 on the serving one',
    labelNames: ['core'],
    registers: [registry],
  });
  for (const core of ['uws', 'node_http'] as const)
    httpCore.set({ core }, uwsBinding().core === core ? 1 : 0);
  registerIngestGauges(registry, deps.chains);
  registerStorageGauges(registry, deps.chains);
  registerServingGauges(registry, deps.chains);
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
