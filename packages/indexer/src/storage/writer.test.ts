/**
 * The writer thread commits a batch larger than one message (a history segment, encoded in chunks
 * across event-loop turns) atomically and in submission order: a small batch submitted while the
 * large one is still being encoded lands after it, and no read sees part of the large one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BALANCE } from '../schema/tables/tokens.js';
import type * as StoreModule from './index.js';
import type { Store } from './index.js';
import { CHUNK_OPS } from './writer.js';

// The writer thread runs the compiled writer-thread.js, so the store comes from the build (the
// test command builds first): the same code, loaded the way the service loads it.
const { createStore } = (await import(
  new URL('../../dist/storage/index.js', import.meta.url).href
)) as typeof StoreModule;
const { BALANCE: BALANCE_BUILT } = (await import(
  new URL('../../dist/schema/tables/tokens.js', import.meta.url).href
)) as { BALANCE: typeof BALANCE };

const key32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const TOKEN = `0x${'aa'.repeat(20)}` as `0x${string}`;
const holder = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;

/** A store with a writer thread on a fresh directory, closed and removed after the test. */
async function threadStore(inlineWrites = true): Promise<Store> {
  const d = mkdtempSync(join(tmpdir(), 'writer-'));
  const s: Store = await createStore({ dataDir: d, unfinalisedWindow: 16, writer: 'thread', inlineWrites });
  onTestFinished(async () => {
    await s.close().catch(() => undefined);
    rmSync(d, { recursive: true, force: true });
  });
  return s;
}

describe('writer thread: a batch in chunks', () => {
  it('commits a segment of several chunks atomically, before a block submitted behind it', async () => {
    const s = await threadStore(false); // every batch to the thread, the chunked path
    const n = CHUNK_OPS * 3 + 17;
    const segment = s.newBatch({ undo: false });
    for (let i = 0; i < n; i++) segment.put(BALANCE_BUILT, [TOKEN, holder(i)], BigInt(i));
    const seen: string[] = [];
    const partial: number[] = [];
    s.commitBatch({ number: 0, hash: key32(0) }, segment, undefined, () => seen.push('segment'));
    // Submitted while the segment is still being encoded: it must land after it (same key wins).
    const block = s.newBatch();
    block.put(BALANCE_BUILT, [TOKEN, holder(5)], 555n);
    s.commitBatch({ number: 1, hash: key32(1) }, block, undefined, () => seen.push('block'));
    // Reads between the chunks see all of the segment or none of it.
    const watch = setInterval(() => {
      const v = s.view();
      try {
        const first = v.get(BALANCE_BUILT, TOKEN, holder(0));
        const last = v.get(BALANCE_BUILT, TOKEN, holder(n - 1));
        if ((first === undefined) !== (last === undefined)) partial.push(1);
      } finally {
        v.close();
      }
    }, 0);
    await s.settled(0);
    clearInterval(watch);
    expect(seen).toEqual(['segment', 'block']);
    expect(partial).toEqual([]);
    const v = s.view();
    try {
      expect(v.head?.number).toBe(1);
      expect(v.get(BALANCE_BUILT, TOKEN, holder(5))).toBe(555n);
      for (const i of [0, CHUNK_OPS - 1, CHUNK_OPS, 2 * CHUNK_OPS + 1, n - 1])
        expect(v.get(BALANCE_BUILT, TOKEN, holder(i))).toBe(BigInt(i));
    } finally {
      v.close();
    }
  });

  it('announces every batch leaving the queue, with the writes in flight already lowered', async () => {
    const s = await threadStore(false);
    const inFlightAtSettle: number[] = [];
    const order: string[] = [];
    const off = s.onWriteSettled(() => {
      inFlightAtSettle.push(s.inFlight().batches);
      order.push('settled');
    });
    for (let b = 0; b < 3; b++) {
      const batch = s.newBatch();
      batch.put(BALANCE_BUILT, [TOKEN, holder(b)], BigInt(b));
      s.commitBatch({ number: b, hash: key32(b) }, batch, undefined, () => order.push(`committed ${b}`));
    }
    expect(s.inFlight().batches).toBe(3);
    await s.settled(0);
    expect(inFlightAtSettle).toEqual([2, 1, 0]);
    // A batch's own callback runs first: what the settle listener reads already includes it.
    expect(order).toEqual(['committed 0', 'settled', 'committed 1', 'settled', 'committed 2', 'settled']);
    off();
    const late = s.newBatch();
    late.put(BALANCE_BUILT, [TOKEN, holder(9)], 9n);
    s.commitBatch({ number: 3, hash: key32(3) }, late);
    await s.settled(0);
    expect(inFlightAtSettle).toHaveLength(3);
  });
});

describe('writer thread: a live block alone in the queue', () => {
  it('is committed before commitBatch returns; one behind a batch in flight waits its turn', async () => {
    const s = await threadStore();
    const order: string[] = [];
    const block = s.newBatch();
    block.put(BALANCE_BUILT, [TOKEN, holder(1)], 11n);
    s.commitBatch({ number: 0, hash: key32(0) }, block, undefined, () => order.push('block 0'));
    // Committed in place: visible to a view at once, nothing in flight.
    expect(order).toEqual(['block 0']);
    expect(s.inFlight().batches).toBe(0);
    let v = s.view();
    try {
      expect(v.head?.number).toBe(0);
      expect(v.get(BALANCE_BUILT, TOKEN, holder(1))).toBe(11n);
    } finally {
      v.close();
    }
    // A history segment (no undo), however small, goes to the thread; a block behind it must not
    // jump the queue.
    const segment = s.newBatch({ undo: false });
    for (let i = 0; i < 10; i++) segment.put(BALANCE_BUILT, [TOKEN, holder(i)], BigInt(i));
    s.commitBatch({ number: 1, hash: key32(1) }, segment, undefined, () => order.push('segment 1'));
    const next = s.newBatch();
    next.put(BALANCE_BUILT, [TOKEN, holder(1)], 22n);
    s.commitBatch({ number: 2, hash: key32(2) }, next, undefined, () => order.push('block 2'));
    expect(s.inFlight().batches).toBe(2);
    await s.settled(0);
    expect(order).toEqual(['block 0', 'segment 1', 'block 2']);
    v = s.view();
    try {
      expect(v.head?.number).toBe(2);
      expect(v.get(BALANCE_BUILT, TOKEN, holder(1))).toBe(22n);
    } finally {
      v.close();
    }
    // A catch-up batch of several live blocks keeps the thread too, with nothing in flight.
    const two = s.newBatch();
    two.put(BALANCE_BUILT, [TOKEN, holder(2)], 2n);
    s.endBlock({ number: 3, hash: key32(3) }, two);
    two.put(BALANCE_BUILT, [TOKEN, holder(2)], 4n);
    s.commitBatch({ number: 4, hash: key32(4) }, two, undefined, () => order.push('blocks 3-4'));
    expect(s.inFlight().batches).toBe(1);
    await s.settled(0);
    expect(order.at(-1)).toBe('blocks 3-4');
  });
});
