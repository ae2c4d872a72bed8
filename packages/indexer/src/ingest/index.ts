/**
 * The ingest follower: a small loop that plans a run (history up to the node's final block, then
 * the live window up to its head), fetches it through the decode pool (run.ts) and hands each
 * block to one of two drivers (drivers/history.ts, drivers/live.ts) that share the stages
 * (stages/: link, prepare, apply; unwind.ts on a reorg). Owns every RocksDB write (through the
 * store and its writer thread). The walk from node to committed row: docs/ingest.md.
 *
 * Reorgs: every block's parent hash is checked against what we hold; on mismatch the stages unwind
 * block by block to the common ancestor using undo records, then the new branch is applied. A
 * node that is behind (its head below ours, or a block it cannot give yet) is never taken for a
 * reorg: ingest just waits. A reorg deeper than the unfinalised window, or below the end of
 * history, halts ingest and records a gap; the server keeps serving what it has.
 */
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import type { Registry } from '../projections/index.js';
import type { Rpc } from '../rpc/client.js';
import type { BlockDelta } from '../schema/delta.js';
import type { Store } from '../storage/index.js';
import { StoreWriteError } from '../storage/index.js';
import type { Hub } from '../streams/hub.js';
import type { StreamLog } from '../streams/log.js';
import { type RootsCheck, rootsMismatchOf } from '../workers/decode/roots.js';
import { esmWorker } from '../workers/esm-worker.js';
import type { Driver } from './driver.js';
import { createHistoryDriver } from './drivers/history.js';
import { createLiveDriver } from './drivers/live.js';
import { createFinality } from './finality.js';
import { watchHeads } from './heads.js';
import type { NodeCheck } from './node-check.js';
import { createPauses } from './pause.js';
import { createRebuilder } from './rebuild.js';
import { createFetchLoop } from './run.js';
import { type CommitEvent, historyEndOf, type Mode, type Stage, type StageTimes } from './stage.js';
import { createApplyStage } from './stages/apply.js';
import { createLinkStage } from './stages/link.js';
import { createPrepareStage } from './stages/prepare.js';
import { type IngestStatus, initialIngestStatus, type PoolStats } from './status.js';
import { epochMs } from './timeline.js';
import { createUnwinder } from './unwind.js';

export type { CommitEvent, Mode, StageTimes } from './stage.js';
export {
  type IngestStatus,
  initialIngestStatus,
  type ModeRate,
  type PoolStats,
  type RootsStatus,
} from './status.js';
export { LIVE_STAGES, type LiveStage, type LiveTimeline, stageIntervals } from './timeline.js';

export interface IngestOptions {
  chain: string;
  rpcUrl: string;
  rpc: Rpc;
  store: Store;
  log: Logger;
  /** First block to index on an empty store. */
  startBlock: number;
  /** Head poll period while following live, milliseconds. */
  pollMs: number;
  /** WebSocket URL for newHeads (null: polling only). */
  wsUrl: string | null;
  /** Blocks per decode task during backfill. */
  blocksPerTask: number;
  /** Decode worker threads. */
  decodeThreads: number;
  /**
   * Old-generation bound of each decode thread's heap, MiB (`resourceLimits`): a task that needs
   * more fails and is retried instead of growing the process without a bound. Absent: V8's default.
   */
  decodeHeapMb?: number;
  registry: Registry;
  /** Durable stream log and live hub: frames are written in each block's batch and published after it commits. */
  streams?: { log: StreamLog; hub: Hub };
  /** Lanes that must move their checkpoint below a rolled-back block, in the same batch. */
  rollbackHooks?: Array<(dropped: number) => Record<string, unknown>>;
  /** Called with the depth of each completed reorg (metrics). */
  onReorg?: (depth: number) => void;
  /** Called after each committed block or rollback (streams, metrics). */
  onCommit?: (event: CommitEvent) => void;
  /** Blocks below the node's head that stay in the live window (undo, frames); UNFINALISED_WINDOW. */
  unfinalisedWindow: number;
  /** History segment bound, bytes of pending writes (SEGMENT_MB). */
  segmentBytes: number;
  /** History segment bound, blocks (SEGMENT_BLOCKS). */
  segmentBlocks: number;
  /** Blocks before the hand-over whose stream frames are made in history mode (HISTORY_FRAME_BLOCKS). */
  historyFrameBlocks: number;
  /** What makes a block history: the node's tag capped by the window, or the window (FINALITY). */
  finality?: 'tag' | 'window';
  /** Hold every block to its header's roots in the decode workers (VERIFY_ROOTS; default true). */
  verifyRoots?: boolean;
  /** The node-consistency check (node-check.ts): nothing is built while the node contradicts itself. */
  nodeCheck?: NodeCheck;
  /** Hears each decode thread's heap as it answers a task (per-thread heap metrics). */
  onDecodeHeap?: (heap: import('../schema/delta.js').WorkerHeap) => void;
  /** Each block's wall time per stage (link, prepare, apply) and its driver's commit, ms. */
  onStageTimes?: (mode: Mode, times: StageTimes) => void;
}

