/** `@chain-indexer/platform/threads`: scheduling priority of the process's threads. */

/** CPU time of the calling thread, microseconds (threadCpuUsage, else /proc/thread-self/stat), and its wait for a CPU (schedstat). */
export {
  type ThisThreadStats,
  thisThreadStats,
  threadCpuMicros,
  threadRunDelayMicros,
} from '../thread-cpu.js';
/** Lowers every thread but the calling one to `nice` (Linux; rescanned), for INGEST_NICE. */
export { deprioritiseOtherThreads, type ThreadPriority } from '../thread-priority.js';
