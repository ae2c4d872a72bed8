/**
 * The history pruner (history-prune.ts) on a real RocksDB store: per layout, the versions no read
 * at or after the cutoff reaches are deleted and every read at or after it answers as before —
 * `since` (balance_history: the newest version at or below the cutoff stays), `interval`
 * (holders_by_wallet_id_history: versions ending at or below it go), a table read a day below the
 * block it answers at (pool_cumulative: its cutoff is a day of block time earlier); the mark is
 * committed before any delete; slices of two rows give the same result as one; a pass stopped
 * half-way resumes after the store is reopened; a rollback after a pass keeps reads exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_OLDEST_META, HISTORY_PRUNE_META, VERSIONED_TABLES } from '../schema/history.js';
import type { AnyTable, Table } from '../schema/table.js';
import { BLOCK_TS, TIME } from '../schema/tables/chain.js';
import { POOL_CUM } from '../schema/tables/markets.js';
import { BALANCE_HIST, HOLDER_ID_CUR, HOLDER_ID_HIST } from '../schema/tables/tokens.js';
import { createHistoryPruner, pruneCutoff } from './history-prune.js';
import { createStore, type Store } from './index.js';
import { tempStores } from './temp-stores.fixture.js';

type Hex = `0x${string}`;
const stores = tempStores();
afterEach(stores.closeAll);

const T = `0x${'aa'.repeat(20)}` as Hex;
const W = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Hex;
const P = `0x${'bb'.repeat(52)}` as Hex;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
/** Seconds between blocks of the synthetic chain (pool_cumulative test: 100 blocks = 20 minutes). */
const BLOCK_SECONDS = 12;

/** The balance of wallet `w` at block `n` in the synthetic history: changes every `every` blocks from `from`. */
const plan = [
  { w: W(1), from: 1, every: 1 },
  { w: W(2), from: 3, every: 7 },
  { w: W(3), from: 60, every: 5 },
  { w: W(4), from: 2, every: 1000 },
];

/**
 * Commits blocks 1..head, each through a live block batch: balance_history per the plan,
 * holders_by_wallet_id current and retired versions, pool_cumulative every 3rd block, and the
 * block's timestamp rows.
 */
function build(store: Store, head: number): void {
  for (let n = 1; n <= head; n++)
    store.commitBlock({ number: n, hash: hashOf(n) }, (b) => {
      b.insert(TIME, [n * BLOCK_SECONDS, n], null);
      b.insert(BLOCK_TS, [n], n * BLOCK_SECONDS);
      for (const p of plan) {
        if (n < p.from || (n - p.from) % p.every !== 0) continue;
        b.insert(BALANCE_HIST, [T, p.w, n], BigInt(n * 10));
        const wid = Number(BigInt(p.w));
        const cur = b.get(HOLDER_ID_CUR, T, wid);
        if (cur) b.insert(HOLDER_ID_HIST, [T, wid, cur.block], { block: n, balance: cur.balance });
        b.put(HOLDER_ID_CUR, [T, wid], { block: n, balance: BigInt(n * 10) });
      }
      if (n % 3 === 0) b.insert(POOL_CUM, [P, n], cumOf(n));
    });
}

/** Every read the as-of routes make of these tables at block `a`, as one comparable value. */
function readsAt(store: Store, a: number) {
  const view = store.view();
  try {
    const balances = plan.map(
      (p) =>
        view.first(BALANCE_HIST, { prefix: [T, p.w], lte: [T, p.w, a], reverse: true })?.value?.toString() ??
        null,
    );
    // holders_by_wallet_id at a: current rows from ≤ a, history rows valid at a.
    const holders: string[] = [];
    view.each(HOLDER_ID_CUR, { prefix: [T] }, (v, k) => {
      if (v.block <= a) holders.push(`${k[1]}:${v.balance}`);
    });
    view.each(HOLDER_ID_HIST, { prefix: [T] }, (v, k) => {
      if ((k[2] as number) <= a && v.block > a) holders.push(`${k[1]}:${v.balance}`);
    });
    // A 24 h window's low row: the newest pool_cumulative row at or below any block ≥ a − 7200.
    const cum = [a, a - 1, Math.max(0, a - 20)].map(
      (b) => view.first(POOL_CUM, { prefix: [P], lte: [P, b], reverse: true })?.key[1] ?? null,
    );
    return { balances, holders: holders.sort(), cum };
  } finally {
    view.close();
  }
}

/** Every key of table `t`'s rows as tuples. */
function rowsOf<K extends unknown[], V>(store: Store, t: Table<K, V>): K[] {
  const view = store.view();
  try {
    return view.rows(t, { limit: 1_000_000 }).map((r) => r.key);
  } finally {
    view.close();
  }
}