export interface Ingest {
  status(): IngestStatus;
  /** The decode pool's queue depth (now), utilisation and task times (as of ≤ 2 s ago). */
  poolStats(): PoolStats;
  start(): void;
  stop(): Promise<void>;
}

/** How long the decode pool's run-time figures are kept between reads (ms): see `poolStats`. */
const POOL_STATS_MS = 2_000;
/** Progress line cadence on the console, milliseconds. */
const PROGRESS_MS = 5_000;
/**
 * Age up to which a `finalized` read still serves a head the node announced, ms: history ends far
 * below a live head (UNFINALISED_WINDOW), and an older value is a lower bound (never too high).
 */
const FINALITY_REFRESH_MS = 1_000;

/**
 * The decode pool's figures: queue depth read now; utilisation and task-time percentiles (ms)
 * kept for {@link POOL_STATS_MS}. piscina builds a whole summary (stddev and 16 percentiles over
 * its histogram) for each of `runTime` and `utilization`, ~3 ms of the engine thread per read, and
 * the status tick asks 5 times a second: 1.5 % of the engine thread over a backfill before
 * (bench/results/engine-thread-2026-11-30-thirteenth.md).
 */
function poolStatsOf(pool: Piscina): () => PoolStats {
  let kept: { at: number; v: Omit<PoolStats, 'queueSize'> } | null = null;
  return () => {
    const now = performance.now();
    if (!kept || now - kept.at >= POOL_STATS_MS) {
      const h = pool.histogram.runTime;
      kept = { at: now, v: { utilization: pool.utilization, runTimeP50Ms: h.p50, runTimeP99Ms: h.p99 } };
    }
    return { queueSize: pool.queueSize, ...kept.v };
  };
}

/**
 * The follower of one chain (see the module comment): plans, fetches and drives blocks until
 * stopped. Its decode pool starts at once; `start()` begins following.
 */
