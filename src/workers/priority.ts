/**
 * Thread priority of pool workers. The main thread serves HTTP reads and commits blocks; decode
 * and replay workers are throughput work. On a machine with fewer free cores than runnable
 * threads, a worker thread at the main thread's priority takes the core a waiting read needs. A
 * worker lowers its own thread's scheduling priority (Linux: `setpriority` on the thread id, which
 * needs no privilege in this direction), so the scheduler prefers the main thread under
 * contention and the workers still use every idle cycle.
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
