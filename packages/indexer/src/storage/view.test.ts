/**
 * Views opened per request (viewOpener): the committed head is read from RocksDB once per
 * committed batch, not once per request, and a head read while a batch lands is never kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { META } from '../schema/tables/chain.js';
import { batchView } from './block-batch.js';
import type { BlockRef } from './index.js';
import { CHECKPOINT } from './meta.js';
import { tempStores } from './temp-stores.fixture.js';
import { viewOpener } from './view.js';

const stores = tempStores();
afterEach(stores.closeAll);

const ref = (n: number): BlockRef => ({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}` });

describe('viewOpener', () => {
  it('reads the head once per committed batch and keeps each view at its own anchor', async () => {
    const { rocks } = await stores.open('view-', { unfinalisedWindow: 4 });
    const setHead = (n: number) =>
      rocks.write([{ key: META.key(CHECKPOINT), value: META.value.encode(ref(n)) }]);
    let reads = 0;
    const readHead = () => {
      reads++;
      const v = rocks.get(META.key(CHECKPOINT));
      return v ? (META.value.decode(v) as BlockRef) : null;
    };
    const open = viewOpener(rocks, readHead);
    setHead(7);
    const a = open();
    const b = open();
    expect([a.head, b.head]).toEqual([ref(7), ref(7)]);
    expect(a.seq).toBe(b.seq);
    expect(reads).toBe(1);
    expect(a.consistent()).toBe(true);

    setHead(8);
    expect(a.consistent()).toBe(false); // a batch landed since `a` opened
    const c = open();
    expect(c.head).toEqual(ref(8));
    expect(reads).toBe(2);
    expect(c.consistent()).toBe(true);
    // An old view keeps its anchor; a closed one refuses reads.
    expect(a.head).toEqual(ref(7));
    c.close();
    expect(() => c.meta(CHECKPOINT)).toThrow(/after its request ended/);
  });

  it('does not keep a head read while a batch lands: that view is inconsistent, the next reads again', async () => {
    const { rocks } = await stores.open('view-', { unfinalisedWindow: 4 });
    const setHead = (n: number) =>
      rocks.write([{ key: META.key(CHECKPOINT), value: META.value.encode(ref(n)) }]);
    setHead(1);
    let landing = true;
    let reads = 0;
    const open = viewOpener(rocks, () => {
      reads++;
      // The writer thread commits block 2 between the view's sequence and its head read.
      if (landing) {
        landing = false;
        setHead(2);
      }
      return META.value.decode(rocks.get(META.key(CHECKPOINT))!) as BlockRef;
    });
    const raced = open();
    expect(raced.head).toEqual(ref(2));
    expect(raced.consistent()).toBe(false); // the server runs such a request again
    const next = open();
    expect(reads).toBe(2);
    expect(next.head).toEqual(ref(2));
    expect(next.consistent()).toBe(true);
    open();
    expect(reads).toBe(2);
  });

  it('shares META values read at one sequence between views, never one read while a batch lands', async () => {
    const { rocks } = await stores.open('view-', { unfinalisedWindow: 4 });
    const put = (name: string, v: unknown) =>
      rocks.write([{ key: META.key(name), value: META.value.encode(v) }]);
    put(CHECKPOINT, ref(3));
    put('projection:tokens', { checkpoint: 3 });
    let gets = 0;
    let landOnGet: (() => void) | null = null;
    // The real store, its point reads counted (and, once, a batch landing during one).
    const counted = Object.create(rocks) as typeof rocks;
    counted.get = (key: Buffer) => {
      gets++;
      const v = rocks.get(key);
      const land = landOnGet;
      landOnGet = null;
      land?.();
      return v;
    };
    const open = viewOpener(counted, () => META.value.decode(rocks.get(META.key(CHECKPOINT))!) as BlockRef);
    const a = open();
    expect(a.meta('projection:tokens')).toEqual({ checkpoint: 3 });
    const b = open();
    const mine = b.meta<{ checkpoint: number }>('projection:tokens')!;
    expect(mine).toEqual({ checkpoint: 3 });
    expect(gets).toBe(1);
    mine.checkpoint = 99; // a caller changing what it got changes nobody else's
    expect(open().meta('projection:tokens')).toEqual({ checkpoint: 3 });
    expect(open().meta('absent')).toBeUndefined();
    expect(open().meta('absent')).toBeUndefined();
    expect(gets).toBe(2);

    put('projection:tokens', { checkpoint: 4 });
    const c = open();
    landOnGet = () => put('projection:tokens', { checkpoint: 5 });
    expect(c.meta('projection:tokens')).toEqual({ checkpoint: 4 });
    expect(c.consistent()).toBe(false);
    const d = open(); // at the new sequence: reads again
    expect(d.meta('projection:tokens')).toEqual({ checkpoint: 5 });
    expect(gets).toBe(4);
    // A view of an old sequence answers what was read at its sequence (and is not consistent any
    // more: its request runs again on a new view).
    expect(a.meta('projection:tokens')).toEqual({ checkpoint: 3 });
    expect(a.consistent()).toBe(false);
  });

  it('a batch view reads the batch first and walks committed rows through the view class', async () => {
    const store = await stores.open('view-', { unfinalisedWindow: 4 });
    store.rocks.write([
      { key: META.key('a'), value: META.value.encode(1) },
      { key: META.key('b'), value: META.value.encode(2) },
    ]);
    const batch = store.newBatch();
    batch.put(META, ['b'], 20);
    const v = batchView(batch, ref(9));
    expect(v.head).toEqual(ref(9));
    expect(v.get(META, 'b')).toBe(20); // the batch's pending write
    expect(v.meta('a')).toBe(1);
    // Walks see committed rows only.
    const ab = { gte: ['a'] as [string], lt: ['c'] as [string] };
    expect(v.rows(META, { ...ab, limit: 10 }).map((r) => [r.key[0], r.value])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(v.first(META, { ...ab, reverse: true })?.value).toBe(2);
    expect(v.count(META, ab, 10)).toBe(2);
    const seen: unknown[] = [];
    v.each(META, ab, (value) => {
      seen.push(value);
    });
    v.eachValue(META, ab, (value) => {
      seen.push(value);
    });
    expect(seen).toEqual([1, 2, 1, 2]);
  });
});
