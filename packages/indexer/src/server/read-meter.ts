/**
 * Rows read per request: a {@link View} wrapper that counts every row a request reads through its
 * views (each row a walk visits, skipped ones included; one per point read; one per key of a
 * multi-get). The server observes the count per route (`indexer_http_request_rows_read`), so the
 * work one request can cost is measured, not guessed (SECURITY.md, "Every request bounded").
 */
import type { Bounds, Table, View } from '../storage/index.js';

/** The rows one request has read so far (over every run and view of it). */
export interface ReadMeter {
  rows: number;
}

/** `view`, counting each row read into `meter`. Same semantics otherwise (close, consistency, head). */
export function meteredView(view: View, meter: ReadMeter): View {
  return new MeteredView(view, meter);
}

/**
 * The counting wrapper as a class: every request opens one, so its methods live on the prototype
 * (one small object per request, not a closure per method).
 */
class MeteredView implements View {
  readonly head: View['head'];
  readonly seq: number;
  constructor(
    // Not named `view`: storage/headers.ts tells a store from a view by a `view` member.
    private readonly inner: View,
    private readonly meter: ReadMeter,
  ) {
    this.head = inner.head;
    this.seq = inner.seq;
  }
  consistent(): boolean {
    return this.inner.consistent();
  }
  get<K extends unknown[], V>(t: Table<K, V>, ...key: K): V | undefined {
    this.meter.rows++;
    return this.inner.get(t, ...key);
  }
  has<K extends unknown[], V>(t: Table<K, V>, ...key: K): boolean {
    this.meter.rows++;
    return this.inner.has(t, ...key);
  }
  getMany<K extends unknown[], V>(t: Table<K, V>, keys: K[]): Array<V | undefined> {
    this.meter.rows += keys.length;
    return this.inner.getMany(t, keys);
  }
  each<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, key: K, raw: Buffer) => boolean | undefined | void,
  ): void {
    const meter = this.meter;
    this.inner.each(t, b, (v, k, raw) => {
      meter.rows++;
      return visit(v, k, raw);
    });
  }
  eachValue<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K>,
    visit: (value: V, raw: Buffer) => boolean | undefined | void,
  ): void {
    const meter = this.meter;
    this.inner.eachValue(t, b, (v, raw) => {
      meter.rows++;
      return visit(v, raw);
    });
  }
  first<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>): { key: K; value: V } | undefined {
    this.meter.rows++;
    return this.inner.first(t, b);
  }
  rows<K extends unknown[], V>(
    t: Table<K, V>,
    b: Bounds<K> & { limit: number },
  ): Array<{ key: K; value: V }> {
    const out = this.inner.rows(t, b);
    this.meter.rows += Math.max(1, out.length);
    return out;
  }
  count<K extends unknown[], V>(t: Table<K, V>, b: Bounds<K>, max: number): number {
    const n = this.inner.count(t, b, max);
    this.meter.rows += Math.max(1, n);
    return n;
  }
  meta<T>(name: string): T | undefined {
    this.meter.rows++;
    return this.inner.meta<T>(name);
  }
  canonicalHash(n: number): `0x${string}` | undefined {
    this.meter.rows++;
    return this.inner.canonicalHash(n);
  }
  close(): void {
    this.inner.close();
  }
}
