/**
 * The anchored view: what a request reads through. Synchronous typed get/scan over the table
 * registry, opened by the server at the head it anchors the response to and closed after the
 * reply. Reads after close throw, so a view can never leak into a later tick.
 *
 * Consistency (R1, one snapshot per response) without blocking on writes: RocksDB commits the
 * writer thread's batches atomically and publishes each with a new sequence number. A view notes
 * the sequence when it opens (and reads its anchor, the committed head, from RocksDB at that
 * instant); {@link View.consistent} tells whether the sequence is still the same. If it is, no
 * batch landed while the request read, so every read saw the same committed state — the anchor's.
 * If one landed (rare: a request takes well under a millisecond, a block commits every second or
 * so), the server drops the answer and runs the request again on a new view.
 */

import { type Prefix, prefixEnd } from '../schema/codec.js';
import type { Table } from '../schema/table.js';
import { CANON, META } from '../schema/tables/chain.js';
import type { Rocks, ScanRange } from './binding.js';
import type { BlockRef } from './refs.js';

/**
 * A key range of one table. Bounds name leading key parts (a prefix tuple):
 * `gte` keys ≥ the prefix; `gt` keys after every key starting with it; `lt` keys < the prefix;
 * `lte` keys up to and including every key starting with it; `prefix` = gte + lte of the same
 * parts. `after` resumes strictly after a raw key (a page cursor) in the walk's direction.
 */
export interface Bounds<K extends unknown[]> {
  prefix?: Prefix<K>;
  gte?: Prefix<K>;
  gt?: Prefix<K>;
  lt?: Prefix<K>;
  lte?: Prefix<K>;
  /** Raw full key (table id first) the walk resumes after (forward) or before (reverse). */
  after?: Buffer | null;
  /**
   * A page cursor's resume point: the walk resumes after (forward) or before (reverse) the key
   * made of the leading parts `under` followed by the cursor's key bytes `suffix` (what the
   * walk handed its sink as the row's resume key: the row key past those parts). A null suffix
   * starts at the beginning. Cursors carry key suffixes so no reader builds a raw key.
   */
  resume?: { under: Prefix<K>; suffix: Buffer | null };
  /**
   * Raw byte bounds inside the table (table id first): `from` inclusive, `to` exclusive. For a
   * prefix of a variable-width part (a search term), which no tuple prefix can name.
   */
  from?: Buffer;
  to?: Buffer;
  reverse?: boolean;
  /** Rows visited at most. */
  limit?: number;
}

/** A read-only, anchored, synchronous view of the store. */
export interface View {
  /** The committed head when the view was opened (null before the first block). */
  readonly head: BlockRef | null;
  /** RocksDB's sequence when the view was opened (the response cache keys on it). */
  readonly seq: number;
  /**
   * True while no write batch has been committed since the view opened: everything read so far
   * is of one state, the anchor's. A false answer means the reads may mix two states.
   */
  consistent(): boolean;
  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined;
  has<K extends unknown[], V>(t: Table<K, V>, ...key: K): boolean;
  /** Values of several keys of one table, in the given order. */
  getMany<K extends unknown[], V>(t: Table<K, V>, keys: K[]): Array<V | undefined>;
  /**
   * Visits rows in key order (or reverse) until `visit` returns false. `raw` is the row's full
   * key, for cursors; it must be copied (Buffer.from) to outlive the callback.
   */
  each<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, key: K, raw: Buffer) => boolean | undefined | void,
  ): void;
  /** Like {@link each} without decoding keys (hot walks that need only values). */
  eachValue<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, raw: Buffer) => boolean | undefined | void,
  ): void;
  /** The first row of the range (the last when `reverse`), or undefined. */
  first<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): { key: K; value: V } | undefined;
  /** Rows of the range, at most `b.limit`. */
  rows<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K> & { limit: number }): Array<{ key: K; value: V }>;
  /** Counts rows of the range, stopping at `max` (returns max when there are more). */
  count<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>, max: number): number;
  /** A named process record (JSON) from META. */
  meta<T>(name: string): T | undefined;
  /** Canonical hash at `n`, or undefined. */
  canonicalHash(n: number): `0x${string}` | undefined;
  /** Ends the view: any later read throws. */
  close(): void;
}

