/**
 * The two drivers over the shared stages (ingest/stage.ts), on a real RocksDB store: the history
 * driver writes one segment per bound with no undo and drops an open segment the node moved
 * under; the live driver writes each block with its undo and frames (several blocks in one write
 * while catching up, each still rolled back alone), and a block that does not attach unwinds the
 * store to the node's chain (recorded node answers: a unit test). A batch is
 * sealed once, before it commits (a segment's after its last block, a live block's after it); a
 * seal or a block that fails part-way leaves nothing of its batch written. And the contract
 * itself: no stage names a driver.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistry } from '../../projections/index.js';
import type { Rpc } from '../../rpc/client.js';
import type { BlockDelta } from '../../schema/delta.js';
import type { Topic } from '../../schema/rows/streams.js';
import { tempStores } from '../../storage/temp-stores.fixture.js';
import type { Frame } from '../../streams/log.js';
import { createStreamLog } from '../../streams/log.js';
import { emptyBlock } from '../empty-block.fixture.js';
import type { CommitEvent, Stage, Unit } from '../stage.js';
import { historyEndOf } from '../stage.js';
import { createApplyStage } from '../stages/apply.js';
import { createLinkStage } from '../stages/link.js';
import { createPrepareStage } from '../stages/prepare.js';
import { createUnwinder } from '../unwind.js';
import { createHistoryDriver } from './history.js';
import { createLiveDriver } from './live.js';

const stores = tempStores();
afterEach(stores.closeAll);
const hashOf = (n: number, fork = 0) =>
  `0x${(n + 1 + fork * 1_000_000).toString(16).padStart(64, '0')}` as `0x${string}`;

/** An empty block `n` on branch `fork` as a decode worker hands it over (encoded rows). */
const block = (n: number, fork = 0, parentFork = fork): BlockDelta =>
  emptyBlock(
    n,
    hashOf(n, fork),
    n === 0 ? (`0x${'00'.repeat(32)}` as `0x${string}`) : hashOf(n - 1, parentFork),
  );
const unit = (d: BlockDelta, last = false): Unit => ({
  d,
  frames: true,
  last,
  fetched: { seen: 0, posted: 0, received: 0 },
});

/** A node that answers eth_getBlockByNumber from `chain` (number → hash): recorded answers. */
const nodeOf = (chain: Map<number, string>): Rpc =>
  ({
    call: async (method: string, params: unknown[]) => {
      if (method !== 'eth_getBlockByNumber') throw new Error(`unexpected ${method}`);
      const h = chain.get(Number.parseInt(params[0] as string, 16));
      return h ? { hash: h } : null;
    },
  }) as unknown as Rpc;

async function setUp(node: Map<number, string>, extra: Stage[] = []) {
  const store = await stores.open('drivers-', { unfinalisedWindow: 16 });
  const log = pino({ level: 'silent' });
  const registry = createRegistry(store, [], () => undefined);
  const events: CommitEvent[] = [];
  const published: Frame[] = [];
  const streams = {
    log: createStreamLog(store),
    hub: {
      add: () => () => false,
      size: () => 0,
      topics: () => new Set<Topic>(),
      publish: (f: Frame[]) => published.push(...f),
    },
  };
  const halts: string[] = [];
  const unwinder = createUnwinder({
    chain: 't',
    store,
    rpc: nodeOf(node),
    registry,
    log,
    streams,
    halt: (r) => halts.push(r),
    onCommit: (e) => events.push(e),
  });
  const stages: Stage[] = [
    createLinkStage(),
    createPrepareStage(nodeOf(node)),
    createApplyStage({ store, unwind: unwinder.rollbackTo }),
    ...extra,
  ];
  unwinder.setStages(stages);
  const deps = {
    chain: 't',
    store,
    registry,
    log,
    streams,
    stages,
    unwinder,
    onCommit: (e: CommitEvent) => events.push(e),
  };
  const history = createHistoryDriver(deps, {
    segmentBytes: 1 << 30,
    segmentBlocks: 3,
    historyFrameBlocks: 2,
  });
  const live = createLiveDriver(deps);
  return { store, history, live, events, published, halts };
}

