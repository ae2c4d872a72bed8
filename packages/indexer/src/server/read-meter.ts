/**
 * Rows read per request: a {@link View} wrapper that counts every row a request reads through its
 * views (each row a walk visits, skipped ones included; one per point read; one per key of a
 * multi-get). The server observes the count per route (`indexer_http_request_rows_read`), so the
 * work one request can cost is measured, not guessed (SECURITY.md, "Every request bounded").
 */
import type { View } from '../storage/index.js';

/** The rows one request has read so far (over every run and view of it). */
export interface ReadMeter {
  rows: number;
}

/** `view`, counting each row read into `meter`. Same semantics otherwise (close, consistency, head). */
export function meteredView(view: View, meter: ReadMeter): View {
  return {
    head: view.head,
    seq: view.seq,
    consistent: () => view.consistent(),
    get(t, ...key) {
      meter.rows++;
      return view.get(t, ...key);
    },
    has(t, ...key) {
      meter.rows++;
      return view.has(t, ...key);
    },
    getMany(t, keys) {
      meter.rows += keys.length;
      return view.getMany(t, keys);
    },
    each(t, b, visit) {
      view.each(t, b, (v, k, raw) => {
        meter.rows++;
        return visit(v, k, raw);
      });
    },
    eachValue(t, b, visit) {
      view.eachValue(t, b, (v, raw) => {
        meter.rows++;
        return visit(v, raw);
      });
    },
    first(t, b) {
      meter.rows++;
      return view.first(t, b);
    },
    rows(t, b) {
      const out = view.rows(t, b);
      meter.rows += Math.max(1, out.length);
      return out;
    },
    count(t, b, max) {
      const n = view.count(t, b, max);
      meter.rows += Math.max(1, n);
      return n;
    },
    meta(name) {
      meter.rows++;
      return view.meta(name);
    },
    canonicalHash(n) {
      meter.rows++;
      return view.canonicalHash(n);
    },
    close: () => view.close(),
  };
}
