/**
 * BlockBatch reads: the committed-read cache and multi-get prefetch change no result. A batch
 * that prefetches sees the same values as one that reads key by key, its own pending writes win
 * over prefetched values, and the undo record it leaves restores exactly the state before the
 * block (so a rollback after a prefetching block is byte-exact).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { META } from '../schema/tables/chain.js';
import { BALANCE, BALANCE_HIST, STATS } from '../schema/tables/tokens.js';
import type { Rocks } from './binding.js';
import type { Store } from './index.js';
import { tempStores } from './temp-stores.fixture.js';
import { RowWriter } from './writer.js';

const stores = tempStores();
afterEach(stores.closeAll);
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const T = `0x${'aa'.repeat(20)}` as `0x${string}`;
const w = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`;

const newStore = (): Promise<Store> => stores.open('batch-', { unfinalisedWindow: 16 });

/** Every row but the store's random generation id. */
function dump(rocks: Rocks): string[] {
  const out: string[] = [];
  const generation = META.key('generation').toString('hex');
  rocks.each({}, (k, v) => {
    if (k.toString('hex') !== generation) out.push(`${k.toString('hex')}=${v.toString('hex')}`);
    return true;
  });
  return out;
}

/** Block 1 holds balances of wallets 0..9; block 2 moves some, deletes one, adds new ones. */
function block2(prefetch: boolean) {
  return (b: import('./index.js').BlockBatch) => {
    const keys: Array<[`0x${string}`, `0x${string}`]> = [];
    for (let i = 0; i < 15; i++) keys.push([T, w(i)]);
    if (prefetch) b.prefetch(BALANCE, keys);
    // A pending write before a second prefetch of the same key: the write wins.
    b.put(BALANCE, [T, w(0)], 1000n);
    if (prefetch) b.prefetch(BALANCE, keys);
    expect(b.get(BALANCE, T, w(0))).toBe(1000n);
    for (let i = 1; i < 15; i++) {
      const before = b.get(BALANCE, T, w(i));
      expect(before).toBe(i < 10 ? BigInt(i) : undefined);
      if (i === 3) b.del(BALANCE, T, w(i));
      else b.put(BALANCE, [T, w(i)], (before ?? 0n) + 7n);
    }
    expect(b.get(BALANCE, T, w(3))).toBeUndefined();
    expect(b.has(BALANCE, T, w(12))).toBe(true);
    b.put(STATS, [T], { holders: 14 } as never);
  };
}

describe('BlockBatch prefetch and read cache', () => {
  it('give the same rows and the same undo as key-by-key reads; rollback restores block 1 exactly', async () => {
    const dumps: string[][] = [];
    const afterRollback: string[][] = [];
    for (const prefetch of [false, true]) {
      const s = await newStore();
      s.commitBlock({ number: 1, hash: hash(1) }, (b) => {
        for (let i = 0; i < 10; i++) b.put(BALANCE, [T, w(i)], BigInt(i));
      });
      const atBlock1 = dump(s.rocks);
      s.commitBlock({ number: 2, hash: hash(2) }, block2(prefetch));
      dumps.push(dump(s.rocks));
      s.rollbackHead();
      afterRollback.push(dump(s.rocks));
      expect(afterRollback.at(-1)).toEqual(atBlock1);
    }
    // Same rows, same undo record, with or without prefetching.
    expect(dumps[1]).toEqual(dumps[0]);
    expect(afterRollback[1]).toEqual(afterRollback[0]);
  });

  it('a prefetched absent key reads as absent and a put of it records no prior', async () => {
    const s = await newStore();
    s.commitBlock({ number: 1, hash: hash(1) }, (b) => {
      b.prefetch(BALANCE, [[T, w(1)]]);
      expect(b.get(BALANCE, T, w(1))).toBeUndefined();
      b.put(BALANCE, [T, w(1)], 5n);
      expect(b.undo).toEqual([{ key: BALANCE.key(T, w(1)), prior: null }]);
    });
    s.rollbackHead();
    expect(dump(s.rocks).filter((r) => r.startsWith(BALANCE.key(T, w(1)).toString('hex')))).toEqual([]);
  });
});

