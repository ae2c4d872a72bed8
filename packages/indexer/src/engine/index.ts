/**
 * The serving thread's side of a chain's ingest engine (protocol.ts): starts the engine thread on
 * the database this thread opened, mirrors its status, hands each commit to `onCommit`, collects
 * its metrics for a scrape and stops it. Imports no build code: the engine's modules are loaded
 * in its own thread only (worker.ts), which a test checks through this thread's import graph.
 */
import { Worker } from 'node:worker_threads';
import type { BlockRef } from '../storage/index.js';
import type { PackedFrames } from '../streams/log.js';
import type { EngineInit, EngineStatus, FromEngine, ProjectionInfo, ToEngine } from './protocol.js';

export type { EngineInit, EngineStatus, ProjectionInfo, ThreadHeap } from './protocol.js';

/** A running engine as the serving thread sees it. */
export interface EngineHost {
  /** The projections the engine builds (names, versions, the route groups they back). */
  readonly projections: readonly ProjectionInfo[];
  /** The engine's status as last reported (at most {@link STATUS_MS} old while it runs). */
  status(): EngineStatus;
  /** Starts following the node (ingest, traces lane, node check, reconciler, publisher). */
  start(): void;
  /** The engine thread's prom-client metrics (`getMetricsAsJSON`), for the loopback scrape. */
  metricsJson(): Promise<unknown[]>;
  /**
   * Stops the engine: its lanes end, committed writes drain, its attachment to the database is
   * released and the thread exits. Resolves within `deadlineMs` whatever the engine does (the
   * thread is terminated past it; RocksDB's WAL holds every committed write).
   */
  stop(deadlineMs?: number): Promise<void>;
  /** The engine thread's id (threadId), for logs. */
  readonly threadId: number;
}

/** Longest a metrics request to the engine may take before the scrape goes on without it, ms. */
const METRICS_TIMEOUT_MS = 2_000;

/**
 * Starts the engine thread for `init` and resolves once it has composed the chain's write side
 * (store attached, projections registered — a version change wipes and resets a projection then).
 * `onCommit` runs on this thread for every committed block, segment and rollback, in order, with
 * the frames to publish (a commit with many frames hands its first ones to `onFrames` first, a
 * message each); `onFatal` when the engine thread dies.
 * @throws the engine's error when it could not start (the thread has exited by then).
 */
export function startEngine(
  init: EngineInit,
  o: {
    onCommit: (c: { head: BlockRef | null; frames: PackedFrames; postedAt: number }) => void;
    /** The first frames of a large commit, ahead of its `onCommit` (committed already; in order). */
    onFrames: (frames: PackedFrames) => void;
    onFatal: (error: string) => void;
    /** Old-generation bound of the engine thread's heap, MiB (resourceLimits). */
    heapMb: number;
    /** Called when a stop passed its deadline and the thread is terminated mid-way. */
    onLate?: () => void;
  },
): Promise<EngineHost> {
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: init,
    resourceLimits: { maxOldGenerationSizeMb: o.heapMb },
    // Its log lines go to fd 1 itself (pino), never through this thread's event loop.
    stdout: false,
    stderr: false,
  });
  let status: EngineStatus | null = null;
  let ready = false;
  let stopped = false;
  let stoppedResolve: (() => void) | null = null;
  const metricWaits = new Map<number, (json: unknown[]) => void>();
  let metricIds = 0;
  const send = (m: ToEngine) => {
    if (!stopped) worker.postMessage(m);
  };
  return new Promise<EngineHost>((resolve, reject) => {
    worker.on('message', (m: FromEngine) => {
      switch (m.t) {
        case 'commit':
          status = m.status;
          o.onCommit(m);
          return;
        case 'frames':
          o.onFrames(m.frames);
          return;
        case 'status':
          status = m.status;
          return;
        case 'metrics':
          metricWaits.get(m.id)?.(m.json);
          metricWaits.delete(m.id);
          return;
        case 'ready':
          status = m.status;
          ready = true;
          resolve(host(m.projections));
          return;
        case 'stopped':
          stopped = true;
          stoppedResolve?.();
          return;
        case 'fatal':
          if (!ready) reject(new Error(m.error));
          else o.onFatal(m.error);
          return;
      }
    });
    worker.on('error', (err) => {
      if (!ready) reject(err);
      else if (!stopped) o.onFatal(err.stack ?? err.message);
    });
    worker.on('exit', (code) => {
      for (const w of metricWaits.values()) w([]);
      metricWaits.clear();
      if (!ready) reject(new Error(`engine thread exited with code ${code} before it was ready`));
      else if (!stopped) o.onFatal(`engine thread exited with code ${code}`);
      stopped = true;
      stoppedResolve?.();
    });
  });

  function host(projections: ProjectionInfo[]): EngineHost {
    return {
      projections,
      threadId: worker.threadId,
      status: () => status!,
      start: () => send({ t: 'start' }),
      metricsJson() {
        if (stopped) return Promise.resolve([]);
        const id = ++metricIds;
        send({ t: 'metrics', id });
        return new Promise((r) => {
          const timer = setTimeout(() => {
            metricWaits.delete(id);
            r([]);
          }, METRICS_TIMEOUT_MS);
          metricWaits.set(id, (json) => {
            clearTimeout(timer);
            r(json);
          });
        });
      },
      async stop(deadlineMs = 4_000) {
        if (stopped) return;
        const done = new Promise<void>((r) => {
          stoppedResolve = r;
        });
        send({ t: 'stop' });
        const late = await Promise.race([
          done.then(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(true), deadlineMs).unref()),
        ]);
        stopped = true;
        // Stopped (every lane ended, writes drained, the database released) or late: either way
        // the thread goes now; nothing of it is needed any more.
        if (late) o.onLate?.();
        await worker.terminate();
      },
    };
  }
}