describe('the history driver', () => {
  it('writes one segment per bound, with the end of history, frames only in the tail, no undo', async () => {
    const { store, history, events, published } = await setUp(new Map());
    const handOver = 4;
    for (let n = 0; n <= 4; n++)
      expect(
        await history.execute({ ...unit(block(n), n === 4), frames: history.framesAt(n, handOver) }),
      ).toBe('next');
    await store.settled();
    const segments = events.filter((e) => e.kind === 'segment');
    expect(segments.map((e) => e.kind === 'segment' && [e.from, e.to])).toEqual([
      [0, 2],
      [3, 4],
    ]);
    expect(store.head()?.number).toBe(4);
    expect(historyEndOf(store)).toBe(4);
    // Frames for blocks 3 and 4 only (handOver 4, tail 2); none for 0..2.
    expect(new Set(published.map((f) => f.block))).toEqual(new Set([3, 4]));
    expect(history.open()).toBeNull();
  });

  it('drops an open segment unwritten when the next block does not attach', async () => {
    const { store, history, events } = await setUp(new Map());
    expect(await history.execute(unit(block(0)))).toBe('next');
    expect(history.open()?.blocks).toBe(1);
    expect(await history.execute(unit(block(1, 7, 7)))).toBe('replan');
    expect(history.open()).toBeNull();
    await history.flush();
    await store.settled();
    expect(events).toEqual([]);
    expect(store.head()).toBeNull();
  });
});

/** A stage that only seals: counts its seals by batch, and throws while `fail` is set. */
function sealing() {
  const seals: unknown[] = [];
  const st = {
    fail: false,
    seals,
    stage: {
      name: 'sealing',
      execute: () => 'next' as const,
      seal(t: { batch: unknown }) {
        seals.push(t.batch);
        if (st.fail) throw new Error('seal failed');
        return 'next' as const;
      },
    } satisfies Stage,
  };
  return st;
}

describe('sealing a batch', () => {
  it('history seals once per segment, before it commits; a seal that fails drops the segment unwritten', async () => {
    const s = sealing();
    const { store, history, events } = await setUp(new Map(), [s.stage]);
    s.fail = true;
    for (let n = 0; n <= 1; n++) expect(await history.execute(unit(block(n)))).toBe('next');
    expect(s.seals).toHaveLength(0); // not before the segment's last block
    await expect(history.execute(unit(block(2)))).rejects.toThrow('seal failed');
    expect(history.open()).toBeNull();
    await history.flush(); // nothing left to seal or write
    await store.settled();
    expect(s.seals).toHaveLength(1);
    expect(events).toEqual([]);
    expect(store.head()).toBeNull();
    // Fetched again, the blocks commit as one segment after one seal of its own batch.
    s.fail = false;
    for (let n = 0; n <= 4; n++) expect(await history.execute(unit(block(n), n === 4))).toBe('next');
    await store.settled();
    expect(events.map((e) => e.kind === 'segment' && [e.from, e.to])).toEqual([
      [0, 2],
      [3, 4],
    ]);
    expect(s.seals).toHaveLength(3);
    expect(new Set(s.seals).size).toBe(3);
  });

  it('history: a block that fails part-way drops the open segment (flush writes nothing of it)', async () => {
    const s = sealing();
    const { store, history, events } = await setUp(new Map(), [s.stage]);
    expect(await history.execute(unit(block(0)))).toBe('next');
    const broken = block(1);
    (broken as { txs: unknown }).txs = null; // the apply stage throws on it
    await expect(history.execute(unit(broken))).rejects.toThrow();
    expect(history.open()).toBeNull();
    await history.flush();
    await store.settled();
    expect(events).toEqual([]);
    expect(store.head()).toBeNull();
  });

  it('live seals every block before its commit; a failed seal commits nothing', async () => {
    const s = sealing();
    const { store, live, events } = await setUp(new Map(), [s.stage]);
    for (let n = 0; n <= 1; n++) expect(await live.execute(unit(block(n), true))).toBe('next');
    s.fail = true;
    await expect(live.execute(unit(block(2), true))).rejects.toThrow('seal failed');
    await store.settled();
    expect(s.seals).toHaveLength(3);
    expect(events.filter((e) => e.kind === 'block').length).toBe(2);
    expect(store.head()?.number).toBe(1);
  });
});

