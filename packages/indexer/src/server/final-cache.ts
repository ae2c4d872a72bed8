/**
 * Answers about final chain records, kept across blocks. The response cache (response-cache.ts)
 * drops everything at the store's next write, because every answer carries its anchor (R1) and
 * most bodies change with the head. A chain record's body does not, once its block can no longer
 * be rolled back: a block header, a transaction envelope or a receipt at block `b` with
 * `b ≤ head − unfinalisedWindow` is what the node sent and stays so (a deeper reorg halts ingest,
 * and anchored routes refuse then, before any cache is read). So the body's data part is kept
 * here, keyed like the response cache, and answered again under the new anchor — on a moving
 * chain the first read of a record after each block no longer reads RocksDB and builds the body
 * again (the release bench's receipt row: bench/results/engine-thread-2026-11-29-tenth.md).
 *
 * A handler opts in by answering {@link finalSingle} with the record's block number; nothing
 * else is kept. The cache is dropped whole when the chain's ingest halts or its replica falls
 * behind or bootstraps (invoke.ts), so a process that resumes on another fork starts empty.
 * Bounded in bytes (FINAL_CACHE_MAX_BYTES, default 32 MiB); least recently used entries go
 * first. RESPONSE_CACHE=off disables it with the response cache.
 */

import type { BlockRef } from '../storage/index.js';
import { anchorJson, type Reply } from './route.js';

/** Characters of data JSON kept per chain at most. */
const MAX_CHARS = Number(process.env.FINAL_CACHE_MAX_BYTES ?? 32 * 1024 * 1024);

/** A final record's answer: its data JSON and the block whose finality makes it immutable. */
interface Entry {
  data: string;
  /** Block number of the record (the answer is visible to anchors at or above it). */
  block: number;
}

/**
 * `{anchor, data}` like `single`, marked as the body of a chain record at block `block` that no
 * longer changes once that block is final: {@link FinalCache} may answer it again under a later
 * anchor.
 */
export function finalSingle(anchor: BlockRef, dataJson: string, block: number): Reply {
  return { json: `{"anchor":${anchorJson(anchor)},"data":${dataJson}}`, final: { data: dataJson, block } };
}

/** One chain's answers about final records (see the module comment). */
export class FinalCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  /** Answers served from here (the handler did not run). */
  hits = 0;

  /**
   * @param window the store's unfinalised window, blocks: a record at `b ≤ head − window` is final.
   * @param maxChars bound on the data JSON kept, characters.
   */
  constructor(
    private readonly window: number,
    private readonly maxChars = MAX_CHARS,
  ) {}

  /**
   * The answer to `key` under `anchor`, when a final record's body is kept for it and is visible
   * at `anchor` (its block at or below it; an as-of anchor may be older than the record).
   * `head` is the view's committed head, which decides finality.
   */
  get(key: string, head: BlockRef, anchor: BlockRef): Reply | undefined {
    const e = this.entries.get(key);
    if (!e || e.block > anchor.number || e.block > head.number - this.window) return undefined;
    // Least recently used first out: a hit moves the entry to the end of the map's order.
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return { json: `{"anchor":${anchorJson(anchor)},"data":${e.data}}` };
  }

  /** Keeps `reply`'s record body for `key` when the reply is one and its block is final at `head`. */
  set(key: string, head: BlockRef, reply: Reply): void {
    const f = reply.final;
    if (!f || f.block > head.number - this.window || this.entries.has(key)) return;
    const size = f.data.length + key.length;
    if (size > this.maxChars) return;
    while (this.chars + size > this.maxChars) {
      const [oldest, e] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      this.chars -= e.data.length + oldest.length;
    }
    this.entries.set(key, { data: f.data, block: f.block });
    this.chars += size;
  }

  /** Drops every entry (ingest halted, the replica lags or bootstraps). */
  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /** Entries kept (tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}
