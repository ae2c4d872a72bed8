/**
 * The ingest gauges of each served chain: head lag (blocks, seconds), the decode pool (queue,
 * utilisation, task time), the indexed head, the roots-check outcomes, halts and open gaps. Read
 * at scrape time from the chain's ingest status and store.
 */

import client from 'prom-client';
import { openGaps } from '../ingest/gaps.js';
import { blockTimestamp } from '../storage/headers.js';
import type { ChainGaugeSource } from './sources.js';

/** Registers the ingest gauges on `registry`, reading `chains()` at every scrape. */
export function registerIngestGauges(
  registry: client.Registry,
  chains: () => readonly ChainGaugeSource[],
): void {
  new client.Gauge({
    name: 'indexer_ingest_head_lag_blocks',
    help: 'Blocks between the node head and the indexed head',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of chains()) {
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
      for (const c of chains()) {
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
      for (const c of chains()) this.set({ chain: c.name }, c.ingest.poolStats().queueSize);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_utilization_ratio',
    help: 'Decode pool utilisation (0..1)',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of chains()) this.set({ chain: c.name }, c.ingest.poolStats().utilization);
    },
  });
  new client.Gauge({
    name: 'indexer_decode_pool_task_seconds',
    help: 'Decode task run time percentiles',
    labelNames: ['chain', 'quantile'],
    registers: [registry],
    collect() {
      for (const c of chains()) {
        const p = c.ingest.poolStats();
        this.set({ chain: c.name, quantile: '0.5' }, p.runTimeP50Ms / 1000);
        this.set({ chain: c.name, quantile: '0.99' }, p.runTimeP99Ms / 1000);
      }
    },
  });
  new client.Gauge({
    name: 'indexer_ingest_head_block',
    help: 'Indexed head block number',
    labelNames: ['chain'],
    registers: [registry],
    collect() {
      for (const c of chains()) this.set({ chain: c.name }, c.store.committedHead()?.number ?? -1);
    },
  });
  new client.Counter({
    name: 'indexer_ingest_roots_blocks_total',
    help: 'Blocks by roots-check outcome (VERIFY_ROOTS): verified (header hash, transaction hashes and both roots rebuilt and matched), not_checkable (a transaction type or header field the encoder does not know), unchecked (VERIFY_ROOTS=off), mismatch (decode tasks failed by a block that kept disagreeing with its header: ingest halts)',
    labelNames: ['chain', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of chains()) {
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
      for (const c of chains()) {
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
      for (const c of chains()) this.set({ chain: c.name }, openGaps(c.store).length);
    },
  });
}
