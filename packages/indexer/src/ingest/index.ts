/**
 * The ingest follower: backfills from the checkpoint to the node's head through the decode pool,
 * then follows the head live. Owns every RocksDB write (through the store).
 *
 * Reorgs: every block's parent hash is checked against the canonical table; on mismatch the
 * store rolls back block by block to the common ancestor using undo records, then the new branch
 * is applied. A node that is behind (its head below ours, or a block it cannot give yet) is never
 * taken for a reorg: ingest just waits. A reorg deeper than the unfinalised window halts ingest
 * and records a gap; the server keeps serving what it has.
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { Piscina } from 'piscina';
import type { Registry } from '../projections/index.js';
import type { Rpc } from '../rpc/client.js';
import type { BlockRef, Store } from '../storage/index.js';
import { StoreWriteError } from '../storage/index.js';
import { HEADER, PROBE, RECEIPT, TX } from '../storage/tables/chain.js';
import type { Hub } from '../streams/hub.js';
import { type PendingFrame, type StreamLog, TOPIC_NAMES } from '../streams/log.js';
import type { StoredBlock } from '../workers/decode/fetch-blocks.js';
import type { DecodeTask } from '../workers/decode/worker.js';
import { applyChainRecords } from './apply.js';
import type { BlockDelta, FetchResult } from './delta.js';
import { recordGap } from './gaps.js';
import { watchHeads } from './heads.js';

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
  registry: Registry;
  /** Durable stream log and live hub: frames are written in each block's batch and published after it commits. */
  streams?: { log: StreamLog; hub: Hub };
  /** Lanes that must move their checkpoint below a rolled-back block, in the same batch. */
  rollbackHooks?: Array<(dropped: number) => Record<string, unknown>>;
  /** Called with the depth of each completed reorg (metrics). */
  onReorg?: (depth: number) => void;
  /** Called after each committed block or rollback (streams, metrics). */
  onCommit?: (
    event:
      | { kind: 'block'; block: BlockDelta; stages: Record<string, number> }
      | { kind: 'rollback'; dropped: BlockRef },
  ) => void;
}

/** Live state of ingest, read by `/health` and metrics. */
export interface IngestStatus {
  state: 'starting' | 'backfilling' | 'following' | 'halted';
  haltReason: string | null;
  nodeHead: number | null;
  /** Blocks per second over the last progress interval. */
  blocksPerSecond: number;
  /** Logs per second over the last progress interval. */
  eventsPerSecond: number;
  /** Estimated seconds to reach the node head at the current rate; null when unknown. */
  etaSeconds: number | null;
  reorgs: number;
  lastReorgDepth: number;
  lastError: string | null;
  /** Whether new heads arrive by newHeads subscription (else polling). */
  headSource: 'newHeads' | 'polling';
}

/** Decode pool figures for metrics: queue depth, utilisation, task time (milliseconds). */
export interface PoolStats {
  queueSize: number;
  utilization: number;
  runTimeP50Ms: number;
  runTimeP99Ms: number;
}