const later = (a: Buffer, b: Buffer) => (Buffer.compare(a, b) >= 0 ? a : b);
const earlier = (a: Buffer, b: Buffer) => (Buffer.compare(a, b) <= 0 ? a : b);

/** The raw byte range of `b` over table `t` ([lo, hi), direction and limit). */
export function rangeOf<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): ScanRange {
  const tableLo = Buffer.from([t.id]);
  let lo: Buffer = tableLo;
  let hi: Buffer = prefixEnd(tableLo);
  const pre = (p: Prefix<K>) => (t.prefix as (...k: unknown[]) => Buffer)(...(p as unknown[]));
  if (b.prefix) {
    const p = pre(b.prefix);
    lo = later(lo, p);
    hi = earlier(hi, prefixEnd(p));
  }
  if (b.gte) lo = later(lo, pre(b.gte));
  if (b.gt) lo = later(lo, prefixEnd(pre(b.gt)));
  if (b.lt) hi = earlier(hi, pre(b.lt));
  if (b.lte) hi = earlier(hi, prefixEnd(pre(b.lte)));
  if (b.from) lo = later(lo, b.from);
  if (b.to) hi = earlier(hi, b.to);
  const range: ScanRange = { gte: lo, lt: hi, reverse: b.reverse ?? false, limit: b.limit ?? -1 };
  const after = b.resume?.suffix ? Buffer.concat([pre(b.resume.under), b.resume.suffix]) : b.after;
  if (after) {
    if (b.reverse) range.lt = earlier(hi, after);
    else if (Buffer.compare(after, lo) >= 0) {
      delete range.gte;
      range.gt = after;
    }
  }
  return range;
}

/**
 * A view as a class: its methods live on the prototype, so opening one (every request does, a
 * cached answer too: the cache keys on the sequence) allocates one small object, not a closure per
 * method.
 */
class AnchoredView implements View {
  private open = true;
  constructor(
    private readonly rocks: Rocks,
    readonly seq: number,
    readonly head: BlockRef | null,
    /** What was read at this view's sequence, shared by the views of one opener (none: not shared). */
    private readonly memo: SequenceMemo | null = null,
  ) {}
  private live(): void {
    if (!this.open) throw new Error('storage view used after its request ended');
  }
  consistent(): boolean {
    return this.rocks.sequence() === this.seq;
  }
  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined {
    this.live();
    const v = this.rocks.get(t.key(...key));
    return v === undefined ? undefined : t.value.decode(v);
  }
  has<K extends unknown[], V>(t: Table<K, V>, ...key: K): boolean {
    this.live();
    return this.rocks.get(t.key(...key)) !== undefined;
  }
  getMany<K extends unknown[], V>(t: Table<K, V>, keys: K[]): Array<V | undefined> {
    this.live();
    return this.rocks
      .getMany(keys.map((k) => t.key(...k)))
      .map((v) => (v === undefined ? undefined : t.value.decode(v)));
  }
  each<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, key: K, raw: Buffer) => boolean | undefined | void,
  ): void {
    this.live();
    this.rocks.each(rangeOf(t, b), (k, v) => visit(t.value.decode(v), t.decodeKey(k), k) !== false);
  }
  eachValue<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, raw: Buffer) => boolean | undefined | void,
  ): void {
    this.live();
    this.rocks.each(rangeOf(t, b), (k, v) => visit(t.value.decode(v), k) !== false);
  }
  first<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): { key: K; value: V } | undefined {
    this.live();
    const r = this.rocks.scan({ ...rangeOf(t, b), limit: 1 });
    return r.length ? { key: t.decodeKey(r[0][0]), value: t.value.decode(r[0][1]) } : undefined;
  }
  rows<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K> & { limit: number },
  ): Array<{ key: K; value: V }> {
    this.live();
    return this.rocks
      .scan(rangeOf(t, b))
      .map(([k, v]) => ({ key: t.decodeKey(k), value: t.value.decode(v) }));
  }
  count<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>, max: number): number {
    this.live();
    let n = 0;
    this.rocks.each({ ...rangeOf(t, b), limit: max }, () => ++n < max);
    return n;
  }
  meta<T>(name: string): T | undefined {
    this.live();
    const m = this.memo;
    let v: Buffer | undefined;
    if (m?.values.has(name)) v = m.values.get(name);
    else {
      v = this.rocks.get(META.key(name));
      // Kept only when no batch landed during the read: then it is the value at `seq`.
      if (m && this.rocks.sequence() === this.seq) m.values.set(name, v);
    }
    // Decoded per call: a caller may keep or change what it gets.
    return v === undefined ? undefined : (META.value.decode(v) as T);
  }
  canonicalHash(n: number): `0x${string}` | undefined {
    this.live();
    const v = this.rocks.get(CANON.key(n));
    return v === undefined ? undefined : CANON.value.decode(v);
  }
  close(): void {
    this.open = false;
  }
}

