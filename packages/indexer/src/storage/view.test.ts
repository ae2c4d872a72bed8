/**
 * Views opened per request (viewOpener): the committed head is read from RocksDB once per
 * committed batch, not once per request, and a head read while a batch lands is never kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { META } from '../schema/tables/chain.js';
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
});