export interface Ingest {
  status(): IngestStatus;
  poolStats(): PoolStats;
  start(): void;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A block commit longer than this (milliseconds of thread time) is logged with its stage times. */
const SLOW_COMMIT_MS = 100;
/**
 * A block build yields to the event loop (between stages, and between slices of a projection)
 * once it has held the thread this long, ms: a point read waiting behind a commit waits at most
 * about this long plus one slice, or the block's final write.
 */
const YIELD_AFTER_MS = 2;
/** Progress line cadence on the console, milliseconds. */
const PROGRESS_MS = 5_000;

/** Frames of the raw chain topics: blocks, heads, transactions, logs, top-level creations. */
function chainFrames(d: BlockDelta, emit: (f: PendingFrame) => void): void {
  emit({ topic: 'blocks', event: 'block', json: d.header, keys: {} });
  emit({
    topic: 'heads',
    event: 'head',
    json: JSON.stringify({
      number: d.number,
      hash: d.hash,
      parentHash: d.parentHash,
      timestamp: d.timestamp,
    }),
    keys: {},
  });
  for (let i = 0; i < d.txs.length; i++) {
    const tx = d.txs[i];
    emit({
      topic: 'transactions',
      event: 'transaction',
      json: tx.json,
      keys: { addresses: tx.to ? [tx.from, tx.to] : [tx.from] },
    });
    if (tx.contractAddress && tx.status === 1) {
      emit({
        topic: 'creations',
        event: 'creation',
        json: JSON.stringify({
          address: tx.contractAddress,
          creator: tx.from,
          via: 'transaction',
          block: d.number,
          txIndex: i,
          logIndex: null,
          txHash: tx.hash,
        }),
        keys: { contracts: [tx.contractAddress], wallets: [tx.from] },
      });
    }
  }
  for (const l of d.logs)
    emit({
      topic: 'logs',
      event: 'log',
      json: l.json,
      keys: { addresses: [l.address], topics: l.topics.length ? [l.topics[0]] : [] },
    });
}

export function createIngest(opts: IngestOptions): Ingest {
  const { store, rpc, log } = opts;
  const pool = new Piscina({
    filename: fileURLToPath(new URL('../workers/decode/worker.js', import.meta.url)),
    // A fixed set of long-lived workers: piscina retires idle threads above minThreads at once
    // (idleTimeout 0), and every respawn recompiles the decode modules (~0.3 s of CPU each).
    minThreads: opts.decodeThreads,
    maxThreads: opts.decodeThreads,
    idleTimeout: 60_000,
  });
  // In-flight decode tasks: bounds memory whatever the backlog (tasks × blocksPerTask blocks).
  const maxInFlight = opts.decodeThreads * 2;
  const status: IngestStatus = {
    state: 'starting',
    haltReason: null,
    nodeHead: null,
    blocksPerSecond: 0,
    eventsPerSecond: 0,
    etaSeconds: null,
    reorgs: 0,
    lastReorgDepth: 0,
    lastError: null,
    headSource: 'polling',
  };
  let stopped = false;
  let loop: Promise<void> | null = null;
  const heads = watchHeads(opts.wsUrl, log);
  let progress = { t: performance.now(), blocks: 0, events: 0 };

  const nodeHashAt = async (n: number): Promise<`0x${string}` | null> => {
    const b = await rpc.call<{ hash: `0x${string}` } | null>('eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      false,
    ]);
    return b ? b.hash : null;
  };

  const { registry } = opts;
  /** Blocks per projection-rebuild step, between two looks at the node. */
  const REBUILD_STEP_BLOCKS = 200;

