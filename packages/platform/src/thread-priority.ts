/**
 * The serving thread first, on Linux: every other thread of the process — the ingest engine, its
 * decode and writer threads, RocksDB's flush and compaction threads, libuv's pool — runs at a
 * lower scheduling priority (a higher nice value), so that when the machine has fewer cores than
 * runnable threads (a backfill on 2 cores) the kernel gives a core to the thread that answers HTTP
 * and SSE before it gives one to the threads that build the index. Ingest still gets every cycle
 * the serving thread leaves; nothing is slowed while the server is idle.
 *
 * Threads appear over time (RocksDB starts background threads lazily, piscina respawns workers),
 * so the tasks of the process are looked at again every {@link RESCAN_MS}. Raising a thread's nice
 * value needs no privilege; a thread that cannot be changed is left as it is. Elsewhere than Linux
 * (no /proc/self/task) this does nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How often new threads are looked for, milliseconds. */
const RESCAN_MS = 2_000;

/** What {@link deprioritiseOtherThreads} did: the nice value it set and the threads it has set it on. */
export interface ThreadPriority {
  /** Nice value of the non-serving threads (0: the feature is off). */
  readonly nice: number;
  /** Threads re-niced so far (kernel task ids). */
  readonly threads: () => number;
  stop(): void;
}

/**
 * Gives every thread of this process but the calling one (the serving thread: call it from the
 * main thread) nice value `nice` (1–19; 0 turns it off), now and as new threads appear.
 * @returns a handle to stop the rescans; on a system without /proc/self/task, one that did nothing.
 */
export function deprioritiseOtherThreads(nice: number): ThreadPriority {
  const done = new Set<number>();
  const self = process.pid; // the main thread's task id is the process id
  let supported = nice > 0;
  const scan = () => {
    let tids: number[];
    try {
      tids = readdirSync('/proc/self/task').map(Number);
    } catch {
      supported = false;
      return;
    }
    for (const tid of tids) {
      if (tid === self || done.has(tid)) continue;
      try {
        // A task that already runs lower than asked (set by someone else) is left alone.
        if (getPriority(tid) < nice) setPriority(tid, nice);
        done.add(tid);
      } catch {
        // The thread exited meanwhile, or its priority cannot be changed: skip it.
      }
    }
    // Forget tasks that exited (ids are reused).
    if (done.size > 256) for (const t of [...done]) if (!tids.includes(t)) done.delete(t);
  };
  if (supported) scan();
  const timer = supported ? setInterval(scan, RESCAN_MS) : null;
  timer?.unref();
  return {
    nice: supported ? nice : 0,
    threads: () => done.size,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}

/** The nice value of a task of this process (Linux; null where /proc does not say). */
export function niceOf(tid: number): number | null {
  try {
    // Field 19 of /proc/<pid>/task/<tid>/stat, after the command in parentheses.
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[16]);
  } catch {
    return null;
  }
}