describe('history pruner: the rule per layout', () => {
  it('cutoff = head − max(retention, unfinalised window), never below block 0', () => {
    expect(pruneCutoff(200, 40, 24)).toBe(160);
    expect(pruneCutoff(200, 10, 24)).toBe(176);
    expect(pruneCutoff(20, 40, 24)).toBeNull();
  });

  it('since, interval and a day-long lookback: unreachable versions go, every read at or after the cutoff is unchanged', async () => {
    const store = await stores.open('prune-', { unfinalisedWindow: 8 });
    build(store, 120);
    const cutoff = 120 - 40;
    const before = new Map<number, unknown>();
    for (let a = cutoff; a <= 120; a++) before.set(a, readsAt(store, a));
    const pruner = createHistoryPruner({ store, retention: 40 });
    await pruner.settle();
    expect(store.getMeta(HISTORY_OLDEST_META)).toBe(cutoff);
    expect(store.getMeta(HISTORY_PRUNE_META)).toBeNull();
    for (let a = cutoff; a <= 120; a++) expect(readsAt(store, a), `reads at ${a}`).toEqual(before.get(a));

    // since: per wallet, nothing below the newest version at or below the cutoff.
    const bal = rowsOf(store, BALANCE_HIST);
    for (const p of plan) {
      const blocks = bal.filter((k) => k[1] === p.w).map((k) => k[2]);
      const atCut = Math.max(...blocks.filter((b) => b <= cutoff), -1);
      expect(
        blocks.filter((b) => b < cutoff && b !== atCut),
        p.w,
      ).toEqual([]);
      expect(blocks.length, `${p.w} keeps a version`).toBeGreaterThan(0);
    }
    expect(bal.filter((k) => k[1] === W(1)).map((k) => k[2])).toEqual(
      Array.from({ length: 41 }, (_, i) => cutoff + i),
    );
    expect(bal.filter((k) => k[1] === W(4)).map((k) => k[2])).toEqual([2]);
    // interval: every retired version left is valid at some block ≥ cutoff.
    const view = store.view();
    const hist: number[] = [];
    view.each(HOLDER_ID_HIST, { prefix: [T] }, (v) => {
      hist.push(v.block);
    });
    view.close();
    expect(hist.length).toBeGreaterThan(0);
    expect(hist.filter((to) => to <= cutoff)).toEqual([]);
    // pool_cumulative is read up to a day below: at 12 s a block, nothing of this chain is that old.
    expect(rowsOf(store, POOL_CUM)).toHaveLength(40);
    expect(pruner.status()).toMatchObject({ oldest: cutoff, pass: null, passes: 1 });
  });

  it('a day-long lookback prunes below the block a day of block time before the cutoff', async () => {
    const store = await stores.open('prune-day-', { unfinalisedWindow: 8 });
    // 12 s blocks: 7200 blocks a day; 8000 blocks with a cumulative row every 3rd.
    store.commitBlock({ number: 0, hash: hashOf(0) }, () => {});
    const head = 8_000;
    const ops = [];
    for (let n = 1; n <= head; n++) {
      ops.push({ key: TIME.key(n * BLOCK_SECONDS, n), value: TIME.value.encode(null) });
      ops.push({ key: BLOCK_TS.key(n), value: BLOCK_TS.value.encode(n * BLOCK_SECONDS) });
      if (n % 3 === 0) ops.push({ key: POOL_CUM.key(P, n), value: POOL_CUM.value.encode(cumOf(n)) });
    }
    store.rocks.write(ops);
    for (let n = 1; n <= 10; n++) store.commitBlock({ number: head + n, hash: hashOf(head + n) }, () => {});
    const pruner = createHistoryPruner({ store, retention: 10 });
    await pruner.settle();
    const cutoff = head + 10 - 10;
    const tableCut = cutoff - 7200 - 1; // the block before the first one a day of block time earlier
    const blocks = rowsOf(store, POOL_CUM).map((k) => k[1]);
    const atCut = Math.floor(tableCut / 3) * 3;
    expect(blocks[0]).toBe(atCut);
    expect(blocks.length).toBe(Math.floor((head - atCut) / 3) + 1);
  });

  it('the mark is committed alone, before any delete below it (change log order)', async () => {
    const store = await stores.open('prune-log-', { unfinalisedWindow: 8, changeLog: true });
    build(store, 80);
    const seq0 = store.changeLog.last();
    await createHistoryPruner({ store, retention: 20, sliceRows: 16 }).settle();
    const entries = store.changeLog.read(seq0, 10_000).filter((e) => e.kind === 'prune');
    expect(entries.length).toBeGreaterThan(2);
    const meta = (name: string) => `meta:${name}`;
    const keysOf = (e: (typeof entries)[number]) =>
      e.ops.map((op) => (op.key[0] === 0x01 ? meta(op.key.subarray(1).toString()) : op.key[0]));
    // The first prune entry holds the mark and the pass, nothing else; deletes come after it.
    expect(keysOf(entries[0]).sort()).toEqual([meta(HISTORY_OLDEST_META), meta(HISTORY_PRUNE_META)].sort());
    expect(entries.slice(1).some((e) => e.ops.some((op) => op.value === null))).toBe(true);
    expect(entries.slice(1).every((e) => !keysOf(e).includes(meta(HISTORY_OLDEST_META)))).toBe(true);
  });
});

