/**
 * What ingest reads before RocksDB: its own writes still in flight, then a bounded cache of hot
 * values.
 *
 * Two layers:
 *  - overlays: the pending writes of every batch handed to the writer thread (writer.ts) and not
 *    committed yet, newest first. A batch's own key → value map is registered as it is (no copy), so
 *    handing a history segment of a million rows over costs nothing here; it is dropped when
 *    RocksDB holds the batch. Ingest therefore never reads a stale value while its write is on the
 *    way. HTTP reads never look here: they read what RocksDB has committed (one consistent
 *    snapshot per response, see view.ts).
 *  - the cache: small values read from RocksDB, and the small values of committed live blocks
 *    (balances, holder counters, wallet rows, funding edges, pool state and running totals that
 *    the next block touches again), bounded in bytes; the oldest are evicted first. A history
 *    segment's values are not copied in: the next segment reads what it needs in one multi-get.
 *
 * The store is the only writer of its rows and every write registers here first, so a cached
 * value is never behind RocksDB.
 */

/** A value larger than this (bytes) is not cached (node records, frames: ingest does not read them back). */
export const HOT_VALUE_MAX_BYTES = 512;
/** Per-entry overhead counted against the bound (Map slot, entry, key string). */
const ENTRY_OVERHEAD = 96;

/**
 * Latest value per key (latin1 of the key bytes; null: a delete), as a batch holds its pending
 * writes. Values only: a history segment holds a few hundred thousand keys until it commits, and
 * every object per key survives the young generation's scavenges (copied, on the main thread):
 * the key string and its value are all a pending write keeps.
 */
export type OpMap = Map<string, Buffer | null>;

interface Entry {
  /** The value (null: absent). */
  v: Buffer | null;
  size: number;
  /** The cache's epoch when the value was put (see {@link StateCache.committed}). */
  epoch: number;
}

/**
 * A committed batch too large to retire in one turn: its keys' cached values are dropped in
 * slices ({@link StateCache.retireSlice}); meanwhile a cached value put before `epoch` of one of
 * its keys is treated as absent.
 */
interface Retiring {
  ops: OpMap;
  epoch: number;
  keys: IterableIterator<string>;
}

/**
 * Keys committed while an asynchronous read of RocksDB was out ({@link StateCache.fence}): the
 * read may have returned an older value for them, which must not be cached.
 */
export interface Fence {
  readonly committed: OpMap[];
}

/** A committed batch with more ops than this is retired in slices, not in one turn. */
export const RETIRE_SLICE_OPS = 4096;

export interface CacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  /** Write batches whose writes are overlaid (in flight). */
  overlays: number;
  hits: number;
  misses: number;
}

export class StateCache {
  private readonly map = new Map<string, Entry>();
  /** In-flight writes, oldest first. */
  private overlays: Array<{ id: number; ops: OpMap; promote: boolean }> = [];
  /** Large committed batches whose keys are still being dropped from the cache, oldest first. */
  private retiring: Retiring[] = [];
  /** Asynchronous reads out, each with the batches committed since it started. */
  private readonly fences = new Set<Fence>();
  /** Bumped by each committed batch. */
  private epoch = 0;
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  /** @param maxBytes the memory bound of the cache layer (bytes); overlays are bounded by backpressure. */
  constructor(readonly maxBytes: number) {}

  /**
   * The value of latin1 key `k` as ingest must see it: a Buffer, null when known absent,
   * undefined when neither an in-flight write nor the cache knows it (read RocksDB).
   */
  get(k: string): Buffer | null | undefined {
    for (let i = this.overlays.length - 1; i >= 0; i--) {
      const v = this.overlays[i].ops.get(k);
      if (v !== undefined) return v;
    }
    const e = this.map.get(k);
    if (e === undefined || (this.retiring.length && this.retired(k, e))) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    return e.v;
  }

  /** Whether cached entry `e` of `k` predates a retiring batch that wrote `k` (then it is dropped). */
  private retired(k: string, e: Entry): boolean {
    for (const r of this.retiring)
      if (e.epoch < r.epoch && r.ops.has(k)) {
        this.map.delete(k);
        this.bytes -= e.size;
        return true;
      }
    return false;
  }

  /**
   * Records a value read from RocksDB (null: absent). Large values are not kept. With `fence`,
   * the value was read asynchronously: it is dropped when a batch committed since the read began
   * wrote `k` (RocksDB then holds a newer value than the one read).
   */
  fill(k: string, v: Buffer | null, fence?: Fence): void {
    if (v !== null && v.length > HOT_VALUE_MAX_BYTES) return;
    if (fence) for (const m of fence.committed) if (m.has(k)) return;
    const e = this.map.get(k);
    if (e !== undefined && !(this.retiring.length && this.retired(k, e))) return;
    this.put(k, v);
  }