describe('BlockBatch rows created and deleted in one batch', () => {
  const opsOf = (b: import('./index.js').BlockBatch) =>
    b.ops.map((o) => `${o.key.toString('hex')}=${o.value === null ? 'del' : o.value.toString('hex')}`);

  it('a history segment writes nothing for a row it inserted and deleted, and a delete for a row the store held', async () => {
    const s = await newStore();
    s.commitBlock({ number: 1, hash: hash(1) }, (b) => b.put(BALANCE, [T, w(1)], 1n));
    const seg = s.newBatch({ undo: false });
    seg.insert(BALANCE, [T, w(2)], 2n); // created here
    seg.del(BALANCE, T, w(2)); // and gone again: no op at all
    seg.del(BALANCE, T, w(2)); // a second delete of it changes nothing
    seg.del(BALANCE, T, w(1)); // held by the store: a delete
    seg.insert(BALANCE, [T, w(1)], 11n); // re-created after that delete: not new to the store
    seg.del(BALANCE, T, w(1)); // so deleting it again must still delete the store's row
    seg.insert(BALANCE, [T, w(3)], 3n);
    seg.del(BALANCE, T, w(3));
    seg.insert(BALANCE, [T, w(3)], 33n); // created, dropped, created again: one put
    expect(opsOf(seg)).toEqual([
      `${BALANCE.key(T, w(1)).toString('hex')}=del`,
      `${BALANCE.key(T, w(3)).toString('hex')}=${BALANCE.value.encode(33n).toString('hex')}`,
    ]);
    expect(seg.get(BALANCE, T, w(2))).toBeUndefined();
    s.commitBatch({ number: 2, hash: hash(2) }, seg);
    await s.settled(0);
    const v = s.view();
    try {
      expect(v.get(BALANCE, T, w(1))).toBeUndefined();
      expect(v.get(BALANCE, T, w(2))).toBeUndefined();
      expect(v.get(BALANCE, T, w(3))).toBe(33n);
    } finally {
      v.close();
    }
  });

  it('a live block drops the write of a row it created and deleted, and its rollback restores the block before exactly', async () => {
    const s = await newStore();
    s.commitBlock({ number: 1, hash: hash(1) }, (b) => b.put(BALANCE, [T, w(1)], 1n));
    const atBlock1 = dump(s.rocks);
    s.commitBlock({ number: 2, hash: hash(2) }, (b) => {
      b.put(BALANCE, [T, w(5)], 5n); // absent before (read for the undo): new
      b.del(BALANCE, T, w(5));
      b.insert(BALANCE, [T, w(6)], 6n);
      b.del(BALANCE, T, w(6));
      b.put(BALANCE, [T, w(1)], 10n); // held before: its delete must reach the store
      b.del(BALANCE, T, w(1));
      expect(opsOf(b)).toEqual([`${BALANCE.key(T, w(1)).toString('hex')}=del`]);
    });
    expect(dump(s.rocks).some((r) => r.startsWith(BALANCE.key(T, w(1)).toString('hex')))).toBe(false);
    s.rollbackHead();
    expect(dump(s.rocks)).toEqual(atBlock1);
  });
});

