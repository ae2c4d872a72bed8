/**
 * The read walks of the binding reuse unbounded iterators between writes and check bounds in
 * JS: every range shape (gte/gt/lt/lte, reverse, limit) must return exactly the rows a sorted
 * copy of the data holds, and a write must be seen by the next walk (pooled iterators see the
 * database as of their creation, so a write empties the pool).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRocks, type Rocks, type ScanRange, StoreClosedError } from './binding.js';

let dir: string;
let rocks: Rocks;
beforeAll(async () => {
  dir = mkdtempSync(join(os.tmpdir(), 'binding-test-'));
  rocks = await openRocks(dir);
});
afterAll(async () => {
  await rocks.close();
  rmSync(dir, { recursive: true, force: true });
});

const key = fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => Buffer.from(a));
const hex = (b: Buffer) => b.toString('hex');

/** The rows of `range` over `data` (sorted by key bytes), as the contract of Rocks.scan says. */
function expected(data: Map<string, Buffer>, r: ScanRange): string[] {
  let keys = [...data.keys()].map((k) => Buffer.from(k, 'hex')).sort(Buffer.compare);
  keys = keys.filter(
    (k) =>
      (!r.gte || Buffer.compare(k, r.gte) >= 0) &&
      (!r.gt || Buffer.compare(k, r.gt) > 0) &&
      (!r.lt || Buffer.compare(k, r.lt) < 0) &&
      (!r.lte || Buffer.compare(k, r.lte) <= 0),
  );
  if (r.reverse) keys.reverse();
  if (r.limit !== undefined && r.limit >= 0) keys = keys.slice(0, r.limit);
  return keys.map(hex);
}

describe('Rocks read walks (pooled iterators)', () => {
  it('return exactly the rows of every range shape, and see every write at once', async () => {
    const data = new Map<string, Buffer>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(key, fc.boolean()), { maxLength: 12 }),
        fc.array(
          fc.record(
            {
              gte: key,
              gt: key,
              lt: key,
              lte: key,
              reverse: fc.boolean(),
              limit: fc.integer({ min: -1, max: 5 }),
            },
            { requiredKeys: ['reverse'] },
          ),
          { minLength: 1, maxLength: 6 },
        ),
        async (writes, ranges) => {
          rocks.write(writes.map(([k, del]) => ({ key: k, value: del ? null : Buffer.from(hex(k)) })));
          for (const [k, del] of writes) {
            if (del) data.delete(hex(k));
            else data.set(hex(k), k);
          }
          for (const r of ranges) {
            const got = rocks.scan(r).map(([k, v]) => {
              expect(v.toString()).toBe(hex(k));
              return hex(k);
            });
            expect(got, JSON.stringify(r)).toEqual(expected(data, r));
            // A walk nested in another's visit reads on its own iterator.
            const outer: string[] = [];
            rocks.each(r, (k) => {
              outer.push(hex(k));
              expect(rocks.scan({ ...r, limit: 2 }).map(([x]) => hex(x))).toEqual(
                expected(data, { ...r, limit: 2 }),
              );
              return true;
            });
            expect(outer).toEqual(expected(data, r));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * A store's close runs on the thread pool: a read made meanwhile used a database being torn down
 * and aborted the process (`~ColumnFamilySet: last_ref`, `BaseIterator::Seek: iterator_`). Reads
 * after close() began are refused, async reads already running are awaited, and a cursor opened
 * before is closed by the close itself.
 */
describe('close', () => {
  it('refuses every read from the call on, awaits reads in flight, and the process survives', async () => {
    const d = mkdtempSync(join(os.tmpdir(), 'binding-close-'));
    const r = await openRocks(d);
    const ops = Array.from({ length: 20_000 }, (_, i) => ({
      key: Buffer.from(`k${String(i).padStart(6, '0')}`),
      value: Buffer.alloc(64, i),
    }));
    r.write(ops);
    const keys = ops.map((o) => o.key);
    const cursor = r.cursor({ gte: keys[0] });
    expect(cursor.next(10)).toHaveLength(10);
    const pending = Array.from({ length: 8 }, (_, i) =>
      r.getManyAsync(keys.slice(i * 2_000, i * 2_000 + 2_000)),
    );
    const closed = r.close();
    expect(r.close()).toBe(closed); // a second close waits for the same one
    // Reads on the main thread while RocksDB closes: each refused, none reaches the database.
    let refused = 0;
    const tries: Array<() => unknown> = [
      () => r.get(keys[1]),
      () => r.getMany(keys.slice(0, 10)),
      () => r.scan({ gte: keys[100], lt: keys[200] }),
      () => r.each({ gte: keys[0] }, () => true),
      () => r.cursor({ gte: keys[0] }),
      () => cursor.next(10),
      () => r.sequence(),
      () => r.write([{ key: keys[0], value: null }]),
    ];
    for (let round = 0; round < 20; round++) {
      for (const t of tries) {
        expect(t).toThrow(StoreClosedError);
        refused++;
      }
      await new Promise((res) => setImmediate(res));
    }
    await expect(r.getManyAsync(keys.slice(0, 1))).rejects.toBeInstanceOf(StoreClosedError);
    // The reads that were running when close() was called completed with their rows.
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.length)).toEqual(Array(8).fill(2_000));
    expect(answers[3][5]).toEqual(ops[3 * 2_000 + 5].value);
    await closed;
    cursor.close();
    expect(refused).toBe(20 * tries.length);
    // Reopened, the store holds what was written before the close.
    const again = await openRocks(d);
    expect(again.get(keys[19_999])).toEqual(ops[19_999].value);
    await again.close();
    rmSync(d, { recursive: true, force: true });
  });
});
