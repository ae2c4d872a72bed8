/**
 * The serving side's gauges: response-cache outcomes, open SSE connections, hub subscribers and
 * lag disconnects, every thread's V8 heap (this serving thread, each chain's engine and decode
 * threads) and each engine thread's CPU. Read at scrape time.
 */

import { getHeapStatistics } from 'node:v8';
import { threadCpuMicros, threadRunDelayMicros } from '@chain-indexer/platform/threads';
import type { ThreadHeap } from '../schema/delta.js';
import { lagDisconnectCount, openConnections } from '../server/sse.js';
import { chainGauge, instruments } from './define.js';
import type { RegisterGauges } from './sources.js';

/** Registers the serving gauges on `registry`, reading `chains()` at every scrape. */
export const registerServingGauges: RegisterGauges = (registry, chains) => {
  const { counter, gauge } = instruments(registry);
  counter(
    'indexer_response_cache_requests_total',
    'Requests of cacheable routes by outcome: hit (served again until the next store write), record_hit (a chain record answered again under a later anchor, its block still canonical) or miss (handler ran)',
    ['chain', 'outcome'],
    (m) => {
      m.reset();
      for (const c of chains()) {
        const r = c.responseCache?.();
        if (!r) continue;
        m.inc({ chain: c.name, outcome: 'hit' }, r.hits);
        m.inc({ chain: c.name, outcome: 'miss' }, r.misses);
        if (r.recordHits) m.inc({ chain: c.name, outcome: 'record_hit' }, r.recordHits);
      }
    },
  );
  gauge('indexer_streams_open_connections', 'Open SSE connections', [], (m) => {
    m.set(openConnections());
  });
  chainGauge(
    registry,
    chains,
    'indexer_streams_hub_subscribers',
    'Subscribers registered with the live stream hub (equals open streams unless one leaked)',
    (c) => c.hubSubscribers(),
  );
  gauge(
    'indexer_streams_lag_disconnects',
    'SSE consumers disconnected for overflowing their bounded queue (since start)',
    [],
    (m) => {
      m.set(lagDisconnectCount());
    },
  );
  // Every thread's heap has an owner in the metrics: this serving thread, each chain's engine
  // thread and its decode threads (as they last reported, with their tasks).
  gauge(
    'indexer_thread_heap_bytes',
    'V8 heap of each thread, bytes, by kind: used, total (allocated), limit (resourceLimits or default), external (ArrayBuffers and other off-heap memory the thread holds)',
    ['chain', 'thread', 'kind'],
    (m) => {
      m.reset();
      const set = (chain: string, h: ThreadHeap) => {
        m.set({ chain, thread: h.thread, kind: 'used' }, h.used);
        m.set({ chain, thread: h.thread, kind: 'total' }, h.total);
        m.set({ chain, thread: h.thread, kind: 'limit' }, h.limit);
        m.set({ chain, thread: h.thread, kind: 'external' }, h.external);
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
  );
  /**
   * A per-thread seconds counter: this serving thread's figure (`own`, µs) and, per chain, each
   * thread's as its engine last reported it (`of`, µs; null or absent when it could not be read).
   */
  const threadCounter = (
    name: string,
    help: string,
    own: () => number | null,
    of: (h: ThreadHeap) => number | null | undefined,
  ) =>
    counter(name, help, ['chain', 'thread'], (m) => {
      m.reset();
      const us = own();
      if (us !== null) m.inc({ chain: '', thread: 'serving' }, us / 1e6);
      for (const c of chains())
        for (const h of c.engine?.()?.heaps ?? []) {
          const v = of(h);
          if (v != null) m.inc({ chain: c.name, thread: h.thread }, v / 1e6);
        }
    });
  // Every thread's CPU beside its heap: what the process's CPU per block is made of (the rest of
  // the process's CPU is V8's platform threads — parallel and concurrent GC of every isolate —,
  // libuv's pool and RocksDB's flush and compaction threads, which report nothing themselves).
  threadCounter(
    'indexer_thread_cpu_seconds_total',
    'CPU time of each thread (user + system) since it started, seconds: this serving thread, and per chain the engine, writer, decode and replay threads as they last reported',
    threadCpuMicros,
    (h) => h.cpuMicros,
  );
  // Beside each thread's CPU, its wait for one: a read answered late because the serving thread
  // sat runnable behind other threads (ingest's, the node's, a co-located client's) shows here.
  threadCounter(
    'indexer_thread_runqueue_wait_seconds_total',
    'Time each thread has been runnable but waiting for a CPU since it started, seconds (Linux /proc schedstat run_delay): this serving thread, and per chain the engine, writer, decode and replay threads as they last reported',
    threadRunDelayMicros,
    (h) => h.runDelayMicros,
  );
  counter(
    'indexer_engine_cpu_seconds_total',
    "CPU time of each chain's ingest engine thread (user + system), seconds",
    ['chain'],
    (m) => {
      m.reset();
      for (const c of chains()) {
        const us = c.engine?.()?.cpuMicros;
        if (us != null) m.inc({ chain: c.name }, us / 1e6);
      }
    },
  );
};
