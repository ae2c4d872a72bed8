/**
 * A page cursor's key, declared once per paginated walk, the way a table is (src/schema/table.ts):
 * its name, the routes that hand it out, the order it walks in, the anchor it keeps and its key
 * parts with their codecs. The registry is src/schema/cursors.ts; readers and routes encode and
 * decode resume keys only through it, and nothing else builds a cursor key (the unit test
 * src/schema/cursors.test.ts scans the sources for the byte primitives).
 *
 * The declared key is the `key` field of the signed envelope (src/cursor/index.ts: version, chain
 * id, route tag, order, anchor block and hash, HMAC): the envelope binds the cursor to one chain
 * (R4), one fork (R3) and one route and subject; the key says where the walk resumes.
 */
import type { KeyPart, KeyTuple } from './codec.js';
import type { Table } from './table.js';

/**
 * What a walk keeps across its pages (R2). `block`: the first page's anchor block (the request's
 * view head), carried in the envelope and read as of by every later page. `block+generation`: the
 * same, and the key carries the subject's funding generation too (a page of a later generation is
 * refused with `stale_cursor`).
 */
export type CursorAnchor = 'block' | 'block+generation';

/** The orders a walk pages in: both (the caller's `order`), or one only. */
export type CursorOrder = 'asc|desc' | 'asc' | 'desc';

/**
 * The route tag of one walk (the envelope's route field: a cursor minted under one tag is refused
 * under another), made only by a declared cursor's {@link CursorHead.tag}: page assembly
 * (src/server/page.ts) takes nothing else, so every paginated route names its declared cursor.
 */
export interface CursorTag {
  readonly cursor: CursorHead;
  /** `<route>` or `<route>:<subject…>`. */
  readonly tag: string;
}

/** The declaration every cursor shares. */
export interface CursorHead {
  /** The walk's name, unique in the registry. */
  readonly name: string;
  /**
   * The route ids whose pages hand this cursor out, or the shared route tag of routes whose
   * cursors are interchangeable (`pools.tickCoordinate`: ticks and bars).
   */
  readonly routes: readonly string[];
  readonly doc: string;
  readonly order: CursorOrder;
  readonly anchor: CursorAnchor;
  /** Names of the subject parts bound after the route id in the route tag (documentation). */
  readonly subject: readonly string[];
  /** Human-readable key layout, e.g. `rank u32`. */
  readonly layout: string;
  /**
   * The route tag of one walk: the route id and the subject parts, `:`-joined (a cursor minted for
   * one subject is refused on another). `route` must be one of {@link routes}.
   * @throws Error when `route` is not declared for this cursor.
   */
  tag(this: CursorHead, route: string, ...subject: Array<string | number>): CursorTag;
}

/** A cursor whose key is a tuple of key parts (a rank, a bucket start, a composite sort key). */
export interface PageCursor<K extends unknown[]> extends CursorHead {
  /** The key bytes of `k`, parts in order (big-endian, fixed width where the part is). */
  encode(...k: K): Buffer;
  /**
   * The key tuple of `b`.
   * @throws Error when `b` is not a key of this cursor (wrong length).
   */
  decode(b: Buffer): K;
  /** The bytes of the leading `n` parts of key `b` (a resume point of a walk keyed by those parts). */
  head(b: Buffer, n: number): Buffer;
  /**
   * The leading `n` parts of `b`, where `b` holds at least those (a sort key the cursor extends).
   * @throws Error when `b` is shorter.
   */
  decodeHead(b: Buffer, n: number): Partial<K>;
}

/**
 * A cursor whose key is a table key's tail: the parts after the walk's leading `under` parts (the
 * subject every row of the walk shares). Storage resumes such a walk from `{under, suffix}`.
 */
export interface TableCursor<K extends unknown[], V> extends CursorHead {
  readonly table: Table<K, V>;
  /** Leading key parts every row of the walk shares (not in the cursor). */
  readonly under: number;
  /** The resume key of the row whose full key (table id first) is `raw`: a copy of its tail. */
  tail(raw: Buffer): Buffer;
}

/** Any declared cursor (for the registry's list). */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of cursors
export type AnyCursor = PageCursor<any> | TableCursor<any, any>;

/** What a cursor declaration states beside its key. */
export interface CursorSpec {
  name: string;
  routes: string[];
  doc: string;
  order?: CursorOrder;
  anchor?: CursorAnchor;
  subject?: string[];
}

function headOf(spec: CursorSpec, layout: string): CursorHead {
  return {
    name: spec.name,
    routes: spec.routes,
    doc: spec.doc,
    order: spec.order ?? 'asc|desc',
    anchor: spec.anchor ?? 'block',
    subject: spec.subject ?? [],
    layout,
    // `this` is the declared cursor the method is called on (the head is spread into it).
    tag(this: CursorHead, route, ...s) {
      if (!spec.routes.includes(route)) throw new Error(`cursor ${spec.name}: route ${route} not declared`);
      return { cursor: this, tag: [route, ...s].join(':') };
    },
  };
}

/** Declares a cursor keyed by `key` parts (named by `keyNames`), written in order. */
// biome-ignore lint/suspicious/noExplicitAny: key parts of any value type (as defineTable)
export function defineCursor<const P extends readonly KeyPart<any>[]>(
  spec: CursorSpec & { key: P; keyNames: string[] },
): PageCursor<KeyTuple<P>> {
  const parts = spec.key as readonly KeyPart<unknown>[];
  const layout = parts.map((p, i) => `${spec.keyNames[i]} ${p.width === null ? 'var' : `${p.width}B`}`);
  const read = (b: Buffer, n: number) => {
    const out = new Array(n);
    let off = 0;
    for (let i = 0; i < n; i++) {
      const w = parts[i].width;
      if (w !== null && off + w > b.length) throw new Error(`cursor ${spec.name}: key too short`);
      [out[i], off] = parts[i].read(b, off, b.length);
    }
    return { out, off };
  };
  return {
    ...headOf(spec, layout.join(', ')),
    encode(...k) {
      let size = 0;
      for (let i = 0; i < parts.length; i++) size += parts[i].size(k[i]);
      const b = Buffer.alloc(size);
      let off = 0;
      for (let i = 0; i < parts.length; i++) off = parts[i].write(b, off, k[i]);
      return b;
    },
    decode(b) {
      const { out, off } = read(b, parts.length);
      if (off !== b.length) throw new Error(`cursor ${spec.name}: key of ${b.length} bytes, read ${off}`);
      return out as KeyTuple<P>;
    },
    head: (b, n) => Buffer.from(b.subarray(0, read(b, n).off)),
    decodeHead: (b, n) => read(b, n).out as Partial<KeyTuple<P>>,
  };
}

/** Declares a cursor whose key is the tail of `table`'s key after its first `under` parts. */
export function tableCursor<K extends unknown[], V>(
  spec: CursorSpec & { table: Table<K, V>; under: number },
): TableCursor<K, V> {
  const names = spec.table.layout.split(', ').slice(spec.under);
  return {
    ...headOf(spec, `${spec.table.name} key after ${spec.under} part(s): ${names.join(', ')}`),
    table: spec.table,
    under: spec.under,
    tail: (raw) => spec.table.keyTail(raw, spec.under),
  };
}