function cumOf(n: number) {
  return {
    trades: n,
    buys: n,
    sells: 0,
    volume0: BigInt(n),
    volume1: 0n,
    buyVolume0: 0n,
    buyVolume1: 0n,
    open: '1/1',
    close: '1/1',
  };
}

describe('history pruner: slices, restarts and rollbacks', () => {
  it('slices of two rows leave exactly what one pass of large slices leaves', async () => {
    const a = await stores.open('prune-a-', { unfinalisedWindow: 8 });
    const b = await stores.open('prune-b-', { unfinalisedWindow: 8 });
    build(a, 120);
    build(b, 120);
    await createHistoryPruner({ store: a, retention: 30 }).settle();
    await createHistoryPruner({ store: b, retention: 30, sliceRows: 2 }).settle();
    for (const t of [BALANCE_HIST, HOLDER_ID_HIST, POOL_CUM] as AnyTable[])
      expect(rowsOf(b, t), t.name).toEqual(rowsOf(a, t));
  });

  it('a pass stopped half-way resumes after the store is reopened and ends where an unbroken one does', async () => {
    const dir = stores.dir('prune-crash-');
    const whole = await stores.open('prune-whole-', { unfinalisedWindow: 8 });
    build(whole, 120);
    await createHistoryPruner({ store: whole, retention: 30 }).settle();
    let store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
    build(store, 120);
    let slices = 0;
    // The pass pauses after 5 slices (ready() false), its progress committed with the last one.
    const first = createHistoryPruner({ store, retention: 30, sliceRows: 3, ready: () => ++slices <= 6 });
    first.start();
    for (let i = 0; i < 100 && slices <= 6; i++) await new Promise((r) => setTimeout(r, 5));
    await first.stop();
    const left = store.getMeta<{ table: number } | null>(HISTORY_PRUNE_META);
    expect(left).not.toBeNull();
    expect(store.getMeta(HISTORY_OLDEST_META)).toBe(90);
    // Reads at the mark and above are already exact half-way.
    await store.close();
    store = await createStore({ dataDir: dir, unfinalisedWindow: 8 });
    const resumed = createHistoryPruner({ store, retention: 30 });
    expect(resumed.status().pass).toEqual(left);
    await resumed.settle();
    for (const t of [BALANCE_HIST, HOLDER_ID_HIST, POOL_CUM] as AnyTable[])
      expect(rowsOf(store, t), t.name).toEqual(rowsOf(whole, t));
    await store.close();
  });

  it('rolling back the live window after a pass keeps every read at or above the mark exact', async () => {
    const store = await stores.open('prune-rollback-', { unfinalisedWindow: 8 });
    build(store, 100);
    const reads = new Map<number, unknown>();
    for (let a = 90; a <= 96; a++) reads.set(a, readsAt(store, a));
    await createHistoryPruner({ store, retention: 4 }).settle();
    expect(store.getMeta(HISTORY_OLDEST_META)).toBe(92);
    for (let i = 0; i < 4; i++) store.rollbackHead();
    expect(store.head()?.number).toBe(96);
    for (let a = 92; a <= 96; a++) expect(readsAt(store, a), `reads at ${a}`).toEqual(reads.get(a));
  });

  it('every declared table is walked by a pass (none is skipped)', async () => {
    const store = await stores.open('prune-all-', { unfinalisedWindow: 8, changeLog: true });
    build(store, 60);
    const seq0 = store.changeLog.last();
    await createHistoryPruner({ store, retention: 10, sliceRows: 1_000_000 }).settle();
    const tables = store.changeLog
      .read(seq0, 1_000)
      .flatMap((e) => e.ops.filter((op) => op.key[0] === 0x01 && op.value))
      .map((op) => JSON.parse(op.value!.toString()))
      .filter((v) => v && typeof v === 'object' && 'table' in v)
      .map((v) => v.table);
    expect([...new Set(tables)]).toEqual(VERSIONED_TABLES.map((v) => v.table.id));
  });
});
