/**
 * A table: one-byte id, name, owner, key layout and value codec, declared once in
 * src/schema/tables/ (the registry). Everything that reads or writes RocksDB names a table;
 * nothing builds keys by hand outside this module.
 */
import type { KeyPart, KeyTuple, Prefix, ValueCodec } from './codec.js';

/** A start-up check of stored state (docs/CONTRIBUTING.md habit 6): null when it holds, else what is broken. */
export interface Invariant {
  name: string;
  /** The invariant in words (it is also the comment beside the table). */
  doc: string;
  check(r: InvariantReader): string | null;
}

/** What an invariant may read: typed gets and bounded scans of committed state, and the checkpoint. */
export interface InvariantReader {
  head(): { number: number; hash: `0x${string}` } | null;
  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined;
  /** Visits rows of `t` starting with `prefix` in key order until `visit` returns false. */
  each<K extends unknown[], V>(
    t: Table<K, V>,
    prefix: Prefix<K>,
    visit: (value: V, key: K) => boolean | undefined,
  ): void;
}

/**
 * What a table's rows are:
 * - `block`: written in block batches (with undo), part of the projection digest;
 * - `observation`: node observations written outside block batches (reconciliation verdicts);
 * - `process`: the process's own bookkeeping (meta, undo, gaps, stream logs), not chain state.
 */
export type TableKind = 'block' | 'observation' | 'process';

export interface Table<K extends unknown[], V> {
  readonly id: number;
  /** `<owner>.<name>`, unique. */
  readonly name: string;
  /** The projection or subsystem that writes it (`chain`, `tokens`, `markets`, …). */
  readonly owner: string;
  readonly doc: string;
  readonly kind: TableKind;
  readonly value: ValueCodec<V>;
  readonly invariants: readonly Invariant[];
  /** Byte width of every key when all parts are fixed width (id included), else null. */
  readonly keyWidth: number | null;
  /** Human-readable key layout, e.g. `address, u64`. */
  readonly layout: string;
  /**
   * Ingest only inserts rows of this table — block-keyed, each written once, never rewritten nor
   * deleted by a build — and never reads them through a batch (walks of committed rows only): a
   * history segment writes them straight into an encoded part (BlockBatch.insert), not a key map.
   */
  readonly insertOnly: boolean;
  /** The full key bytes (table id first). */
  key(...k: K): Buffer;
  /** Byte length of full key `k` (table id included). */
  keySize(k: K): number;
  /** Writes full key `k` into `b` at `off`; returns the offset after it. */
  keyInto(b: Buffer, off: number, k: K): number;
  /**
   * The full key as a latin1 string (one char a byte), built without a Buffer of its own: how
   * ingest's batches and state cache name a row (a Buffer is made only for RocksDB, on a miss).
   */
  keyId(...k: K): string;
  /** The bytes of a leading sub-tuple (a range prefix). */
  prefix(...k: Prefix<K>): Buffer;
  /** Decodes full key bytes (table id first) into the key tuple. */
  decodeKey(b: Buffer): K;
  /**
   * A copy of the bytes of full key `b` (table id first) after the id and its first `under` parts:
   * a page cursor's resume key (src/schema/cursor.ts `tableCursor`).
   */
  keyTail(b: Buffer, under: number): Buffer;
}

/** Every table ever declared, by id (the registry test checks uniqueness across the whole list). */
export interface TableSpec<P extends readonly KeyPart<any>[], V> {
  id: number;
  owner: string;
  name: string;
  doc: string;
  key: P;
  value: ValueCodec<V>;
  kind?: TableKind;
  invariants?: Invariant[];
  /** Names of the key parts, for the layout string (defaults to the part kinds). */
  keyNames?: string[];
  /** See {@link Table.insertOnly} (default false). */
  insertOnly?: boolean;
}

const partName = (p: KeyPart<unknown>) => (p.width === null ? 'var' : `${p.width}B`);

/** Where {@link Table.keyId} encodes a key before reading it out as latin1 (one per thread, grown on demand). */
let scratch = Buffer.allocUnsafe(1024);

/** Declares a table. Key parts are written in order after the one-byte id. */
export function defineTable<const P extends readonly KeyPart<any>[], V>(
  spec: TableSpec<P, V>,
): Table<KeyTuple<P>, V> {
  const parts = spec.key as readonly KeyPart<unknown>[];
  const n = parts.length;
  const allFixed = parts.every((p) => p.width !== null);
  const keyWidth = allFixed ? 1 + parts.reduce((a, p) => a + (p.width as number), 0) : null;
  const sizeOf = (k: readonly unknown[]): number => {
    if (allFixed && k.length === n) return keyWidth as number;
    let size = 1;
    for (let i = 0; i < k.length; i++) size += parts[i].size(k[i]);
    return size;
  };
  const writeInto = (b: Buffer, k: readonly unknown[], at = 0): number => {
    b[at] = spec.id;
    let off = at + 1;
    for (let i = 0; i < k.length; i++) off = parts[i].write(b, off, k[i]);
    return off;
  };
  const encode = (k: readonly unknown[]): Buffer => {
    const b = Buffer.allocUnsafe(sizeOf(k));
    writeInto(b, k);
    return b;
  };
  const encodeId = (k: readonly unknown[]): string => {
    const size = sizeOf(k);
    if (size > scratch.length) scratch = Buffer.allocUnsafe(2 * size);
    writeInto(scratch, k);
    return scratch.toString('latin1', 0, size);
  };
  return {
    id: spec.id,
    name: `${spec.owner}.${spec.name}`,
    owner: spec.owner,
    doc: spec.doc,
    kind: spec.kind ?? 'block',
    insertOnly: spec.insertOnly ?? false,
    value: spec.value,
    invariants: spec.invariants ?? [],
    keyWidth,
    layout: (spec.keyNames ?? parts.map(partName)).join(', '),
    key: (...k) => encode(k),
    keySize: (k) => sizeOf(k),
    keyInto: (b, off, k) => writeInto(b, k, off),
    keyId: (...k) => encodeId(k),
    prefix: (...k) => encode(k as unknown[]),
    decodeKey(b) {
      const out = new Array(n);
      let off = 1;
      for (let i = 0; i < n; i++) [out[i], off] = parts[i].read(b, off, b.length);
      return out as KeyTuple<P>;
    },
    keyTail(b, under) {
      let off = 1;
      for (let i = 0; i < under; i++) off = parts[i].read(b, off, b.length)[1];
      return Buffer.from(b.subarray(off));
    },
  };
}

/** Any table (for registries and generic code). */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tables
export type AnyTable = Table<any, any>;

/** The optional parts of a {@link TableSpec}: its kind, start-up invariants and insert-only flag. */
export type TableExtras = Pick<
  TableSpec<readonly KeyPart<any>[], unknown>,
  'kind' | 'invariants' | 'insertOnly'
>;

/**
 * The registry's shorthand for {@link defineTable}: `tableDeclarer(owner)` gives a declarer taking
 * `(id, name, key parts, key part names, value codec, doc, extras?)` in that order, so that one
 * table is one line where it fits. It throws nothing; the table is the one `defineTable` builds.
 */
export function tableDeclarer(owner: string) {
  return <const P extends readonly KeyPart<any>[], V>(
    id: number,
    name: string,
    key: P,
    keyNames: string[] | undefined,
    value: ValueCodec<V>,
    doc: string,
    extras: TableExtras = {},
  ): Table<KeyTuple<P>, V> => defineTable({ id, owner, name, doc, key, keyNames, value, ...extras });
}
