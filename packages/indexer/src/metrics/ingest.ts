/**
 * The ingest gauges of each served chain: head lag (blocks, seconds), the decode pool (queue,
 * utilisation, task time), the indexed head, the roots-check outcomes, halts and open gaps. Read
 * at scrape time from the chain's ingest status and store.
 */

import { openGaps } from '../ingest/gaps.js';
import { blockTimestamp } from '../storage/headers.js';
import { chainGauge, instruments } from './define.js';
import type { RegisterGauges } from './sources.js';

/** Registers the ingest gauges on `registry`, reading `chains()` at every scrape. */
export const registerIngestGauges: RegisterGauges = (registry, chains) => {
  const { counter, gauge } = instruments(registry);
  chainGauge(
    registry,
    chains,
    'indexer_ingest_head_lag_blocks',
    'Blocks between the node head and the indexed head',
    (c) => {
      const s = c.ingest.status();
      const h = c.store.committedHead();
      return s.nodeHead != null && h ? Math.max(0, s.nodeHead - h.number) : 0;
    },
  );
  chainGauge(
    registry,
    chains,
    'indexer_ingest_head_lag_seconds',
    'Seconds between now and the indexed head block timestamp',
    (c) => {
      const h = c.store.committedHead();
      const ts = h ? blockTimestamp(c.store, h.number) : null;
      return ts === null ? 0 : Math.max(0, Date.now() / 1000 - ts);
    },
  );
  chainGauge(
    registry,
    chains,
    'indexer_decode_pool_queue_depth',
    'Decode tasks waiting for a worker thread',
    (c) => c.ingest.poolStats().queueSize,
  );
  chainGauge(
    registry,
    chains,
    'indexer_decode_pool_utilization_ratio',
    'Decode pool utilisation (0..1)',
    (c) => c.ingest.poolStats().utilization,
  );
  gauge(
    'indexer_decode_pool_task_seconds',
    'Decode task run time percentiles',
    ['chain', 'quantile'],
    (m) => {
      for (const c of chains()) {
        const p = c.ingest.poolStats();
        m.set({ chain: c.name, quantile: '0.5' }, p.runTimeP50Ms / 1000);
        m.set({ chain: c.name, quantile: '0.99' }, p.runTimeP99Ms / 1000);
      }
    },
  );
  chainGauge(
    registry,
    chains,
    'indexer_ingest_head_block',
    'Indexed head block number',
    (c) => c.store.committedHead()?.number ?? -1,
  );
  counter(
    'indexer_ingest_roots_blocks_total',
    'Blocks by roots-check outcome (VERIFY_ROOTS): verified (header hash, transaction hashes and both roots rebuilt and matched), not_checkable (a transaction type or header field the encoder does not know), unchecked (VERIFY_ROOTS=off), mismatch (decode tasks failed by a block that kept disagreeing with its header: ingest halts)',
    ['chain', 'outcome'],
    (m) => {
      m.reset();
      for (const c of chains()) {
        const r = c.ingest.status().roots;
        m.inc({ chain: c.name, outcome: 'verified' }, r.verified);
        m.inc({ chain: c.name, outcome: 'not_checkable' }, r.notCheckable);
        m.inc({ chain: c.name, outcome: 'unchecked' }, r.unchecked);
        m.inc({ chain: c.name, outcome: 'mismatch' }, r.mismatches);
      }
    },
  );
  gauge(
    'indexer_ingest_halted',
    'Whether ingest is halted (1) and why (reason: reorg_beyond_window, storage_write_failed, roots_mismatch, …); 0 with reason none while it runs',
    ['chain', 'reason'],
    (m) => {
      m.reset();
      for (const c of chains()) {
        const s = c.ingest.status();
        m.set(
          { chain: c.name, reason: s.state === 'halted' ? (s.haltReason ?? 'unknown') : 'none' },
          s.state === 'halted' ? 1 : 0,
        );
      }
    },
  );
  chainGauge(
    registry,
    chains,
    'indexer_ingest_open_gaps',
    'Open ingest gaps (all lanes)',
    (c) => openGaps(c.store).length,
  );
};