/** Opens a view over `rocks` at its committed head (`readHead` reads it from RocksDB). */
export function openView(rocks: Rocks, readHead: () => BlockRef | null): View {
  const seq = rocks.sequence();
  return new AnchoredView(rocks, seq, readHead());
}

/**
 * Opens views over `rocks` at its committed head, reading the head from RocksDB only when a batch
 * has been committed since the last view (RocksDB's sequence moved): between blocks, every request
 * shares one read of it. A head read while a batch lands is not kept (the sequence is checked
 * again after the read); such a view is not {@link View.consistent} and its request runs again.
 * @returns a function opening one view per call.
 */
export function viewOpener(rocks: Rocks, readHead: () => BlockRef | null): () => View {
  // Every view at one sequence shares the head and the META values read at it (a projection's
  // checkpoint is read by every request of a route that requires the projection: R5).
  let memo: SequenceMemo = { seq: -1, head: null, values: new Map() };
  return () => {
    const seq = rocks.sequence();
    if (seq !== memo.seq) {
      const head = readHead();
      if (rocks.sequence() !== seq) return new AnchoredView(rocks, seq, head);
      memo = { seq, head, values: new Map() };
    }
    return new AnchoredView(rocks, seq, memo.head, memo);
  };
}

/**
 * What RocksDB held at sequence `seq`: the committed head, and META values read so far (raw;
 * undefined: absent). Replaced, never changed, when the sequence moves.
 */
interface SequenceMemo {
  readonly seq: number;
  readonly head: BlockRef | null;
  readonly values: Map<string, Buffer | undefined>;
}

/**
 * Runs `read` on a fresh view of what RocksDB holds now and closes the view however `read` ends
 * (as a request does): the one place a short-lived view is opened and released.
 * @returns what `read` returns. @throws what `read` throws.
 */
export function inView<T>(store: { view(): View }, read: (v: View) => T): T {
  const v = store.view();
  try {
    return read(v);
  } finally {
    v.close();
  }
}

/**
 * Runs `read` on fresh views (each closed after) until one saw no batch land while it read
 * ({@link View.consistent}: its reads are then of one committed state), at most `tries` times. A
 * view is not a snapshot — each read sees the latest commit — so reads that must agree with each
 * other (a block's hash and its transactions) take this on a thread where writes land meanwhile.
 * @returns what the first consistent `read` returned; undefined when a write landed during every try.
 * @throws what `read` throws.
 */
export function inConsistentView<T>(
  store: { view(): View },
  read: (v: View) => T,
  tries: number,
): T | undefined {
  for (let i = 0; i < tries; i++) {
    const v = store.view();
    try {
      const r = read(v);
      if (v.consistent()) return r;
    } finally {
      v.close();
    }
  }
  return undefined;
}