describe('the live driver', () => {
  it('writes each block with its frames, and unwinds to the node when a block does not attach', async () => {
    const node = new Map<number, string>();
    const { store, live, events, published, halts } = await setUp(node);
    // Following the head: each block is the last of its run.
    for (let n = 0; n <= 3; n++) expect(await live.execute(unit(block(n), true))).toBe('next');
    await store.settled();
    expect(events.filter((e) => e.kind === 'block').length).toBe(4);
    expect(new Set(published.map((f) => f.block))).toEqual(new Set([0, 1, 2, 3]));
    // The node reorganised blocks 2 and 3: block 3' names 2' as its parent.
    for (const n of [0, 1]) node.set(n, hashOf(n));
    for (const n of [2, 3]) node.set(n, hashOf(n, 1));
    expect(await live.execute(unit(block(4, 1), true))).toBe('replan');
    await store.settled();
    expect(halts).toEqual([]);
    expect(store.head()).toEqual({ number: 1, hash: hashOf(1) });
    expect(events.filter((e) => e.kind === 'rollback').length).toBe(2);
    expect(published.filter((f) => f.event === 'reorg').length).toBeGreaterThan(0);
    // The new branch applies on top of the ancestor.
    expect(await live.execute(unit(block(2, 1, 0), true))).toBe('next');
    await store.settled();
    expect(store.head()).toEqual({ number: 2, hash: hashOf(2, 1) });
  });

  it('catching up, blocks share one write, each with its own undo record: rollbacks take them back one by one', async () => {
    const node = new Map<number, string>();
    const { store, live, events, published } = await setUp(node);
    const writes: number[] = [];
    const commitBatch = store.commitBatch.bind(store);
    store.commitBatch = (ref, batch, meta, done) => {
      writes.push(ref.number);
      commitBatch(ref, batch, meta, done);
    };
    // A run of blocks 0..5 planned at once: the batch commits with the run's last block.
    for (let n = 0; n <= 5; n++) expect(await live.execute(unit(block(n), n === 5))).toBe('next');
    await store.settled();
    expect(writes).toEqual([5]);
    expect(live.open()).toBeNull();
    expect(events.filter((e) => e.kind === 'block').map((e) => e.kind === 'block' && e.block.number)).toEqual(
      [0, 1, 2, 3, 4, 5],
    );
    expect(new Set(published.map((f) => f.block))).toEqual(new Set([0, 1, 2, 3, 4, 5]));
    // The node reorganised blocks 3..5: three rollbacks, one block each, back to block 2.
    for (let n = 0; n <= 2; n++) node.set(n, hashOf(n));
    for (let n = 3; n <= 5; n++) node.set(n, hashOf(n, 1));
    expect(await live.execute(unit(block(6, 1), true))).toBe('replan');
    await store.settled();
    expect(events.filter((e) => e.kind === 'rollback').length).toBe(3);
    expect(store.head()).toEqual({ number: 2, hash: hashOf(2) });
  });

  it('catching up: an open batch is dropped when the node moves under it or a block fails, and flushed whole between blocks', async () => {
    const { store, live, events } = await setUp(new Map());
    for (let n = 0; n <= 1; n++) expect(await live.execute(unit(block(n)))).toBe('next');
    expect(live.open()?.blocks).toBe(2);
    // Block 2 names another block 1 as its parent: nothing of the open batch is written.
    expect(await live.execute(unit(block(2, 7, 7)))).toBe('replan');
    expect(live.open()).toBeNull();
    await live.flush();
    await store.settled();
    expect(events).toEqual([]);
    expect(store.head()).toBeNull();
    // Fetched again: a block that fails part-way drops the batch too.
    for (let n = 0; n <= 1; n++) expect(await live.execute(unit(block(n)))).toBe('next');
    const broken = block(2);
    (broken as { txs: unknown }).txs = null;
    await expect(live.execute(unit(broken))).rejects.toThrow();
    await live.flush();
    await store.settled();
    expect(store.head()).toBeNull();
    // The run ends between blocks (no `last`): flush writes the whole blocks it holds.
    for (let n = 0; n <= 2; n++) expect(await live.execute(unit(block(n)))).toBe('next');
    await live.flush();
    await store.settled();
    expect(store.head()).toEqual({ number: 2, hash: hashOf(2) });
    expect(events.filter((e) => e.kind === 'block').length).toBe(3);
  });
});

describe('the stage contract', () => {
  it('no stage names a driver or a mode: what differs lives in drivers/', () => {
    const dir = join(import.meta.dirname, '../stages');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.sort()).toEqual(['apply.ts', 'link.ts', 'prepare.ts']);
    for (const f of files) {
      const code = readFileSync(join(dir, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, f).not.toMatch(/\bmode\b|'history'|'live'|segment/i);
    }
  });
});
