/**
 * The state cache never gives ingest a value older than RocksDB: a large committed batch retired
 * in slices hides its keys' older cached values until each is dropped, and a value read
 * asynchronously is not cached when a batch committed meanwhile wrote its key.
 */
import { describe, expect, it } from 'vitest';
import { type OpMap, RETIRE_SLICE_OPS, StateCache } from './cache.js';

const b = (s: string) => Buffer.from(s);
/** A batch writing `v` to keys k0..k(n-1). */
function batch(n: number, v: string): OpMap {
  const m: OpMap = new Map<string, Buffer | null>();
  for (let i = 0; i < n; i++) m.set(`k${i}`, b(v));
  return m;
}

describe('a large committed batch retired in slices', () => {
  it('hides the older cached values of its keys from the first turn on, and drops them slice by slice', () => {
    const c = new StateCache(1 << 30);
    const n = RETIRE_SLICE_OPS * 2 + 10;
    for (let i = 0; i < n; i++) c.fill(`k${i}`, b('old'));
    c.fill('other', b('kept'));
    c.write(1, batch(n, 'new'), false);
    expect(c.get('k0')?.toString()).toBe('new'); // the overlay, while in flight
    expect(c.committed(1)).toBe(true); // slices left
    // RocksDB holds "new" now: no key of the batch reads the older cached value any more.
    expect(c.get('k0')).toBeUndefined();
    expect(c.get(`k${n - 1}`)).toBeUndefined();
    expect(c.get('other')?.toString()).toBe('kept');
    // A value read from RocksDB after the commit is cached and stays.
    c.fill('k5', b('new'));
    let slices = 0;
    while (c.retireSlice()) slices++;
    expect(slices).toBe(2);
    expect(c.get('k5')?.toString()).toBe('new');
    expect(c.get('k7')).toBeUndefined();
    expect(c.stats().entries).toBe(2);
  });

  it('a live block committed after the segment keeps its newer values', () => {
    const c = new StateCache(1 << 30);
    const n = RETIRE_SLICE_OPS + 1;
    for (let i = 0; i < n; i++) c.fill(`k${i}`, b('old'));
    c.write(1, batch(n, 'segment'), false);
    c.committed(1);
    const live: OpMap = new Map([['k3', b('live')]]);
    c.write(2, live, true);
    expect(c.committed(2)).toBe(true); // the segment's slices are still left
    expect(c.get('k3')?.toString()).toBe('live');
    while (c.retireSlice());
    expect(c.get('k3')?.toString()).toBe('live');
  });
});

describe('an asynchronous read fenced against commits', () => {
  it('does not cache a value of a key that a batch committed while the read was out', () => {
    const c = new StateCache(1 << 30);
    const fence = c.fence();
    // The read went to RocksDB before block 7 committed k1 and k2 (a small batch: promoted) ...
    c.write(7, batch(3, 'b7'), true);
    c.committed(7);
    // ... and k9 was not written: its value stands.
    c.fill('k1', b('before-b7'), fence);
    c.fill('k9', b('v9'), fence);
    c.unfence(fence);
    expect(c.get('k1')?.toString()).toBe('b7');
    expect(c.get('k9')?.toString()).toBe('v9');
  });

  it('a batch committed and evicted before the answer arrives still fences its keys', () => {
    const c = new StateCache(100); // tiny: each promoted value is evicted at once
    const fence = c.fence();
    c.write(1, batch(5, 'x'.repeat(100)), true);
    c.committed(1);
    c.fill('k4', b('stale'), fence);
    c.unfence(fence);
    expect(c.get('k4')).toBeUndefined();
  });
});