export function createIngest(opts: IngestOptions): Ingest {
  const { store, rpc, log, registry } = opts;
  const pool = createDecodePool(opts);
  const poolStats = poolStatsOf(pool);
  // One warm-up task per decode thread, now rather than at start(): each thread compiles the
  // decode modules, builds the decoders and opens the node connection (workers/decode/worker.ts
  // `warm`, ~0.4 s) while the process finishes starting (the serving thread's OpenAPI document and
  // listeners), not in front of the first block (it was: the first task came back 0.5 s after start).
  for (let i = 0; i < opts.decodeThreads; i++) pool.run(opts.rpcUrl, { name: 'warm' }).catch(() => undefined);
  const status: IngestStatus = initialIngestStatus({
    verifyRoots: opts.verifyRoots ?? true,
    segmentBlocks: opts.segmentBlocks,
    segmentBytes: opts.segmentBytes,
  });
  let stopped = false;
  let loop: Promise<void> | null = null;
  /** The loop's pauses, cut short by stop(). */
  const { pause, wake } = createPauses();
  const heads = watchHeads(opts.wsUrl, log);
  const finality = createFinality(rpc, opts.unfinalisedWindow, opts.finality);
  const progress = createProgress(opts.chain, store, status, log);
  const { halt, rootsHalted, hardHalted } = haltsOf(opts.chain, status, log);
  store.onWriteError((err) => {
    status.lastError = err.message;
    halt('storage_write_failed');
  });
  const { unwinder, history, live } = composeDrivers(opts, status, halt, progress);

  const follow = createFetchLoop({
    store,
    pool,
    log,
    rpcUrl: () => opts.nodeCheck?.url() ?? opts.rpcUrl,
    blocksPerTask: opts.blocksPerTask,
    // In-flight decode tasks: bounds memory whatever the backlog (tasks × blocksPerTask blocks).
    maxInFlight: opts.decodeThreads * 2,
    // The live driver's blocks are built while the worker encodes their rows (LIVE_EARLY_ROWS=off:
    // the rows come with the block, as before; for A/B benches).
    earlyRows: process.env.LIVE_EARLY_ROWS !== 'off',
    verifyRoots: () => status.roots.enabled,
    interrupted: () => stopped || hardHalted() || (opts.nodeCheck?.faulted() ?? false),
    onDecodeHeap: opts.onDecodeHeap,
    onTask: (res, driver: Driver) => {
      if (rootsHalted()) {
        log.info({ chain: opts.chain, from: res.blocks[0]?.number }, 'roots match again: ingest resumes');
        status.state = driver.state;
        status.haltReason = status.haltDetail = null;
      }
      countRoots(status, res.blocks);
    },
    onBlock: (driver) => {
      status.mode = driver.mode;
      status.segments.open = driver.open();
    },
    onProgress: (target) => progress.report(target),
  });
  const rebuildStep = createRebuilder({ store, registry, pool, log });

  const plan = planner(rpc, heads, finality, status);

  /** One turn of the follower: plan, then history first (final blocks in segments), then the live window. */
  const step = async () => {
    await rebuildStep();
    if (await opts.nodeCheck?.hold(status)) return;
    const { nodeHead, historyTarget } = await plan();
    const seen = epochMs();
    status.nodeHead = nodeHead;
    status.finalized = finality.finalized();
    status.historyEnd = historyEndOf(store);
    const head = store.head();
    const next = head ? head.number + 1 : opts.startBlock;
    if (nodeHead < next) {
      if (!rootsHalted()) status.state = 'following';
      status.mode = null;
      status.etaSeconds = 0;
      // At or past the node's head: confirm our head is still the node's block at that height.
      await unwinder.checkHead(nodeHead);
      await heads.wait(opts.pollMs);
      return;
    }
    if (!rootsHalted()) status.state = nodeHead - next > 2 ? 'backfilling' : 'following';
    if (next <= historyTarget)
      await follow({ next, target: historyTarget, handOver: historyTarget, seen }, history);
    else await follow({ next, target: nodeHead, handOver: historyTarget, seen }, live);
    progress.report(nodeHead);
  };

  const run = async () => {
    let backoff = 100;
    while (!stopped) {
      try {
        if (hardHalted()) {
          await pause(1_000);
          continue;
        }
        await step();
        backoff = 100;
      } catch (err) {
        if (err instanceof StoreWriteError) {
          status.lastError = err.message;
          halt('storage_write_failed');
          continue;
        }
        if (stopped) break; // a call or task abandoned by the shutdown
        status.lastError = (err as Error).message;
        if (rootsMismatchOf(err)) {
          // Nothing of the block was committed (the task failed before it was applied).
          status.roots.mismatches++;
          halt('roots_mismatch', (err as Error).message);
        } else log.warn({ err: (err as Error).message }, 'ingest step failed; retrying');
        await pause(backoff + Math.random() * backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  };

  return {
    poolStats,
    status: () => {
      status.headSource = heads.subscribed() ? 'newHeads' : 'polling';
      return status;
    },
    start() {
      loop ??= run();
    },
    async stop() {
      stopped = true;
      heads.stop();
      wake();
      // Decode tasks waiting on a node that hangs or is gone are rejected: the loop ends at once.
      // What was committed to the writer thread is drained (the last committed block is whole).
      const poolDown = pool.destroy();
      await loop;
      await store.settled();
      await poolDown;
    },
  };
}

/**
 * One look at the node: its head and the end of final history. A head the node announced
 * (newHeads) is acted on at once: no eth_blockNumber, and the finality read of the last second
 * stands (the live window is far above it). Otherwise the head poll and the finality read go out
 * together (one round trip to the node).
 */
function planner(
  rpc: Rpc,
  heads: ReturnType<typeof watchHeads>,
  finality: ReturnType<typeof createFinality>,
  status: IngestStatus,
) {
  return async (): Promise<{ nodeHead: number; historyTarget: number }> => {
    const notified = heads.take();
    const recent = notified ? finality.recentTarget(notified.number, FINALITY_REFRESH_MS) : null;
    if (notified && recent !== null && notified.number >= (status.nodeHead ?? -1))
      return { nodeHead: notified.number, historyTarget: recent };
    const headCall = rpc.call<string>('eth_blockNumber').then((h) => Number.parseInt(h, 16));
    const historyTarget = await finality.historyTarget(headCall);
    return { nodeHead: await headCall, historyTarget };
  };
}

/** The decode pool: a fixed set of long-lived threads with bounded heaps (DECODE_HEAP_MB). */
function createDecodePool(opts: IngestOptions): Piscina {
  return new Piscina({
    ...esmWorker(new URL('../workers/decode/worker.js', import.meta.url)),
    // A fixed set of long-lived workers: piscina retires idle threads above minThreads at once
    // (idleTimeout 0), and every respawn recompiles the decode modules (~0.3 s of CPU each).
    minThreads: opts.decodeThreads,
    maxThreads: opts.decodeThreads,
    idleTimeout: 60_000,
    ...(opts.decodeHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: opts.decodeHeapMb } } : {}),
  });
}

/**
 * Halting: `halt` records why and logs it. A roots mismatch halts ingest until the node serves
 * the block's records matching its header again (`rootsHalted`: the loop keeps fetching it, with
 * backoff, and resumes on the first task that passes); every other halt (`hardHalted`) stays until
 * an operator acts.
 */
function haltsOf(chain: string, status: IngestStatus, log: Logger) {
  return {
    halt(reason: string, detail: string | null = null) {
      status.state = 'halted';
      status.haltReason = reason;
      status.haltDetail = detail;
      log.error({ chain, reason, detail }, 'ingest halted');
    },
    rootsHalted: () => status.state === 'halted' && status.haltReason === 'roots_mismatch',
    hardHalted: () => status.state === 'halted' && status.haltReason !== 'roots_mismatch',
  };
}

/** The shared stages (link, prepare, apply), the unwinder over them and the two drivers. */
function composeDrivers(
  opts: IngestOptions,
  status: IngestStatus,
  halt: (reason: string) => void,
  progress: { committed(e: CommitEvent): void },
) {
  const { store, rpc, log, registry } = opts;
  const unwinder = createUnwinder({
    chain: opts.chain,
    store,
    rpc,
    registry,
    log,
    streams: opts.streams,
    rollbackHooks: opts.rollbackHooks,
    halt,
    onCommit: (e) => opts.onCommit?.(e),
    onReorg: (depth) => {
      status.reorgs++;
      status.lastReorgDepth = depth;
      opts.onReorg?.(depth);
    },
  });
  const stages: Stage[] = [
    createLinkStage(),
    createPrepareStage(rpc),
    createApplyStage({ store, unwind: unwinder.rollbackTo }),
  ];
  unwinder.setStages(stages);
  const driverDeps = {
    chain: opts.chain,
    store,
    registry,
    log,
    streams: opts.streams,
    stages,
    unwinder,
    onStageTimes: opts.onStageTimes,
    onCommit: (e: CommitEvent) => {
      progress.committed(e);
      opts.onCommit?.(e);
    },
  };
  const history = createHistoryDriver(driverDeps, {
    segmentBytes: opts.segmentBytes,
    segmentBlocks: opts.segmentBlocks,
    historyFrameBlocks: opts.historyFrameBlocks,
  });
  return { unwinder, history, live: createLiveDriver(driverDeps) };
}

/** Counts each block's roots check into the status. */
function countRoots(status: IngestStatus, blocks: BlockDelta[]): void {
  for (const d of blocks) {
    const r: RootsCheck | undefined = d.roots;
    if (r?.status === 'verified') status.roots.verified++;
    else if (r?.status === 'unchecked') status.roots.unchecked++;
    else if (r?.status === 'not_checkable') {
      status.roots.notCheckable++;
      status.roots.lastNotCheckable = { block: d.number, types: r.types };
    }
  }
}

/**
 * Rates and the progress line: blocks, events and transactions per driver over the last
 * {@link PROGRESS_MS}, the ETA to the node's head, the last segment and the end of history.
 */
function createProgress(chain: string, store: Store, status: IngestStatus, log: Logger) {
  const fresh = () => ({ t: performance.now(), blocks: 0, events: 0, history: [0, 0], live: [0, 0] });
  let p = fresh();
  const count = (mode: Mode, blocks: number, txs: number, events: number) => {
    p.blocks += blocks;
    p.events += events;
    p[mode][0] += blocks;
    p[mode][1] += txs;
  };
  return {
    committed(e: CommitEvent) {
      if (e.kind === 'block') count('live', 1, e.block.txs.length, e.block.logs.length);
      if (e.kind !== 'segment') return;
      count('history', e.to - e.from + 1, e.txs, e.logs);
      status.historyEnd = e.to; // the rollback floor moved with the segment's write
      status.segments.committed++;
      status.segments.last = {
        from: e.from,
        to: e.to,
        blocks: e.to - e.from + 1,
        txs: e.txs,
        bytes: e.bytes,
      };
    },
    report(target: number) {
      const now = performance.now();
      const dt = (now - p.t) / 1000;
      if (dt * 1000 < PROGRESS_MS) return;
      status.blocksPerSecond = p.blocks / dt;
      status.eventsPerSecond = p.events / dt;
      for (const m of ['history', 'live'] as const)
        status.rates[m] = { blocksPerSecond: p[m][0] / dt, txPerSecond: p[m][1] / dt };
      const ours = store.head()?.number ?? -1;
      const left = Math.max(0, target - ours);
      status.etaSeconds = status.blocksPerSecond > 0 ? Math.round(left / status.blocksPerSecond) : null;
      if (left > 0)
        log.info(
          `backfill ${chain}: block ${ours}/${target} · ${status.mode ?? 'idle'} · ${status.blocksPerSecond.toFixed(1)} blocks/s · ` +
            `${(status.rates.history.txPerSecond + status.rates.live.txPerSecond).toFixed(0)} tx/s · ETA ${status.etaSeconds ?? '?'} s`,
        );
      p = fresh();
    },
  };
}
