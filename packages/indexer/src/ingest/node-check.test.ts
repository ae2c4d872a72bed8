/**
 * The node-consistency check's verdicts (ingest/node-check.ts) against a node that answers from a
 * table of blocks: what is a node fault (a served block lost by number and by hash; a block whose
 * parent the node does not have), what is not (a node behind, a reorg), the pause and resume of
 * `hold`, and the move to the next node of the list. The end-to-end case against anvil behind the
 * fault proxy is test/e2e/node-inconsistent.test.ts.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Rpc } from '../rpc/client.js';
import type { Store } from '../storage/index.js';
import { createNodeCheck, createNodeSet, type PausableStatus } from './node-check.js';

const h = (tag: string, n: number) => `0x${tag}${n.toString(16).padStart(63 - tag.length, '0')}`;

/** A chain of `len` blocks with hashes h(tag, n), each linked to the previous. */
const chain = (tag: string, len: number) =>
  Array.from({ length: len }, (_, n) => ({
    number: `0x${n.toString(16)}`,
    hash: h(tag, n),
    parentHash: n ? h(tag, n - 1) : `0x${'0'.repeat(64)}`,
  }));

type B = ReturnType<typeof chain>[number];

/** A node answering from `blocks` (by number: the canonical list; by hash: also `extra`). */
function node(o: {
  blocks: B[];
  head?: number;
  lostByNumber?: Set<number>;
  lostByHash?: Set<string>;
  extra?: B[];
}): Rpc {
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      if (method === 'eth_blockNumber') return `0x${(o.head ?? o.blocks.length - 1).toString(16)}` as T;
      if (method === 'eth_getBlockByNumber') {
        const n = Number.parseInt(String(params[0]), 16);
        if (n > (o.head ?? o.blocks.length - 1) || o.lostByNumber?.has(n)) return null as T;
        return (o.blocks[n] ?? null) as T;
      }
      if (method === 'eth_getBlockByHash') {
        const hash = String(params[0]);
        if (o.lostByHash?.has(hash)) return null as T;
        return ([...o.blocks, ...(o.extra ?? [])].find((b) => b.hash === hash) ?? null) as T;
      }
      throw new Error(`unexpected ${method}`);
    },
  };
}

/** The store's view the check reads: head, canonical hashes, window. */
const storeOf = (ours: B[], window = 128) =>
  ({
    head: () => ({ number: ours.length - 1, hash: ours[ours.length - 1].hash }),
    canonicalHash: (n: number) => ours[n]?.hash,
    unfinalisedWindow: window,
  }) as unknown as Store;

const log = pino({ level: 'silent' });
const checkOf = (ours: B[], rpcs: Rpc[], window = 128) =>
  createNodeCheck({
    chain: 't',
    store: storeOf(ours, window),
    nodes: createNodeSet(
      rpcs.map((_, i) => `http://node-${i}`),
      (url) => rpcs[Number(url.split('-')[1])],
    ),
    log,
    intervalMs: 0,
  });

/** A follower's status while it follows, on the first of `count` nodes. */
const following = (count: number): PausableStatus => ({
  state: 'following',
  haltReason: null,
  nodeFault: null,
  node: { index: 0, count },
  nodeHead: null,
});

describe('node check', () => {
  it('a consistent node, a node behind and a reorg are not faults', async () => {
    const ours = chain('a', 30);
    expect(await checkOf(ours, [node({ blocks: chain('a', 40) })]).checkNow()).toBeNull();
    expect(await checkOf(ours, [node({ blocks: chain('a', 40), head: 20 })]).checkNow()).toBeNull();
    // The node replaced blocks 25.. (a reorg): its blocks differ from ours but link among themselves.
    const reorged = [...chain('a', 25), ...chain('b', 40).slice(25)];
    reorged[25] = { ...reorged[25], parentHash: h('a', 24) };
    expect(await checkOf(ours, [node({ blocks: reorged })]).checkNow()).toBeNull();
  });

  it('blocks the node served and can no longer return, by number nor by hash: block_missing', async () => {
    const ours = chain('a', 30);
    const lost = new Set([24, 25, 26]);
    const n = node({
      blocks: chain('a', 40),
      lostByNumber: lost,
      lostByHash: new Set([...lost].map((k) => h('a', k))),
    });
    const f = await checkOf(ours, [n]).checkNow();
    expect(f).toMatchObject({ kind: 'block_missing', block: 24, hash: h('a', 24), node: 0 });
    // Lost by number only (still returned by hash): not a fault.
    expect(await checkOf(ours, [node({ blocks: chain('a', 40), lostByNumber: lost })]).checkNow()).toBeNull();
  });

  it('a block whose parent the node does not have: parent_missing', async () => {
    const ours = chain('a', 30);
    // The node's next block (30) names a parent that is neither its block 29 nor any block it returns.
    const blocks = chain('a', 40);
    blocks[30] = { ...blocks[30], parentHash: h('c', 29) };
    const f = await checkOf(ours, [node({ blocks })]).checkNow();
    expect(f).toMatchObject({ kind: 'parent_missing', block: 30, missingParent: h('c', 29) });
  });

  it('hold pauses while the fault stands and resumes when the node agrees with itself again', async () => {
    const ours = chain('a', 30);
    const lostByNumber = new Set([28]);
    const lostByHash = new Set([h('a', 28)]);
    const c = checkOf(ours, [node({ blocks: chain('a', 35), lostByNumber, lostByHash })]);
    const status = following(1);
    await c.checkNow();
    expect(await c.hold(status)).toBe(true);
    expect(status).toMatchObject({
      state: 'paused',
      haltReason: 'node_inconsistent',
      nodeFault: { kind: 'block_missing', block: 28 },
    });
    lostByNumber.clear();
    lostByHash.clear();
    expect(await c.hold(status)).toBe(false);
    expect(status).toMatchObject({ state: 'starting', haltReason: null, nodeFault: null });
  });

  it('with another node in the list, hold moves to it and resumes there when it is consistent', async () => {
    const ours = chain('a', 30);
    const bad = node({
      blocks: chain('a', 35),
      lostByNumber: new Set([27]),
      lostByHash: new Set([h('a', 27)]),
    });
    const good = node({ blocks: chain('a', 35) });
    const c = checkOf(ours, [bad, good]);
    const status = following(2);
    expect(await c.checkNow()).toMatchObject({ node: 0 });
    expect(await c.hold(status)).toBe(false);
    expect(c.url()).toBe('http://node-1');
    expect(status).toMatchObject({ node: { index: 1, count: 2 }, state: 'starting', nodeFault: null });
  });
});