  /**
   * Builds and commits block `d` on the current head. The build yields to the event loop whenever
   * it has held the thread for YIELD_AFTER_MS, between stages and between the slices of a
   * projection that defines `steps` (a dense block's projections take tens of milliseconds each),
   * so HTTP reads interleave. They read committed state only: the build writes into the block's
   * batch, which reaches RocksDB in the one atomic write at the end, so a read between slices sees
   * the previous block whole and nothing of this one. Returns false, writing nothing, when the
   * head moved during a yield (a rollback ran): the caller re-plans.
   */
  const commit = async (d: BlockDelta): Promise<boolean> => {
    const head = store.head();
    const live = registry.live(d.number > 0 ? d.number - 1 : null);
    const meta: Record<string, unknown> = {};
    for (const p of live) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: d.number };
    const frames: PendingFrame[] = [];
    const emit = opts.streams ? (f: PendingFrame) => frames.push(f) : undefined;
    // Stage times (ms of thread time, pauses excluded), logged when the block held the thread long.
    const stages: Record<string, number> = {};
    let busy = 0;
    let t = performance.now();
    let slice = t;
    let stage = 0;
    /** Gives the thread back when the current slice is over budget; pauses are not stage time. */
    const pause = async () => {
      const now = performance.now();
      if (now - slice <= YIELD_AFTER_MS) return;
      stage += now - t;
      await new Promise((r) => setImmediate(r));
      t = slice = performance.now();
    };
    const lap = async (name: string) => {
      const now = performance.now();
      stage += now - t;
      stages[name] = Math.round(stage * 10) / 10;
      busy += stage;
      stage = 0;
      t = now;
      await pause();
    };
    const batch = store.newBatch();
    applyChainRecords(batch, d);
    if (emit) chainFrames(d, emit);
    await lap('chain');
    for (const p of live) {
      if (p.steps) for (const _ of p.steps(batch, d, emit)) await pause();
      else p.apply(batch, d, emit);
      await lap(p.name);
    }
    if (store.head()?.hash !== head?.hash) return false; // rolled back meanwhile: nothing written
    const committed = opts.streams ? opts.streams.log.append(batch, d.number, frames) : [];
    store.commitBatch({ number: d.number, hash: d.hash }, batch, meta);
    const now = performance.now();
    stages.write = Math.round((now - t) * 10) / 10;
    busy += now - t;
    if (busy > SLOW_COMMIT_MS)
      log.warn(
        {
          chain: opts.chain,
          block: d.number,
          txs: d.txs.length,
          logs: d.logs.length,
          ms: Math.round(busy),
          stages,
        },
        'slow block commit (thread time; the build yields between stages)',
      );
    for (const p of live) registry.setCheckpoint(p.name, d.number);
    opts.streams?.hub.publish(committed);
    progress.blocks++;
    progress.events += d.logs.length;
    opts.onCommit?.({ kind: 'block', block: d, stages });
    return true;
  };

  const halt = (reason: string) => {
    status.state = 'halted';
    status.haltReason = reason;
    log.error({ chain: opts.chain, reason }, 'ingest halted');
  };

  /**
   * Finds the common ancestor with the node and rolls back to it. Returns false when the node
   * cannot tell (it is behind), in which case nothing is rolled back.
   */
  const reorg = async (): Promise<boolean> => {
    const head = store.head();
    if (!head) return true;
    // The window holds undo data for the last `unfinalisedWindow` blocks, so the common ancestor
    // may be as deep as head − window.
    const floor = Math.max(0, head.number - store.unfinalisedWindow);
    let ancestor = -1;
    for (let n = head.number; n >= floor; n--) {
      const h = await nodeHashAt(n);
      if (h === null) return false; // node behind: not a reorg
      if (h === store.canonicalHash(n)) {
        ancestor = n;
        break;
      }
    }
    if (ancestor < 0) {
      recordGap(store, {
        lane: 'blocks',
        fromBlock: floor,
        toBlock: head.number,
        reason: `reorg deeper than the unfinalised window (${store.unfinalisedWindow} blocks)`,
      });
      halt('reorg_beyond_window');
      return true;
    }
    const depth = head.number - ancestor;
    log.warn({ chain: opts.chain, from: head.number, ancestor, depth }, 'reorg: rolling back');
    while ((store.head()?.number ?? -1) > ancestor) {
      const droppedNumber = store.head()!.number;
      const moved: Array<[string, number | null]> = [];
      let reorgFrames: ReturnType<StreamLog['append']> = [];
      const dropped = store.rollbackHead(
        () => {
          const meta: Record<string, unknown> = {};
          for (const p of registry.projections) {
            const c = registry.state(p.name).checkpoint;
            if (c !== null && c >= droppedNumber) {
              const to = droppedNumber - 1 >= 0 ? droppedNumber - 1 : null;
              meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: to };
              moved.push([p.name, to]);
            }
          }
          for (const hook of opts.rollbackHooks ?? []) Object.assign(meta, hook(droppedNumber));
          return meta;
        },
        (gone, newHead) => {
          if (!opts.streams) return [];
          // Reorgs are explicit on every topic: a frame naming the removed block and the new head.
          const json = JSON.stringify({ removedBlocks: [{ number: gone.number, hash: gone.hash }], newHead });
          const pending: PendingFrame[] = TOPIC_NAMES.map((topic) => ({
            topic,
            event: 'reorg',
            json,
            keys: {},
          }));
          const r = opts.streams.log.appendOps(gone.number, pending);
          reorgFrames = r.frames;
          return r.ops;
        },
      );
      for (const [name, to] of moved) registry.setCheckpoint(name, to);
      opts.streams?.hub.publish(reorgFrames);
      opts.onCommit?.({ kind: 'rollback', dropped });
    }
    status.reorgs++;
    status.lastReorgDepth = depth;
    opts.onReorg?.(depth);
    return true;
  };

  const reportProgress = (target: number) => {
    const now = performance.now();
    const dt = (now - progress.t) / 1000;
    if (dt * 1000 < PROGRESS_MS) return;
    status.blocksPerSecond = progress.blocks / dt;
    status.eventsPerSecond = progress.events / dt;
    const ours = store.head()?.number ?? -1;
    const left = Math.max(0, target - ours);
    status.etaSeconds = status.blocksPerSecond > 0 ? Math.round(left / status.blocksPerSecond) : null;
    if (left > 0) {
      log.info(
        `backfill ${opts.chain}: block ${ours}/${target} · ${status.blocksPerSecond.toFixed(1)} blocks/s · ` +
          `${status.eventsPerSecond.toFixed(0)} events/s · ETA ${status.etaSeconds ?? '?'} s`,
      );
    }
    progress = { t: now, blocks: 0, events: 0 };
  };

  /**
   * Blocks per decode task, adapted to the node: halved (down to 1) when a task fails with a
   * size/limit error (batch or range too large, 413), grown back by one per successful task.
   */
  let taskBlocks = opts.blocksPerTask;
  const isSizeError = (err: unknown) =>
    /too large|too many|limit|exceed|413|range/i.test(String((err as Error)?.message ?? err));

  /** Applies blocks next..target in order, with up to maxInFlight decode tasks running. */
  const backfill = async (next: number, target: number) => {
    const per = target - next > taskBlocks ? taskBlocks : 1;
    const queue: Array<{ from: number; to: number; p: Promise<FetchResult> }> = [];
    let scheduled = next;
    const schedule = () => {
      while (queue.length < maxInFlight && scheduled <= target && !stopped) {
        const from = scheduled;
        const to = Math.min(target, from + per - 1);
        const task: DecodeTask = { rpcUrl: opts.rpcUrl, from, to };
        const p = pool.run(task) as Promise<FetchResult>;
        p.catch(() => {}); // surfaced when awaited in order
        queue.push({ from, to, p });
        scheduled = to + 1;
      }
    };
    schedule();
    while (queue.length && !stopped) {
      const item = queue.shift()!;
      let res: FetchResult;
      try {
        res = await item.p;
        if (taskBlocks < opts.blocksPerTask) taskBlocks++;
      } catch (err) {
        if (isSizeError(err) && taskBlocks > 1) {
          taskBlocks = Math.max(1, Math.floor(taskBlocks / 2));
          log.warn(
            { taskBlocks, err: (err as Error).message?.slice(0, 200) },
            'node refused the request size; smaller decode tasks',
          );
        }
        throw err;
      }
      for (const d of res.blocks) {
        const head = store.head();
        if (head && (d.number !== head.number + 1 || d.parentHash !== head.hash)) {
          await reorg();
          return; // re-plan from the new head
        }
        for (const p of registry.live(d.number > 0 ? d.number - 1 : null))
          await p.prepare?.(d, { store, rpc });
        if (store.head()?.hash !== head?.hash) return; // moved while preparing: re-plan
        if (!(await commit(d))) return; // rolled back while building: re-plan
        // A macrotask turn between blocks lets the binding free each batch's native memory and
        // lets HTTP reads interleave (bench/storage/RESULTS.md: RSS doubles without it).
        await new Promise((r) => setImmediate(r));
      }
      if (res.missingFrom !== null) return; // node does not have it yet: wait, re-plan
      reportProgress(target);
      schedule();
    }
  };

  /** Reads block n's stored records (raw strings, byte-exact as stored) for a rebuild. */
  const storedBlock = (n: number): StoredBlock => {
    const v = store.view();
    try {
      const header = v.get(HEADER, n);
      if (header === undefined) throw new Error(`rebuild: no stored header for block ${n}`);
      const txs: string[] = [];
      v.eachValue(TX, { prefix: [n] }, (t) => {
        txs.push(t);
      });
      const receipts = txs.map((_, i) => {
        const r = v.get(RECEIPT, n, i);
        if (r === undefined) throw new Error(`rebuild: no stored receipt for block ${n} tx ${i}`);
        return r;
      });
      const probes = v.get(PROBE, n);
      return { header, txs, receipts, probes: probes === undefined ? null : JSON.stringify(probes) };
    } finally {
      v.close();
    }
  };

  /**
   * Advances lagging projections (new or version-bumped) over stored blocks, a step at a time.
   * Each block is one atomic batch that also advances the projection's checkpoint.
   */
  const rebuildStep = async () => {
    const head = store.head();
    if (!head) return;
    const lagging = registry.lagging(head.number);
    if (!lagging.length) return;
    const from = Math.min(...lagging.map((p) => (registry.state(p.name).checkpoint ?? -1) + 1));
    const to = Math.min(head.number, from + REBUILD_STEP_BLOCKS - 1);
    const chunk = 20;
    const tasks: Array<Promise<BlockDelta[]>> = [];
    for (let n = from; n <= to; n += chunk) {
      const blocks: StoredBlock[] = [];
      for (let m = n; m <= Math.min(to, n + chunk - 1); m++) blocks.push(storedBlock(m));
      const task = pool.run(blocks, { name: 'restore' }) as Promise<BlockDelta[]>;
      task.catch(() => {}); // surfaced when awaited in order (a rollback may stop the loop first)
      tasks.push(task);
    }
    for (const t of tasks) {
      for (const d of await t) {
        // The chain may have moved (a rollback) while we awaited: only apply blocks still canonical.
        if (store.canonicalHash(d.number) !== d.hash) return;
        const expected = d.number > 0 ? d.number - 1 : null;
        const ps = lagging.filter((p) => registry.state(p.name).checkpoint === expected);
        if (!ps.length) continue;
        const meta: Record<string, unknown> = {};
        for (const p of ps) meta[registry.metaKeyOf(p.name)] = { version: p.version, checkpoint: d.number };
        store.commitLate(
          d.number,
          (batch) => {
            for (const p of ps) p.apply(batch, d);
          },
          meta,
        );
        for (const p of ps) registry.setCheckpoint(p.name, d.number);
      }
    }
    log.info({ from, to, projections: lagging.map((p) => p.name) }, 'projection rebuild step');
  };

  const run = async () => {
    let backoff = 100;
    while (!stopped) {
      try {
        if (status.state === 'halted') {
          await sleep(1_000);
          continue;
        }
        await rebuildStep();
        const nodeHead = Number.parseInt(await rpc.call<string>('eth_blockNumber'), 16);
        status.nodeHead = nodeHead;
        const head = store.head();
        const next = head ? head.number + 1 : opts.startBlock;
        if (nodeHead < next) {
          status.state = 'following';
          status.etaSeconds = 0;
          // At or past the node's head: confirm our head is still the node's block at that height.
          if (head && nodeHead >= head.number) {
            const h = await nodeHashAt(head.number);
            if (h !== null && h !== head.hash) await reorg();
          }
          await heads.wait(opts.pollMs);
          continue;
        }
        status.state = nodeHead - next > 2 ? 'backfilling' : 'following';
        await backfill(next, nodeHead);
        reportProgress(nodeHead);
        backoff = 100;
      } catch (err) {
        if (err instanceof StoreWriteError) {
          status.lastError = err.message;
          halt('storage_write_failed');
          continue;
        }
        status.lastError = (err as Error).message;
        log.warn({ err: (err as Error).message }, 'ingest step failed; retrying');
        await sleep(backoff + Math.random() * backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  };

  return {
    poolStats: () => {
      const h = pool.histogram.runTime;
      return {
        queueSize: pool.queueSize,
        utilization: pool.utilization,
        runTimeP50Ms: h.p50,
        runTimeP99Ms: h.p99,
      };
    },
    status: () => {
      status.headSource = heads.subscribed() ? 'newHeads' : 'polling';
      return status;
    },
    start() {
      if (!loop) {
        // One warm-up task per decode thread: decoders built and the node connection open before
        // the first block (see workers/decode/worker.ts `warm`).
        for (let i = 0; i < opts.decodeThreads; i++)
          pool.run(opts.rpcUrl, { name: 'warm' }).catch(() => undefined);
      }
      loop ??= run();
    },
    async stop() {
      stopped = true;
      heads.stop();
      await loop;
      await pool.destroy();
    },
  };
}
