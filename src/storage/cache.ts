/**
 * The ingest's write-back state cache: the latest value of every key ingest read or wrote
 * recently, bounded in bytes.
 *
 * Two jobs:
 *  - read-your-writes across the writer thread: a key written by a batch still in flight (see
 *    writer.ts) is *pinned* here until the batch is committed, so ingest never reads a stale value
 *    from RocksDB while its own write is on the way. HTTP reads never look here: they read what
 *    RocksDB has committed (one consistent snapshot per response, see view.ts).
 *  - hot state across blocks and history segments: balances, holder counters, wallet rows,
 *    funding edges, pool state and running totals that the next block touches again are read
 *    from memory, not from RocksDB. Small values stay after their write is committed; large ones
 *    (node records, frames) are dropped then, since ingest does not read them back.
 *
 * Eviction drops the oldest unpinned entries once the cache holds more than its bound; a pinned
 * entry is never dropped (the in-flight bytes are bounded by the ingest's backpressure instead).
 * Every store write goes through {@link StateCache.write}, so no cached value is ever behind the
 * database (the store is the only writer of its rows).
 */

/** A value larger than this (bytes) is not kept once its write is committed. */
export const HOT_VALUE_MAX_BYTES = 512;
/** Per-entry overhead counted against the bound (Map slot, entry object, key string). */
const ENTRY_OVERHEAD = 96;

interface Entry {
  /** The value (null: absent / deleted). */
  v: Buffer | null;
  /** Id of the in-flight write that last wrote it (0: committed or read from the store). */
  pin: number;
  size: number;
}

export interface CacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  pinned: number;
  hits: number;
  misses: number;
}

export class StateCache {
  private readonly map = new Map<string, Entry>();
  /** Keys written by each in-flight write, to unpin when it is committed. */
  private readonly byWrite = new Map<number, string[]>();
  private bytes = 0;
  private pinnedEntries = 0;
  private hits = 0;
  private misses = 0;

  /** @param maxBytes the memory bound (bytes); values read or written past it evict older ones. */
  constructor(readonly maxBytes: number) {}

  /**
   * The cached value of latin1 key `k`: a Buffer, null when known absent, undefined when not
   * cached (read the store).
   */
  get(k: string): Buffer | null | undefined {
    const e = this.map.get(k);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return e.v;
  }

  /** Records a value read from the store (null: absent), unless the key is cached already. */
  fill(k: string, v: Buffer | null): void {
    if (this.map.has(k)) return;
    if (v !== null && v.length > HOT_VALUE_MAX_BYTES) return;
    const size = k.length + (v?.length ?? 0) + ENTRY_OVERHEAD;
    this.map.set(k, { v, pin: 0, size });
    this.bytes += size;
    if (this.bytes > this.maxBytes) this.evict();
  }

  /** Records the ops of in-flight write `id`: pinned until {@link committed}(id). */
  write(id: number, ops: ReadonlyArray<{ key: Buffer; value: Buffer | null }>): void {
    const keys: string[] = new Array(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const { key, value } = ops[i];
      const k = key.toString('latin1');
      keys[i] = k;
      const old = this.map.get(k);
      if (old) {
        this.bytes -= old.size;
        if (old.pin) this.pinnedEntries--;
        this.map.delete(k); // re-inserted at the end: the most recently written survive eviction
      }
      const size = k.length + (value?.length ?? 0) + ENTRY_OVERHEAD;
      this.map.set(k, { v: value, pin: id, size });
      this.pinnedEntries++;
      this.bytes += size;
    }
    this.byWrite.set(id, keys);
    if (this.bytes > this.maxBytes) this.evict();
  }

  /** Write `id` is committed: its entries are unpinned; its large values are dropped. */
  committed(id: number): void {
    const keys = this.byWrite.get(id);
    if (!keys) return;
    this.byWrite.delete(id);
    for (const k of keys) {
      const e = this.map.get(k);
      if (!e || e.pin !== id) continue; // rewritten by a later write: still pinned by that one
      e.pin = 0;
      this.pinnedEntries--;
      if (e.v !== null && e.v.length > HOT_VALUE_MAX_BYTES) {
        this.map.delete(k);
        this.bytes -= e.size;
      }
    }
    if (this.bytes > this.maxBytes) this.evict();
  }

  /**
   * Keys (latin1) whose cached value is present and lies in [lo, hi) — latin1 strings compare
   * like the key bytes. For wipes, which must also delete rows only the cache knows of yet (writes
   * in flight). O(entries).
   */
  presentKeysIn(lo: string, hi: string | null): string[] {
    const out: string[] = [];
    for (const [k, e] of this.map) if (e.v !== null && k >= lo && (hi === null || k < hi)) out.push(k);
    return out;
  }

  /** Forgets everything (a wipe, a failed write: the store is the truth again). */
  clear(): void {
    this.map.clear();
    this.byWrite.clear();
    this.bytes = 0;
    this.pinnedEntries = 0;
  }

  stats(): CacheStats {
    return {
      entries: this.map.size,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      pinned: this.pinnedEntries,
      hits: this.hits,
      misses: this.misses,
    };
  }

  /** Drops the oldest unpinned entries until the cache is at 3/4 of its bound. */
  private evict(): void {
    const target = (this.maxBytes * 3) / 4;
    for (const [k, e] of this.map) {
      if (this.bytes <= target) return;
      if (e.pin) continue;
      this.map.delete(k);
      this.bytes -= e.size;
    }
  }
}