describe('a live batch of several blocks (BlockBatch.endBlock)', () => {
  /** One op of a block: a put, a delete, or an insert (only drawn for a key absent at that point). */
  type Op = { kind: 'put' | 'del' | 'insert'; wallet: number; value: number };
  const opArb = fc.record({
    kind: fc.constantFrom<Op['kind']>('put', 'put', 'del', 'insert'),
    wallet: fc.integer({ min: 0, max: 5 }),
    value: fc.integer({ min: 0, max: 1000 }),
  });
  /** Applies `ops` to `b`; an insert of a key present at that point (per `model`) becomes a put. */
  const applyOps = (b: import('./index.js').BlockBatch, ops: Op[], model: Map<number, number>) => {
    for (const o of ops) {
      if (o.kind === 'del') {
        b.del(BALANCE, T, w(o.wallet));
        model.delete(o.wallet);
        continue;
      }
      if (o.kind === 'insert' && !model.has(o.wallet)) b.insert(BALANCE, [T, w(o.wallet)], BigInt(o.value));
      else b.put(BALANCE, [T, w(o.wallet)], BigInt(o.value));
      model.set(o.wallet, o.value);
    }
  };

  it('commits what one batch per block commits, and rolls back one block at a time to the same states', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 6 }),
        fc.array(fc.array(opArb, { maxLength: 8 }), { minLength: 1, maxLength: 5 }),
        async (base, blocks) => {
          const states: string[][][] = [];
          for (const grouped of [false, true]) {
            const s = await newStore();
            const model = new Map<number, number>();
            s.commitBlock({ number: 1, hash: hash(1) }, (b) => applyOps(b, base, model));
            const seen: string[][] = [dump(s.rocks)];
            if (grouped) {
              const b = s.newBatch();
              blocks.forEach((ops, i) => {
                if (i > 0) s.endBlock({ number: i + 1, hash: hash(i + 1) }, b);
                applyOps(b, ops, model);
              });
              s.commitBatch({ number: blocks.length + 1, hash: hash(blocks.length + 1) }, b);
            } else {
              for (const [i, ops] of blocks.entries())
                s.commitBlock({ number: i + 2, hash: hash(i + 2) }, (b) => applyOps(b, ops, model));
            }
            await s.settled(0);
            seen.push(dump(s.rocks));
            for (let i = 0; i < blocks.length; i++) {
              s.rollbackHead();
              await s.settled(0);
              seen.push(dump(s.rocks));
            }
            states.push(seen);
            await stores.closeAll();
          }
          // After the commit and after every rollback: byte-identical rows (undo records included).
          expect(states[1]).toEqual(states[0]);
          // The last rollback is back at block 1.
          expect(states[1].at(-1)).toEqual(states[1][0]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('rows of insert-only tables in a batch without undo', () => {
  it('go into encoded parts (not the key map), in chunks, and commit the same rows as a batch with undo', async () => {
    // ~40,000 rows of ~60 bytes: several 256 KiB chunks.
    const rows = 40_000;
    const fill = (b: import('./index.js').BlockBatch) => {
      for (let i = 0; i < rows; i++) b.insert(BALANCE_HIST, [T, w(i % 997), i], BigInt(i) * 10n ** 18n);
      b.put(BALANCE, [T, w(1)], 5n);
    };
    const segment = await newStore();
    const s = segment.newBatch({ undo: false });
    fill(s);
    // Only the current row is in the key map; every history row is encoded.
    expect(s.size).toBe(1);
    expect(s.encodedRows).toBe(rows);
    expect(s.bytes).toBeGreaterThan(rows * 40);
    expect(() => s.get(BALANCE_HIST, T, w(0), 0)).toThrow(/insert-only/);
    expect(() => s.has(BALANCE_HIST, T, w(0), 0)).toThrow(/insert-only/);
    const parts = s.parts;
    expect(parts.length).toBeGreaterThan(4);
    segment.commitBatch({ number: 1, hash: hash(1) }, s);
    await segment.settled();

    const live = await newStore();
    live.commitBlock({ number: 1, hash: hash(1) }, (b) => fill(b));
    await live.settled();
    const history = dump(segment.rocks).filter((r) => r.startsWith(BALANCE_HIST.prefix().toString('hex')));
    expect(history).toHaveLength(rows);
    const v = segment.view();
    expect(v.get(BALANCE_HIST, T, w(5), 5)).toBe(5n * 10n ** 18n);
    expect(v.get(BALANCE, T, w(1))).toBe(5n);
    v.close();
    // The same rows as the batch with undo (its rows in the key map), table by table.
    const tables = (r: string) => r.startsWith('25') || r.startsWith('26');
    expect(dump(segment.rocks).filter(tables)).toEqual(dump(live.rocks).filter(tables));
  });
});

describe('BlockBatch late parts (an early decode task: rows encoded while the block is built)', () => {
  /** An encoded part: a put over wallet 1's balance (held before) and an insert of wallet 7's. */
  const part = (): ArrayBuffer => {
    const rw = new RowWriter(256);
    rw.bytes(BALANCE.key(T, w(1)), BALANCE.value.encode(11n), false);
    rw.bytes(BALANCE.key(T, w(7)), BALANCE.value.encode(7n));
    return rw.done();
  };

  it('a part that follows writes and undoes exactly what the same part handed over with the block does', async () => {
    const dumps: string[][] = [];
    const undos: string[][] = [];
    for (const late of [false, true]) {
      const s = await newStore();
      s.commitBlock({ number: 1, hash: hash(1) }, (b) => b.put(BALANCE, [T, w(1)], 1n));
      const atBlock1 = dump(s.rocks);
      const b = s.newBatch();
      b.put(BALANCE, [T, w(2)], 2n);
      if (late) {
        let give!: (p: ArrayBuffer) => void;
        b.addPart({ late: new Promise<ArrayBuffer>((r) => (give = r)) });
        expect(b.latePending).toBe(1);
        // Neither the block's end nor its write may pass a part still being encoded.
        expect(() => b.parts).toThrow(/settleLate/);
        expect(() => b.endBlock()).toThrow(/settleLate/);
        const settling = b.settleLate();
        give(part());
        await settling;
        expect(b.latePending).toBe(0);
      } else b.addPart(part());
      // The part's insert records no prior; its put records the value block 1 left.
      expect(b.undo).toContainEqual({ key: BALANCE.key(T, w(7)), prior: null });
      expect(b.undo).toContainEqual({ key: BALANCE.key(T, w(1)), prior: BALANCE.value.encode(1n) });
      undos.push(b.undo!.map((u) => `${u.key.toString('hex')}=${u.prior?.toString('hex') ?? 'null'}`));
      s.commitBatch({ number: 2, hash: hash(2) }, b);
      await s.settled(0);
      dumps.push(dump(s.rocks));
      s.rollbackHead();
      await s.settled(0);
      expect(dump(s.rocks)).toEqual(atBlock1);
    }
    expect(undos[1]).toEqual(undos[0]);
    expect(dumps[1]).toEqual(dumps[0]);
  });

  it("a decode task that fails after its blocks' delta fails the settle with its error", async () => {
    const s = await newStore();
    const b = s.newBatch();
    const failed = Promise.reject(new Error('node went away'));
    failed.catch(() => {});
    b.addPart({ late: failed });
    await expect(b.settleLate()).rejects.toThrow('node went away');
  });
});