  /**
   * Starts an asynchronous read: until {@link unfence}, every batch committed is recorded in the
   * returned fence, so {@link fill} can refuse the values the read may have seen before it.
   */
  fence(): Fence {
    const f: Fence = { committed: [] };
    this.fences.add(f);
    return f;
  }
  /** Ends an asynchronous read started with {@link fence}. */
  unfence(f: Fence): void {
    this.fences.delete(f);
  }

  /**
   * Overlays the writes of in-flight batch `id` until {@link committed}(id). The map is kept as
   * given (the caller must not change it after). With `promote`, its small values enter the cache
   * when it is committed (live blocks: the next block reads them again).
   */
  write(id: number, ops: OpMap, promote: boolean): void {
    this.overlays.push({ id, ops, promote });
  }

  /**
   * Batch `id` is committed (RocksDB holds it): its overlay goes; small values may stay cached.
   * The cached values of its keys are now older than RocksDB: a small batch drops or replaces
   * them at once; a large one (a history segment, more than {@link RETIRE_SLICE_OPS} ops) is
   * retired in slices by {@link retireSlice}, and until then its keys' older values read as
   * absent — so no read waits for a segment's million keys to be walked in one turn.
   * @returns whether slices of retirement are left ({@link retireSlice} until it returns false).
   */
  committed(id: number): boolean {
    const i = this.overlays.findIndex((o) => o.id === id);
    if (i < 0) return this.retiring.length > 0;
    const [o] = this.overlays.splice(i, 1);
    this.epoch++;
    for (const f of this.fences) f.committed.push(o.ops);
    if (!o.promote && o.ops.size > RETIRE_SLICE_OPS) {
      this.retiring.push({ ops: o.ops, epoch: this.epoch, keys: o.ops.keys() });
      return true;
    }
    for (const [k, v] of o.ops) {
      const old = this.map.get(k);
      if (o.promote && (v === null || v.length <= HOT_VALUE_MAX_BYTES)) this.put(k, v);
      else if (old) {
        // Never keep a value older than what RocksDB now holds.
        this.map.delete(k);
        this.bytes -= old.size;
      }
    }
    return this.retiring.length > 0;
  }

  /**
   * Retires up to {@link RETIRE_SLICE_OPS} keys of the oldest retiring batch (drops their cached
   * values put before it committed). @returns whether slices are left.
   */
  retireSlice(): boolean {
    const r = this.retiring[0];
    if (!r) return false;
    for (let n = 0; n < RETIRE_SLICE_OPS; n++) {
      const next = r.keys.next();
      if (next.done) {
        this.retiring.shift();
        return this.retiring.length > 0;
      }
      const e = this.map.get(next.value);
      if (e !== undefined && e.epoch < r.epoch) {
        this.map.delete(next.value);
        this.bytes -= e.size;
      }
    }
    return true;
  }

  /**
   * Keys (latin1) present in an overlay or the cache with a value, in [lo, hi) — latin1 strings
   * compare like the key bytes. For wipes, which must also delete rows of writes in flight.
   */
  presentKeysIn(lo: string, hi: string | null): string[] {
    const out = new Set<string>();
    const inRange = (k: string) => k >= lo && (hi === null || k < hi);
    for (const [k, e] of this.map) if (e.v !== null && inRange(k)) out.add(k);
    for (const o of this.overlays) for (const [k, v] of o.ops) if (v !== null && inRange(k)) out.add(k);
    return [...out];
  }

  /** Forgets everything (a failed write: RocksDB is the truth again). */
  clear(): void {
    this.map.clear();
    this.overlays = [];
    this.retiring = [];
    this.bytes = 0;
  }

  stats(): CacheStats {
    return {
      entries: this.map.size,
      bytes: this.bytes,
      maxBytes: this.maxBytes,
      overlays: this.overlays.length,
      hits: this.hits,
      misses: this.misses,
    };
  }

  private put(k: string, v: Buffer | null): void {
    const old = this.map.get(k);
    if (old) {
      this.bytes -= old.size;
      this.map.delete(k); // re-inserted at the end: the most recently written survive eviction
    }
    const size = k.length + (v?.length ?? 0) + ENTRY_OVERHEAD;
    this.map.set(k, { v, size, epoch: this.epoch });
    this.bytes += size;
    if (this.bytes > this.maxBytes) this.evict();
  }

  /** Drops the oldest entries until the cache is at 3/4 of its bound. */
  private evict(): void {
    const target = (this.maxBytes * 3) / 4;
    for (const [k, e] of this.map) {
      if (this.bytes <= target) return;
      this.map.delete(k);
      this.bytes -= e.size;
    }
  }
}
