/** `@chain-indexer/platform/threads`: scheduling priority of the process's threads. */

/** Lowers every thread but the calling one to `nice` (Linux; rescanned), for INGEST_NICE. */
export { deprioritiseOtherThreads, type ThreadPriority } from '../thread-priority.js';
