/**
 * The writes of one block (or of a history segment) and what ingest sees while it builds them:
 * {@link BlockBatch} records the prior value of every key it touches (the undo), {@link batchView}
 * reads through it.
 */
import type { PartBytes } from '../schema/delta.js';
import type { KeySink } from '../schema/stateless.js';
import type { Table } from '../schema/table.js';
import { CANON, META } from '../schema/tables/chain.js';
import type { Rocks, WriteOp } from './binding.js';
import { HOT_VALUE_MAX_BYTES, type OpMap, type StateCache } from './cache.js';
import { EncodedRows } from './encoded-rows.js';
import type { BlockRef } from './refs.js';
import type { UndoEntry } from './undo.js';
import { type Bounds, openView, rangeOf, type View } from './view.js';
import { eachOp } from './writer.js';

/** The error of a read, through a batch, of a table ingest only inserts (Table.insertOnly). */
const insertOnlyRead = (t: { name: string }) =>
  new Error(`${t.name} is insert-only: ingest never reads it through a batch (walk committed rows)`);

/**
 * Writes of one block — or, in history mode, of a segment of many final blocks. Typed methods name
 * a table of the registry (src/storage/tables); `put` and `del` record the key's prior value for
 * rollback; `insert` is for keys that are guaranteed absent before this block (block-keyed rows
 * above the checkpoint), which saves the read; `append` writes without undo (append-only logs that
 * survive a rollback). Reads (`get`) see this batch's own pending writes first, then the store's
 * state cache (values of writes still in flight on the writer thread included), then RocksDB;
 * range walks (`each`, `first`) see committed RocksDB rows only, so a projection never walks rows
 * that a pending or in-flight write may hold (it keeps a point row for what it needs instead).
 *
 * Writes collapse per key: the batch holds the latest value of each key it wrote, so a balance a
 * segment changes in 500 blocks is written once. A history segment (`undo: false`) records no
 * undo and reads no prior value: its blocks are final and are never rolled back; its rows of
 * insert-only tables are encoded at once into parts (encoded-rows.ts), not kept in the key map.
 */
export class BlockBatch {
  /** Latest pending value per key (latin1 of the key bytes; null: a delete). */
  private readonly pending: OpMap = new Map<string, Buffer | null>();
  /** Rows encoded elsewhere (a decode worker's), written with the batch before its own ops. */
  private readonly encoded: ArrayBuffer[] = [];
  /** A batch without undo: its rows of insert-only tables, encoded as they come (encoded-rows.ts). */
  private readonly inserted: EncodedRows | null;
  /**
   * Undo entries of the block being built: the first prior value of each key it wrote (null: a
   * history segment, which keeps no undo). See {@link endBlock} for a batch of several blocks.
   */
  get undo(): UndoEntry[] | null {
    return this.blockUndo;
  }
  private blockUndo: UndoEntry[] | null;
  /** Keys with an undo entry in the block being built (null: a batch without undo). */
  private readonly touched: Set<string> | null;
  /** Committed values read through this batch that the state cache does not keep (large ones). */
  private readonly large = new Map<string, Buffer>();
  /**
   * Keys this batch wrote that the store did not hold before it: deleting one drops the pending
   * write instead of writing a delete (a history segment re-keys a holder row on every balance
   * change; without this, most of its holder-index ops were deletes of rows it had inserted itself,
   * each a RocksDB tombstone that walks then skip until compaction).
   */
  private readonly fresh = new Set<string>();
  private pendingBytes = 0;
  /** Parts the decode worker is still encoding (see {@link settleLate}). */
  private late: Array<Promise<ArrayBuffer>> = [];
  /** Blocks ended in this batch with undo so far ({@link endBlock}; the sealed last one included once sealed). */
  blocksEnded = 0;

  constructor(
    /** The store underneath, for range reads of committed state. */
    readonly rocks: Rocks,
    private readonly cache: StateCache,
    opts: { undo?: boolean } = {},
  ) {
    this.blockUndo = opts.undo === false ? null : [];
    this.touched = this.blockUndo ? new Set() : null;
    this.inserted = this.blockUndo ? null : new EncodedRows();
  }

