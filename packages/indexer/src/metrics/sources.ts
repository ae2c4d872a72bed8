/** What the metrics read of each served chain (the gauges of ingest.ts, storage.ts, serving.ts). */

import type client from 'prom-client';
import type { Ingest } from '../ingest/index.js';
import type { ThreadHeap } from '../schema/delta.js';
import type { Store } from '../storage/index.js';

/** What the gauges read of one served chain. */
export interface ChainGaugeSource {
  name: string;
  store: Store;
  ingest: Ingest;
  /** Live subscribers of the chain's stream hub (one per open stream; a leaked one never goes away). */
  hubSubscribers(): number;
  /** Hits and misses of the chain's response cache (src/server/response-cache.ts). */
  responseCache?(): { hits: number; misses: number; recordHits?: number };
  /** The chain's engine: its threads' heaps and its thread's CPU (null on a read replica). */
  engine?(): { heaps: readonly ThreadHeap[]; cpuMicros: number | null } | null;
}

/** Registers one family of gauges (ingest.ts, storage.ts, serving.ts) on `registry`, reading `chains()` at every scrape. */
export type RegisterGauges = (registry: client.Registry, chains: () => readonly ChainGaugeSource[]) => void;
