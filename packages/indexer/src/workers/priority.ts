/**
 * Thread priority of pool workers. The main thread serves HTTP reads and commits blocks; replay
 * workers (the traces lane) are background work that must never take a core the main lanes or a
 * waiting read need. Such a worker lowers its own thread's scheduling priority (Linux:
 * `setpriority` on the thread id, which needs no privilege in this direction), so the scheduler
 * prefers every other thread under contention and the worker still uses every idle cycle. Decode
 * workers stay at normal priority: they feed the main lanes, and niced they lost the CPU to other
 * processes on a shared machine (backfill 25–41 → 18–19 blocks/s in one run).
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';

/**
 * Lowers the calling thread's priority to `nice` (0 normal … 19 lowest). Linux only (the thread id
 * comes from /proc/thread-self); elsewhere, or when the call is refused, it does nothing and
 * returns false. Never raises a priority.
 */
export function lowerThisThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false; // not a worker thread
    if (os.getPriority(tid) >= nice) return true;
    os.setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