  /**
   * Ends the block built so far in a batch that keeps undo and holds several blocks (the live
   * driver catching up): returns that block's undo entries, and the next block's entries record
   * each key's value as this batch then holds it (the value at the end of the block just ended),
   * so each block's record rolls back that block alone.
   * @throws Error on a batch without undo (a history segment), or with late parts not settled.
   */
  endBlock(): UndoEntry[] {
    const u = this.blockUndo;
    if (!u || !this.touched) throw new Error('endBlock on a batch without undo');
    if (this.late.length) throw new Error('endBlock with late parts not settled (settleLate)');
    this.blocksEnded++;
    this.blockUndo = [];
    this.touched.clear();
    return u;
  }

  /**
   * Whether latin1 key `k` has no undo entry in the block being built yet; it is then counted as
   * having one (the caller records it). Only for a batch with undo.
   */
  private firstInBlock(k: string): boolean {
    const touched = this.touched!;
    if (touched.has(k)) return false;
    touched.add(k);
    return true;
  }

  /**
   * Rows already encoded, written with the batch before its own ops (no key is in both): the
   * decode worker's parts, then this batch's rows of insert-only tables (finished now: rows
   * inserted after this call go into a new chunk).
   */
  get parts(): ArrayBuffer[] {
    if (this.late.length) throw new Error('a batch with late parts not settled is written (settleLate)');
    const mine = this.inserted?.parts();
    return mine?.length ? [...this.encoded, ...mine] : this.encoded;
  }
  /** Rows of insert-only tables written into encoded parts (a batch without undo). */
  get encodedRows(): number {
    return this.inserted?.rows ?? 0;
  }
  /** The batch's writes, one op per key (the latest value), in first-write order. */
  get ops(): WriteOp[] {
    return [...this.pending].map(([k, value]) => ({ key: Buffer.from(k, 'latin1'), value }));
  }
  /** The batch's pending writes as the store hands them to the writer (do not change). */
  get opMap(): OpMap {
    return this.pending;
  }
  /**
   * Adds rows already encoded ({@link encodeOps} layout, written before this batch's own ops),
   * with `bytes` of keys and values. Rows nobody reads back while the batch is built: a decode
   * worker's chain records and stateless projection rows.
   */
  addPart(part: PartBytes): void {
    if (!(part instanceof ArrayBuffer)) {
      // Still being encoded by the decode worker: added by settleLate, before the block ends.
      this.late.push(part.late);
      return;
    }
    this.encoded.push(part);
    this.pendingBytes += part.byteLength;
    const undo = this.blockUndo;
    if (!undo) return;
    // A live block's undo: an inserted row is deleted; a put restores its prior value.
    const puts: Buffer[] = [];
    eachOp(part, (key, _value, insert) => {
      if (insert) undo.push({ key: Buffer.from(key), prior: null });
      else puts.push(Buffer.from(key));
    });
    this.prefetchRaw(puts);
    for (const key of puts) undo.push({ key, prior: this.getRaw(key) ?? null });
  }
  /** Late parts not yet added: the block may not end, nor the batch commit, while any is. */
  get latePending(): number {
    return this.late.length;
  }
  /**
   * Waits for the late parts added since the last call and adds them (their undo entries go to
   * the block being built, so call it before that block ends). Resolves at once when none.
   * @throws the decode task's error when it failed after handing the delta over.
   */
  async settleLate(): Promise<void> {
    if (!this.late.length) return;
    const late = this.late;
    this.late = [];
    for (const part of await Promise.all(late)) this.addPart(part);
  }
  /** Approximate bytes of the pending writes (keys and values). */
  get bytes(): number {
    return this.pendingBytes + (this.inserted?.bytes ?? 0);
  }
  /** Keys written. */
  get size(): number {
    return this.pending.size;
  }

