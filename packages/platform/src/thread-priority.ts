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
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How often new threads are looked for, milliseconds. */
const RESCAN_MS = 2_000;

/**
 * Scheduling policy of the non-serving threads: `normal` (SCHED_OTHER at the nice value) or `idle`
 * (SCHED_IDLE: a thread runs only on a core no normal thread wants, and a waking normal thread —
 * the serving one — takes the core from it at once instead of at the end of its slice).
 */
export type ThreadPolicy = 'normal' | 'idle';

/** What {@link deprioritiseOtherThreads} did: the nice value it set and the threads it has set it on. */
export interface ThreadPriority {
  /** Nice value of the non-serving threads (0: the feature is off). */
  readonly nice: number;
  /** Their scheduling policy as asked; see {@link policyError} for whether it took. */
  readonly policy: ThreadPolicy;
  /** Why SCHED_IDLE could not be set (`chrt` missing or refused), null while it could. */
  readonly policyError: () => string | null;
  /** Threads re-niced so far (kernel task ids). */
  readonly threads: () => number;
  stop(): void;
}

/**
 * Gives every thread of this process but the calling one (the serving thread: call it from the
 * main thread) nice value `nice` (1–19; 0 turns it off), now and as new threads appear.
 * @returns a handle to stop the rescans; on a system without /proc/self/task, one that did nothing.
 */
export function deprioritiseOtherThreads(nice: number, policy: ThreadPolicy = 'normal'): ThreadPriority {
  const done = new Set<number>();
  const self = process.pid; // the main thread's task id is the process id
  let supported = nice > 0 || policy === 'idle';
  let policyError: string | null = null;
  // SCHED_IDLE has no Node API: util-linux's chrt sets it on a task id (no privilege needed to
  // lower a policy), off the thread, once per new task.
  const toIdle = (tid: number) => {
    if (policyError) return;
    execFile('chrt', ['--idle', '--pid', '0', String(tid)], (err, _out, stderr) => {
      // A task that exited meanwhile is no failure.
      if (err && !/No such process/i.test(stderr)) policyError = (stderr || err.message).trim().slice(0, 200);
    });
  };
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
        if (policy === 'idle') toIdle(tid);
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
    policy,
    policyError: () => policyError,
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

/** Linux scheduling policy numbers (sched.h) as /proc reports them. */
const POLICIES: Record<number, string> = {
  0: 'other',
  1: 'fifo',
  2: 'rr',
  3: 'batch',
  5: 'idle',
  6: 'deadline',
};

/** The scheduling policy of a task of this process (`other`, `idle`, …; null where /proc does not say). */
export function policyOf(tid: number): string | null {
  try {
    // Field 41 of /proc/<pid>/task/<tid>/stat.
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return POLICIES[Number(fields[38])] ?? null;
  } catch {
    return null;
  }
}
