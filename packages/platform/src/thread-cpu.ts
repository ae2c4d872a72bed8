/**
 * CPU time of the calling thread, and its time waiting for a CPU, for the per-thread figures of the
 * metrics and benches. CPU time: Node's
 * `process.threadCpuUsage()` where it exists (Node ≥ 23.9), else Linux's /proc/thread-self/stat
 * (user + system clock ticks of this thread, 100 per second on Linux's default USER_HZ).
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on every Linux build in use). */
const TICKS_PER_SECOND = 100;

/**
 * This thread's CPU time since it started, microseconds (user + system); null where neither
 * source exists. Resolution: 1 µs with `threadCpuUsage`, 10 ms from /proc.
 */
export function threadCpuMicros(): number | null {
  const own = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (own) {
    const c = own.call(process);
    return c.user + c.system;
  }
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the command in parentheses: utime and stime are fields 14 and 15 of the line.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * How long the calling thread has been runnable but waiting for a CPU since it started,
 * microseconds: the second field of Linux's /proc/thread-self/schedstat (`run_delay`, ns; the
 * kernel keeps it with CONFIG_SCHED_INFO, on in every distribution kernel). A read answered late
 * because the serving thread sat on the run queue behind other threads shows here, not in its CPU
 * time. Null where the file cannot be read (not Linux, or a kernel without it).
 */
export function threadRunDelayMicros(): number | null {
  try {
    const f = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    const ns = Number(f[1]);
    return Number.isFinite(ns) ? ns / 1e3 : null;
  } catch {
    return null;
  }
}

/** The calling thread's V8 heap (bytes) and CPU time, as each worker thread reports it with its answers. */
export interface ThisThreadStats {
  used: number;
  total: number;
  limit: number;
  external: number;
  /** {@link threadCpuMicros}. */
  cpuMicros: number | null;
  /** {@link threadRunDelayMicros}. */
  runDelayMicros: number | null;
}

/**
 * The calling thread's heap (v8.getHeapStatistics), CPU time ({@link threadCpuMicros}) and time
 * waiting for a CPU ({@link threadRunDelayMicros}).
 */
export function thisThreadStats(): ThisThreadStats {
  const h = getHeapStatistics();
  return {
    used: h.used_heap_size,
    total: h.total_heap_size,
    limit: h.heap_size_limit,
    external: h.external_memory,
    cpuMicros: threadCpuMicros(),
    runDelayMicros: threadRunDelayMicros(),
  };
}