  // The typed methods name a row by its latin1 key (Table.keyId): no Buffer per key unless
  // RocksDB is read (a miss) or a live block's undo keeps the key.
  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined {
    if (t.insertOnly) throw insertOnlyRead(t);
    const v = this.read(t.keyId(...key));
    return v === undefined ? undefined : t.value.decode(v);
  }
  has<K extends unknown[], V>(t: Table<K, V>, ...key: K): boolean {
    if (t.insertOnly) throw insertOnlyRead(t);
    return this.read(t.keyId(...key)) !== undefined;
  }
  put<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void {
    this.putId(t.keyId(...key), t.value.encode(value));
  }
  insert<K extends unknown[], V>(t: Table<K, V>, key: K, value: V): void {
    if (t.insertOnly && this.inserted) this.inserted.insert(t, key, t.value.encode(value));
    else this.insertId(t.keyId(...key), t.value.encode(value));
  }
  del<K extends unknown[], V>(t: Table<K, V>, ...key: K): void {
    this.delId(t.keyId(...key));
  }
  /** Writes without an undo entry (append-only logs; see {@link raw}). */
  append<K extends unknown[], V>(t: Table<K, V>, key: K, value: V | null): void {
    this.raw(t.key(...key), value === null ? null : t.value.encode(value));
  }
  /** Walks committed rows (this batch's and in-flight writes are not seen). */
  each<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, key: K, raw: Buffer) => boolean | undefined | void,
  ): void {
    this.rocks.each(rangeOf(t, b), (k, v) => visit(t.value.decode(v), t.decodeKey(k), k) !== false);
  }
  /** The first committed row of a range (the last when `reverse`). */
  first<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): { key: K; value: V } | undefined {
    const r = this.rocks.scan({ ...rangeOf(t, b), limit: 1 });
    return r.length ? { key: t.decodeKey(r[0][0]), value: t.value.decode(r[0][1]) } : undefined;
  }

  /**
   * Reads the values of `keys` that neither this batch nor the state cache holds, in one RocksDB
   * multi-get, so later `get`/`put`/`del` of these keys read nothing more. Purely an
   * optimisation: results are the same without it.
   */
  prefetchRaw(keys: readonly Buffer[]): void {
    const want: Buffer[] = [];
    const ids: string[] = [];
    const asked = new Set<string>();
    for (const key of keys) {
      const k = key.toString('latin1');
      if (this.pending.has(k) || asked.has(k) || this.large.has(k) || this.cache.get(k) !== undefined)
        continue;
      asked.add(k);
      want.push(key);
      ids.push(k);
    }
    if (!want.length) return;
    const got = this.rocks.getMany(want);
    for (let i = 0; i < ids.length; i++) this.remember(ids[i], got[i] ?? null);
  }
  /** {@link prefetchRaw} of the rows `fill` names, of any tables, in one multi-get. */
  prefetchKeys(fill: (add: KeySink) => void): void {
    const keys: Buffer[] = [];
    fill((t, key) => keys.push((t.key as (...k: unknown[]) => Buffer)(...key)));
    this.prefetchRaw(keys);
  }
  /** {@link prefetchRaw} of rows of table `t` by key. */
  prefetch<K extends unknown[], V>(t: Table<K, V>, keys: readonly K[]): void {
    this.prefetchRaw(keys.map((k) => t.key(...k)));
  }

  insertRaw(key: Buffer, value: Buffer): void {
    this.insertId(key.toString('latin1'), value);
  }
  putRaw(key: Buffer, value: Buffer): void {
    this.putId(key.toString('latin1'), value);
  }
  private insertId(k: string, value: Buffer): void {
    const prior = this.pending.get(k);
    // Absent before this block, and untouched by this batch so far: absent before the batch.
    if (prior === undefined) this.fresh.add(k);
    // The block's first write of the key records what the batch held (an earlier block of the
    // batch may have deleted it); a key this block created and deleted already has its entry.
    if (this.blockUndo && this.firstInBlock(k))
      this.blockUndo.push({ key: Buffer.from(k, 'latin1'), prior: prior ?? null });
    this.set(k, value);
  }
  private putId(k: string, value: Buffer): void {
    // A live block reads the prior value for its undo (and learns whether the row is new); a
    // history segment reads nothing, so only its inserts are known to be new.
    if (this.blockUndo && this.firstInBlock(k)) {
      const inBatch = this.pending.has(k);
      const prior = this.read(k) ?? null;
      if (prior === null && !inBatch) this.fresh.add(k);
      this.blockUndo.push({ key: Buffer.from(k, 'latin1'), prior });
    }
    this.set(k, value);
  }
  /**
   * Writes without an undo entry: for append-only logs that must survive a rollback (stream
   * frames keep their sequence; a reorg is announced by new frames, never by deleting old ones).
   */
  raw(key: Buffer, value: Buffer | null): void {
    this.set(key.toString('latin1'), value);
  }
  delRaw(key: Buffer): void {
    this.delId(key.toString('latin1'));
  }
  private delId(k: string): void {
    const mine = this.pending.get(k);
    if (mine !== undefined) {
      if (mine === null) return;
      // Written by an earlier block of this batch: this block's undo restores that value.
      if (this.blockUndo && this.firstInBlock(k))
        this.blockUndo.push({ key: Buffer.from(k, 'latin1'), prior: mine });
      // A row this batch created: nothing to delete in the store (its undo entry, if any, is the
      // first write's: prior null).
      if (this.fresh.has(k)) this.unset(k, mine);
      else this.set(k, null);
      return;
    }
    if (this.fresh.has(k)) return; // created and deleted by this batch: never in the store
    if (!this.blockUndo) {
      // History: a blind delete (no prior read); absent keys the cache knows of are skipped.
      if (this.cache.get(k) !== null) this.set(k, null);
      return;
    }
    const prior = this.read(k) ?? null;
    if (prior === null) return;
    if (this.firstInBlock(k)) this.blockUndo.push({ key: Buffer.from(k, 'latin1'), prior });
    this.set(k, null);
  }
  /** Reads through this batch's own pending writes first, then the state cache and the store. */
  getRaw(key: Buffer): Buffer | undefined {
    return this.read(key.toString('latin1'), key);
  }
  /** Records the pending write of latin1 key `k` (its length is the key's byte count). */
  private set(k: string, value: Buffer | null): void {
    const old = this.pending.get(k);
    if (old !== undefined) this.pendingBytes -= old?.length ?? 0;
    else this.pendingBytes += k.length;
    this.pendingBytes += value?.length ?? 0;
    this.pending.set(k, value);
  }
  /** Drops the pending write of `k` (a row this batch created and now deletes). */
  private unset(k: string, value: Buffer): void {
    this.pendingBytes -= k.length + value.length;
    this.pending.delete(k);
  }
  private remember(k: string, v: Buffer | null): void {
    if (v !== null && v.length > HOT_VALUE_MAX_BYTES) this.large.set(k, v);
    else this.cache.fill(k, v);
  }
  /** Reads latin1 key `k` (`key`: its bytes, when the caller has them; made here on a miss). */
  private read(k: string, key?: Buffer): Buffer | undefined {
    const p = this.pending.get(k);
    if (p !== undefined) return p ?? undefined;
    const c = this.cache.get(k);
    if (c !== undefined) return c ?? undefined;
    const l = this.large.get(k);
    if (l !== undefined) return l;
    const got = this.rocks.get(key ?? Buffer.from(k, 'latin1'));
    this.remember(k, got ?? null);
    return got;
  }
}

/**
 * A {@link View} of what ingest sees while it builds `batch`: point reads through the batch (its
 * pending writes, the state cache with in-flight writes, RocksDB), walks over committed rows only.
 * For projections' `prepare` (first-sight checks before a block is applied). Never closes.
 */
export function batchView(batch: BlockBatch, head: BlockRef | null): View {
  const committed = openView(batch.rocks, () => head);
  // Walks go to the committed view (its methods live on its class: delegated, not spread).
  return {
    head: committed.head,
    seq: committed.seq,
    each: (t, b, visit) => committed.each(t, b, visit),
    eachValue: (t, b, visit) => committed.eachValue(t, b, visit),
    first: (t, b) => committed.first(t, b),
    rows: (t, b) => committed.rows(t, b),
    count: (t, b, max) => committed.count(t, b, max),
    get: (t, ...key) => batch.get(t, ...key),
    has: (t, ...key) => batch.has(t, ...key),
    getMany: (t, keys) => keys.map((k) => batch.get(t, ...k)),
    meta: <T>(name: string) => batch.get(META, name) as T | undefined,
    canonicalHash: (n) => batch.get(CANON, n),
    consistent: () => true,
    close: () => undefined,
  };
}
