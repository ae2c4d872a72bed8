/**
 * The serving side's gauges: response-cache outcomes, open SSE connections, hub subscribers and
 * lag disconnects, every thread's V8 heap (this serving thread, each chain's engine and decode
 * threads) and each engine thread's CPU. Read at scrape time.
 */

import { getHeapStatistics } from 'node:v8';
import client from 'prom-client';
import type { ThreadHeap } from '../schema/delta.js';
import { lagDisconnectCount, openConnections } from '../server/sse.js';
import type { ChainGaugeSource } from './sources.js';

/** Registers the serving gauges on `registry`, reading `chains()` at every scrape. */
export function registerServingGauges(
  registry: client.Registry,
  chains: () => readonly ChainGaugeSource[],
): void {
  new client.Counter({
    name: 'indexer_response_cache_requests_total',
    help: 'Requests of cacheable routes by outcome: hit (served again until the next store write) or miss (handler ran)',
    labelNames: ['chain', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains()) {
        const r = c.responseCache?.();
        if (!r) continue;
        this.inc({ chain: c.name, outcome: 'hit' }, r.hits);
        this.inc({ chain: c.name, outcome: 'miss' }, r.misses);
      }
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
      for (const c of chains()) this.set({ chain: c.name }, c.hubSubscribers());
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
      for (const c of chains()) for (const h of c.engine?.()?.heaps ?? []) set(c.name, h);
    },
  });
  new client.Counter({
    name: 'indexer_engine_cpu_seconds_total',
    help: "CPU time of each chain's ingest engine thread (user + system), seconds",
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains()) {
        const us = c.engine?.()?.cpuMicros;
        if (us != null) this.inc({ chain: c.name }, us / 1e6);
      }
    },
  });
}
