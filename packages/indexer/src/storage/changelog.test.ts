/**
 * The change log: a replica store applying a writer's entries in order is byte-for-byte equal to
 * the writer (blocks, rollbacks, late writes, meta, resets), entries are gap-free across a writer
 * restart, and the replica refuses a gap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHANGELOG, HEADER, META } from '../schema/tables/chain.js';
import { BALANCE, STATS } from '../schema/tables/tokens.js';
import type { Rocks } from './binding.js';
import { decodeChange, encodeChange } from './changelog.js';
import { createStore, type Store } from './index.js';

const dirs: string[] = [];
const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'changelog-'));
  dirs.push(d);
  return d;
};
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const A = `0x${'aa'.repeat(20)}` as `0x${string}`;
const W = `0x${'bb'.repeat(20)}` as `0x${string}`;

/** Every row except the process's own change-log bookkeeping. */
function dump(rocks: Rocks): string[] {
  const out: string[] = [];
  const skip = new Set([
    META.key('changelog:seq').toString('hex'),
    META.key('replica:applied').toString('hex'),
  ]);
  rocks.each({}, (k, v) => {
    if (k[0] === CHANGELOG.id || skip.has(k.toString('hex'))) return true;
    out.push(`${k.toString('hex')}=${v.toString('hex')}`);
    return true;
  });
  return out;
}

describe('change log', () => {
  it('entries round-trip', () => {
    const e = {
      kind: 'block' as const,
      seq: 7,
      committedAtMs: 1_700_000_000_123,
      head: { number: 12, hash: hash(12) },
      ops: [
        { key: Buffer.from([1, 2]), value: Buffer.from('x') },
        { key: Buffer.from([3]), value: null },
      ],
    };
    expect(decodeChange(encodeChange(e))).toEqual(e);
    expect(decodeChange(encodeChange({ ...e, head: null, ops: [] }))).toEqual({ ...e, head: null, ops: [] });
  });

  it('a replica applying the log equals the writer, across a writer restart', async () => {
    const wdir = tmp();
    let writer = await createStore({ dataDir: wdir, unfinalisedWindow: 4, changeLog: true });
    const write = (s: Store, n: number, bal: bigint) =>
      s.commitBlock({ number: n, hash: hash(n) }, (b) => {
        b.insert(HEADER, [n], `{"number":"0x${n.toString(16)}"}`);
        b.put(BALANCE, [A, W], bal);
        b.put(STATS, [A], {
          holders: 1,
          burnSinkHolders: 0,
          negativeBalances: 0,
          transfers: n,
          supplyFromTransfers: `${bal}`,
          lastChangeBlock: n,
        });
      });
    for (let n = 0; n < 6; n++) write(writer, n, BigInt(100 + n));
    writer.rollbackHead();
    writer.putMeta('projection:tokens', { version: 3, checkpoint: 4 });
    writer.commitLate(3, (b) => b.put(BALANCE, [A, A], 5n));
    const beforeRestart = writer.changeLog.last();
    await writer.close();
    writer = await createStore({ dataDir: wdir, unfinalisedWindow: 4, changeLog: true });
    open.push(writer);
    expect(writer.changeLog.last()).toBe(beforeRestart);
    write(writer, 5, 999n);
    writer.wipeTables([STATS]);

    const entries = writer.changeLog.read(0, 1000);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(entries.map((e) => e.kind)).toEqual([
      ...Array(6).fill('block'),
      'rollback',
      'meta',
      'late',
      'block',
      'reset',
    ]);

    const replica = await createStore({ dataDir: tmp(), unfinalisedWindow: 4 });
    open.push(replica);
    // The writer's store as created: its generation row (a replica joins from a snapshot of it).
    replica.rocks.write([{ key: META.key('generation'), value: writer.rocks.get(META.key('generation'))! }]);
    expect(() => replica.applyChange(entries[1])).toThrow(/gap/);
    for (const e of entries) replica.applyChange(e);
    expect(replica.head()).toEqual(writer.head());
    expect(replica.applied().seq).toBe(writer.changeLog.last());
    expect(dump(replica.rocks)).toEqual(dump(writer.rocks));

    writer.changeLog.prune(5);
    expect(writer.changeLog.read(0, 100)[0].seq).toBe(6);
  });

  it('is off by default and costs nothing', async () => {
    const s = await createStore({ dataDir: tmp(), unfinalisedWindow: 4 });
    open.push(s);
    s.commitBlock({ number: 0, hash: hash(0) }, (b) => b.insert(HEADER, [0], '{}'));
    expect(s.changeLog.last()).toBe(0);
    let rows = 0;
    s.rocks.each({ gte: CHANGELOG.prefix(), lt: Buffer.from([CHANGELOG.id + 1]) }, () => {
      rows++;
      return true;
    });
    expect(rows).toBe(0);
  });
});
