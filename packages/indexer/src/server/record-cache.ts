/**
 * Answers about chain records, kept across blocks. The response cache (response-cache.ts) drops
 * everything at the store's next write, because every answer carries its anchor (R1) and most
 * bodies change with the head. A chain record's body does not while its block stays canonical: a
 * block header, a transaction envelope or a receipt in block `(b, hash)` is what the node sent for
 * that block, and the block hash commits to it. So the body's data part is kept here with the
 * record's block, keyed like the response cache, and answered again under a later anchor when
 * block `b` is still canonical with the same hash — one point read (the canonical hash of `b`)
 * instead of the handler's reads and the body built again. A reorg that replaced `b` (or moved a
 * transaction to another block) fails that check and the handler answers anew. On a moving chain
 * this is what keeps a record read near the cached figure (the release bench's receipt row), and
 * what lets a desk poll the receipt of its own recent transaction cheaply every block.
 *
 * A handler opts in by answering {@link recordSingle} with the record's block number; nothing
 * else is kept. Bounded in characters (RECORD_CACHE_MAX_CHARS, default 32 Mi); the least recently
 * used entries go first. RECORD_CACHE=off disables it alone (bench/record-reads.ts measures both),
 * RESPONSE_CACHE=off with the response cache.
 */
import type { BlockRef } from '../storage/index.js';
import { anchorJson, type Reply } from './route.js';

/** Characters of data JSON (and keys) kept per chain at most. */
const MAX_CHARS = Number(process.env.RECORD_CACHE_MAX_CHARS ?? 32 * 1024 * 1024);

/** Whether the record cache is on (RECORD_CACHE=off turns it off). */
export const recordCacheOn = process.env.RECORD_CACHE !== 'off';

/** A record's answer: its data JSON and the block it is in. */
interface Entry {
  data: string;
  /** The record's block: number and canonical hash when the answer was made. */
  block: number;
  hash: string;
}

/** The canonical hash of block `n` in the request's view (undefined when none). */
export type HashAt = (n: number) => string | undefined;

/**
 * `{anchor, data}` like `single`, marked as the body of a chain record in block `block`: it is
 * the same data under any later anchor while that block stays canonical ({@link RecordCache}).
 */
export function recordSingle(anchor: BlockRef, dataJson: string, block: number): Reply {
  return { json: `{"anchor":${anchorJson(anchor)},"data":${dataJson}}`, record: { data: dataJson, block } };
}

/** One chain's answers about chain records (see the module comment). */
export class RecordCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  /** Answers served from here (the handler did not run). */
  hits = 0;

  /** @param maxChars bound on the data JSON and keys kept, characters. */
  constructor(private readonly maxChars = MAX_CHARS) {}

  /**
   * The answer to `key` under `anchor`, when a record's body is kept for it, its block is at or
   * below the anchor and `hashAt` (the request's view) still has that block with the same hash.
   */
  get(key: string, anchor: BlockRef, hashAt: HashAt): Reply | undefined {
    const e = this.entries.get(key);
    if (!e || e.block > anchor.number) return undefined;
    if (hashAt(e.block) !== e.hash) {
      this.drop(key, e); // reorged away: the handler answers for the new chain
      return undefined;
    }
    // Least recently used first out: a hit moves the entry to the end of the map's order.
    this.entries.delete(key);
    this.entries.set(key, e);
    this.hits++;
    return { json: `{"anchor":${anchorJson(anchor)},"data":${e.data}}` };
  }

  /** Keeps `reply`'s record body for `key` with its block's hash as `hashAt` (the same view) has it. */
  set(key: string, reply: Reply, hashAt: HashAt): void {
    const r = reply.record;
    if (!r) return;
    const hash = hashAt(r.block);
    const size = r.data.length + key.length;
    if (hash === undefined || size > this.maxChars) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    while (this.chars + size > this.maxChars) {
      const [oldest, e] = this.entries.entries().next().value as [string, Entry];
      this.drop(oldest, e);
    }
    this.entries.set(key, { data: r.data, block: r.block, hash });
    this.chars += size;
  }

  /** Entries kept (tests). */
  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.chars -= e.data.length + key.length;
  }
}
