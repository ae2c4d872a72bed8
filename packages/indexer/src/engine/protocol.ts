/**
 * The messages between a chain's ingest engine thread (worker.ts) and the serving thread
 * (host.ts). The engine owns everything that builds the index — the follower and its stages, the
 * decode and replay pools, the state cache, segments, the writer thread, the traces lane, the
 * node check, the reconciler and the change-log publisher — on the database the serving thread
 * opened (attached by its native handle). The serving thread learns only what was committed: per
 * commit one small message (the committed head and the stream frames' bytes), and the engine's
 * status a few times a second. Type-only module: the serving thread imports no build code.
 */
import type { ChainConfig, IngestTuning } from '../config/index.js';
import type { IngestStatus, PoolStats } from '../ingest/index.js';
import type { MarketsConfig } from '../markets/config.js';
import type { ThreadHeap } from '../schema/delta.js';
import type { TracesLaneStatus } from '../schema/rows/traces.js';
import type { CacheStats } from '../storage/cache.js';
import type { BlockRef } from '../storage/index.js';
import type { PackedFrames } from '../streams/log.js';
import type { LaunchpadDeployments } from '../tokens/launchpads.js';

/** What the engine thread starts with (its `workerData`; structured-cloned). */
export interface EngineInit {
  chain: ChainConfig;
  /** The node ingest reads (the devnet's front for the embedded devnet). */
  rpcUrl: string;
  /** Native handle of the chain's RocksDB, opened by the serving thread (storage/binding.ts). */
  handle: bigint;
  markets: MarketsConfig;
  launchpads: LaunchpadDeployments;
  blocksPerTask: number;
  decodeThreads: number;
  reconcileIntervalMs: number;
  ingest: IngestTuning;
  /** Every committed write also goes to the change log (ROLE=writer). */
  changeLog: boolean;
  /** ROLE=writer: the NATS servers the change log and snapshots go to (the engine connects itself). */
  writer: { natsUrl: string; snapshotSeconds: number } | null;
  /** Pino level of the engine's log lines (written to fd 1 by this thread, not through the serving thread). */
  logLevel: string;
  /** Bounds of the decode pool's heaps, MiB (`resourceLimits`; ENGINE_* in config). */
  decodeHeapMb: number;
}

/** A projection as the serving thread knows it: no build code, only what /health and R5 need. */
export interface ProjectionInfo {
  name: string;
  version: number;
  backs: string[];
}

/** The engine's state, mirrored on the serving thread for /health, metrics and R5 checks. */
export interface EngineStatus {
  ingest: IngestStatus;
  pool: PoolStats;
  traces: TracesLaneStatus;
  storage: {
    inFlight: { batches: number; bytes: number };
    cache: CacheStats;
    writeError: string | null;
  };
  /** ROLE=writer: the change-log publisher's state (null until it reached JetStream). */
  publisher: import('../replication/publisher.js').PublisherStatus | null;
  heaps: ThreadHeap[];
  /** Engine-thread CPU since start, microseconds (platform threadCpuMicros: threadCpuUsage or /proc). */
  cpuMicros: number | null;
}

export type { ThreadHeap };

/** Engine → serving thread. */
export type FromEngine =
  | { t: 'ready'; projections: ProjectionInfo[]; status: EngineStatus }
  | {
      t: 'commit';
      /** The head after this commit (RocksDB holds it: every view opened from now on sees it). */
      head: BlockRef | null;
      /**
       * Frames this commit appended, in sequence order, packed in one transferred buffer:
       * published to the live subscribers.
       */
      frames: PackedFrames;
      /** When the engine posted it (epoch ms, sub-millisecond): the serving thread's hand-over time in the metrics. */
      postedAt: number;
      /** The engine's status right after this commit. */
      status: EngineStatus;
    }
  | {
      t: 'frames';
      /**
       * The first frames of a commit whose frames exceed one message (in sequence order; its
       * `commit` message follows with the rest, the head and the status): a hand-over's last
       * segments carry the frames of HISTORY_FRAME_BLOCKS blocks, thousands, which the serving
       * thread then takes a message (one turn) at a time.
       */
      frames: PackedFrames;
    }
  | { t: 'status'; status: EngineStatus }
  | { t: 'metrics'; id: number; json: unknown[] }
  | { t: 'stopped' }
  | { t: 'fatal'; error: string };

/** Serving thread → engine. */
export type ToEngine = { t: 'start' } | { t: 'stop' } | { t: 'metrics'; id: number };
