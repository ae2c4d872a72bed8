/**
 * The fetch loop of one planned run: blocks `next..target` are fetched through the decode pool,
 * up to `maxInFlight` tasks ahead, and handed in order to a driver (drivers/history.ts or
 * drivers/live.ts). It adapts the task size to the node (halved on a size refusal, grown back one
 * block per good task), prefetches the state rows each task's blocks will read in one multi-get,
 * and keeps the writer thread within the driver's in-flight bound (bounded memory).
 */

import { MessageChannel } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Piscina } from 'piscina';
import type { BlockParts, FetchResult, LatePart, LateRows, WorkerHeap } from '../schema/delta.js';
import { nextSlice, type Store } from '../storage/index.js';
import type { DecodeTask } from '../workers/decode/worker.js';
import type { Driver } from './driver.js';
import { epochMs } from './timeline.js';

/** A planned run. */
export interface Run {
  next: number;
  target: number;
  /** The end of final history for this plan (frames are made only within its tail). */
  handOver: number;
  /** When the head that planned it was seen (epoch ms). */
  seen: number;
}

/** What the fetch loop needs from the follower around it. */
export interface FetchLoopDeps {
  store: Store;
  pool: Piscina;
  log: Logger;
  rpcUrl: () => string;
  /** Blocks per decode task at most (BLOCKS_PER_TASK). */
  blocksPerTask: number;
  /** Decode tasks in flight at most. */
  maxInFlight: number;
  /** Live tasks (batches with undo) answer their blocks before their encoded rows (DecodeTask.early). */
  earlyRows: boolean;
  verifyRoots: () => boolean;
  /** The loop should end now (stop, hard halt, node fault). */
  interrupted: () => boolean;
  /** A task came back (roots counting, resuming after a roots halt, heap metrics). */
  onTask: (res: FetchResult, driver: Driver) => void;
  onDecodeHeap?: (heap: WorkerHeap) => void;
  /** A block went through the driver, or the run ended (the open segment, the mode, for status). */
  onBlock: (driver: Driver) => void;
  /** A task's blocks are all applied (progress line, rates). */
  onProgress: (target: number) => void;
}

/** A decode task in flight. */
interface Posted {
  from: number;
  to: number;
  p: Promise<FetchResult>;
  /** Handed to the pool (epoch ms). */
  posted: number;
}

/** The blocks of an early task's first answer, each part following from its second (`late`). */
function withLateParts(r: FetchResult, late: Promise<LateRows>): FetchResult {
  r.blocks.forEach((d, i) => {
    const part = (k: keyof BlockParts): LatePart => {
      const p = late.then((x) => x.parts[i][k]);
      p.catch(() => {}); // a block dropped before its settle never awaits it
      return { late: p };
    };
    d.parts = {
      chain: part('chain'),
      decodedViews: part('decodedViews'),
      tokens: part('tokens'),
      wallets: part('wallets'),
    };
  });
  return r;
}

const isSizeError = (err: unknown) =>
  /too large|too many|limit|exceed|413|range/i.test(String((err as Error)?.message ?? err));

/** The fetch loop; `follow` returns when the run is done or a stage asked to plan again. */
export function createFetchLoop(deps: FetchLoopDeps) {
  const { store, pool, log } = deps;
  let taskBlocks = deps.blocksPerTask;

  /**
   * Posts the decode task of blocks `from..to`. An early task (the live driver's: `priors`, with
   * `earlyRows`) answers the shaped blocks first, on a port, and their encoded rows after
   * (workers/decode/worker.ts): each block's parts are then {@link LatePart}s, which the build
   * does not wait for until the block's end.
   */
  const post = (from: number, to: number, texts: boolean, priors: boolean): Posted => {
    const task: DecodeTask = {
      rpcUrl: deps.rpcUrl(),
      from,
      to,
      rows: true,
      texts,
      priors,
      verifyRoots: deps.verifyRoots(),
    };
    const posted = epochMs();
    if (!priors || !deps.earlyRows) {
      const p = pool.run(task) as Promise<FetchResult>;
      p.catch(() => {}); // surfaced when awaited in order
      return { from, to, p, posted };
    }
    const { port1, port2 } = new MessageChannel();
    task.early = port2;
    const late = pool.run(task, { transferList: [port2] as never }) as Promise<LateRows>;
    late.then((r) => r.heap && deps.onDecodeHeap?.(r.heap)).catch(() => {}); // surfaced by settleLate
    const p = new Promise<FetchResult>((resolve, reject) => {
      port1.once('message', (r: FetchResult) => {
        port1.close();
        resolve(withLateParts(r, late));
      });
      // The worker posts before it answers; a task that failed before its post never posts.
      late.catch((err: unknown) => {
        port1.close();
        reject(err);
      });
    });
    p.catch(() => {});
    return { from, to, p, posted };
  };

  const receive = async (item: Posted, driver: Driver) => {
    try {
      const res = await item.p;
      if (res.heap) deps.onDecodeHeap?.(res.heap);
      if (taskBlocks < deps.blocksPerTask) taskBlocks++;
      deps.onTask(res, driver);
      return res;
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
  };

  return async function follow(run: Run, driver: Driver): Promise<void> {
    const { target, handOver, seen } = run;
    deps.onBlock(driver); // the status names the driver from the run's first block on
    const per = target - run.next > taskBlocks ? taskBlocks : 1;
    const queue: Posted[] = [];
    let scheduled = run.next;
    const schedule = () => {
      while (queue.length < deps.maxInFlight && scheduled <= target && !deps.interrupted()) {
        const to = Math.min(target, scheduled + per - 1);
        // Stateless rows come encoded from the worker; the JSON texts only where frames are made.
        queue.push(post(scheduled, to, driver.framesAt(to, handOver), driver.undo));
        scheduled = to + 1;
      }
    };
    schedule();
    try {
      while (queue.length && !deps.interrupted()) {
        const item = queue.shift()!;
        const res = await receive(item, driver);
        const received = epochMs();
        // Every state row the task's blocks read first, in one multi-get (the workers listed them).
        await store.prefetchEncoded(res.blocks.flatMap((b) => (b.stateKeys ? [b.stateKeys] : [])));
        for (let i = 0; i < res.blocks.length; i++) {
          const d = res.blocks[i];
          if (deps.interrupted()) return;
          // Backpressure: the writer thread keeps up, or the build waits for it (bounded memory).
          await store.settled(driver.inFlight);
          const last = d.number === target || (res.missingFrom !== null && i === res.blocks.length - 1);
          const fetched = { seen, posted: item.posted, marks: res.marks, received };
          if (
            (await driver.execute({ d, frames: driver.framesAt(d.number, handOver), last, fetched })) ===
            'replan'
          )
            return;
          deps.onBlock(driver);
          // A macrotask turn between blocks lets the binding free each batch's native memory and
          // lets other work interleave (bench/storage/RESULTS.md: RSS doubles without it).
          await nextSlice();
        }
        if (res.missingFrom !== null) return; // node does not have it yet: wait, re-plan
        deps.onProgress(target);
        schedule();
      }
    } finally {
      // The run ends (done, re-plan, failure): an open segment holds whole blocks only when the
      // run ended between blocks; a failure mid-block drops it (its blocks are fetched again).
      await driver.flush();
      deps.onBlock(driver);
    }
  };
}
