/**
 * Issue AC end-to-end, the pools slice: pool state as of a block on the full devnet (real anvil,
 * which keeps every block's state; swap traffic on the Uniswap V2, V3 and V4 pools it deploys),
 * indexed from a late start (history segments) with a 24-block live window, and one `anvil_reorg`.
 *
 *  - ≥ 60 random (block, pool) pairs — in blocks written as history segments, across the chain,
 *    on the old fork before the reorg, on the new fork after it, inside the live window —
 *    `/pools/{address}?atBlock=N` (V4: `/pools/v4/{manager}/{pool_id}`) answers the state the node
 *    holds at N: V2 `getReserves()`, V3 `slot0()` (sqrtPriceX96, tick) and `liquidity()`, V4 the
 *    PoolManager's `Pool.State` words read with `extsload` (StateLibrary slots), anchored at
 *    (N, the node's hash of N); `/liquidity` at N answers the same native liquidity;
 *  - `/stats` at N: the windows the detail embeds at N, swaps counted up to N only;
 *  - `/ath` and `/atl` at N: the max / min price of the pool's swaps at or below N;
 *  - `atBlockHash` answers what `atBlock` does; /batch takes atBlock per pool item; the dropped fork's hash is 409 block_not_canonical,
 *    above the head 409 block_not_indexed, swaps and liquidity events refuse the parameters with 400
 *    (ticks answer as of a block: test/e2e/as-of-wallets.test.ts).
 */
import { keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeAt, reorgAndSettle, startAsOfIndex } from '../harness/as-of-devnet.js';
import type { TestDevnet } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { freezeNode } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const WINDOW = 24;

let dev: TestDevnet;
let idx: IndexerProcess;
const rand = mulberry32(20261129);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const { rpc, hashOf, words, pad } = nodeAt(() => dev.rpcUrl);
const int24 = (w: bigint) => Number(BigInt.asIntN(24, w));
const U160 = (1n << 160n) - 1n;
const U128 = (1n << 128n) - 1n;

/** A pool checked: the route's path, protocol and the block it was registered at. */
interface Pool {
  path: string;
  protocol: 'v2' | 'v3' | 'v4';
  address: string;
  poolId?: string;
  from: number;
}
let pools: Pool[] = [];

/** Native state as the route renders it, null fields where the pool has none yet. */
type Native = { reserve0?: string | null; reserve1?: string | null } & {
  sqrtPriceX96?: string | null;
  tick?: number | null;
  liquidity?: string | null;
};

/**
 * The pool's state the node holds at the end of block n, as the route renders it: V2 reserves
 * (base units), V3/V4 sqrtPriceX96 (Q64.96), tick and in-range liquidity L; a pool without reserves
 * or price yet has null fields. V4 reads `pools[poolId]` of the PoolManager (slot 6, StateLibrary):
 * word 0 = slot0 (sqrtPriceX96 low 160 bits, tick the next 24), word 3 = liquidity.
 */
async function nodeState(p: Pool, n: number): Promise<Native> {
  if (p.protocol === 'v2') {
    const [r0, r1] = await words(p.address, '0x0902f1ac', n);
    return r0 === 0n && r1 === 0n
      ? { reserve0: null, reserve1: null }
      : { reserve0: r0.toString(), reserve1: r1.toString() };
  }
  let sqrt: bigint;
  let tick: number;
  let liq: bigint;
  if (p.protocol === 'v3') {
    const s0 = await words(p.address, '0x3850c7bd', n);
    [sqrt, tick] = [s0[0], int24(s0[1])];
    [liq] = await words(p.address, '0x1a686502', n);
  } else {
    const slot = BigInt(keccak256(`0x${pad(p.poolId!)}${pad(6n)}`));
    const [w0] = await words(p.address, `0x1e2eaeaf${pad(slot)}`, n);
    const [wl] = await words(p.address, `0x1e2eaeaf${pad(slot + 3n)}`, n);
    [sqrt, tick, liq] = [w0 & U160, int24(w0 >> 160n), wl & U128];
  }
  if (sqrt === 0n) return { sqrtPriceX96: null, tick: null, liquidity: null };
  return { sqrtPriceX96: sqrt.toString(), tick, liquidity: liq.toString() };
}

/** The native fields of a route's liquidity object. */
const nativeOf = (l: Record<string, unknown>): Native =>
  l.kind === 'reserves'
    ? { reserve0: l.reserve0 as string | null, reserve1: l.reserve1 as string | null }
    : {
        sqrtPriceX96: l.sqrtPriceX96 as string | null,
        tick: l.tick as number | null,
        liquidity: l.liquidity as string | null,
      };

const fork = { base: 0, depth: 5, droppedHash: '', head: 0, historyEnd: 0 };
/** Pairs checked on the old fork (before the reorg replaced it). */
const oldFork = { pairs: 0 };
const seen = { pairs: 0, byProtocol: new Map<string, number>() };

/** Checks pool `p` at block n against the node: the detail's state and anchor; returns the state. */
async function checkPair(label: string, p: Pool, n: number): Promise<Native> {
  const r = await idx.get(`${p.path}?atBlock=${n}`);
  expect(r.status, r.text).toBe(200);
  expect(r.body.anchor, `${label} ${p.path} at ${n}`).toEqual({ block: n, hash: await hashOf(n) });
  const got = nativeOf(r.body.data.state);
  expect({ label, path: p.path, n, ...got }).toEqual({ label, path: p.path, n, ...(await nodeState(p, n)) });
  seen.pairs++;
  seen.byProtocol.set(p.protocol, (seen.byProtocol.get(p.protocol) ?? 0) + 1);
  return got;
}

beforeAll(async () => {
  ({ dev, idx, historyEnd: fork.historyEnd } = await startAsOfIndex(12, WINDOW));
  for (const d of dev.deployment.pools) {
    const protocol = d.protocol === 'uniswap-v2' ? 'v2' : d.protocol === 'uniswap-v3' ? 'v3' : 'v4';
    const path =
      protocol === 'v4' ? `/pools/v4/${d.address}/${d.poolId}` : `/pools/${d.address.toLowerCase()}`;
    const r = await idx.get(path);
    if (r.status === 200)
      pools.push({ path, protocol, address: d.address, poolId: d.poolId, from: r.body.data.created.block });
  }
  pools = pools.filter((p) => p.from < 80);
  // The old fork: freeze the node, let the index catch up, check pairs on the blocks the reorg
  // will drop, then replace them.
  const head = await freezeNode(dev.rpcUrl);
  await idx.waitForHead(head, 60_000);
  fork.base = head - fork.depth;
  fork.droppedHash = await hashOf(head - 1);
  for (let i = 0; i < 8; i++) {
    await checkPair('old fork', pick(pools), between(fork.base + 1, head));
    oldFork.pairs++;
  }
  fork.head = await reorgAndSettle(dev, idx, fork.depth);
  expect(await hashOf(head - 1)).not.toBe(fork.droppedHash);
}, 420_000);

afterAll(stopAll(() => [idx, dev]));

describe('pool state as of a block equals the node at that block', () => {
  it('≥ 60 random (block, pool) pairs: history segments, both sides of the reorg, the live window', async () => {
    expect(pools.filter((p) => p.protocol === 'v2').length, 'V2 pools').toBeGreaterThanOrEqual(1);
    expect(pools.filter((p) => p.protocol === 'v3').length, 'V3 pools').toBeGreaterThanOrEqual(1);
    expect(pools.filter((p) => p.protocol === 'v4').length, 'V4 pools').toBeGreaterThanOrEqual(1);
    expect(fork.historyEnd, 'blocks written as history segments').toBeGreaterThanOrEqual(60);
    const blocks: Array<[string, number]> = [];
    for (let i = 0; i < 15; i++) blocks.push(['history', between(1, fork.historyEnd)]);
    for (let i = 0; i < 12; i++) blocks.push(['chain', between(1, fork.head)]);
    for (let i = 0; i < 12; i++) blocks.push(['new fork', between(fork.base + 1, fork.head)]);
    for (let i = 0; i < 12; i++) blocks.push(['live', between(fork.head - WINDOW + 1, fork.head)]);
    for (let i = 0; i < 5; i++) blocks.push(['below the reorg', between(fork.base - 10, fork.base)]);
    const states = new Map<string, Set<string>>();
    for (const [side, n0] of blocks) {
      const p = pick(pools);
      const got = await checkPair(side, p, Math.max(n0, p.from));
      const set = states.get(p.path) ?? new Set<string>();
      set.add(JSON.stringify(got));
      states.set(p.path, set);
    }
    expect(seen.pairs, 'pairs, the old fork’s included').toBeGreaterThanOrEqual(60);
    expect(oldFork.pairs).toBeGreaterThanOrEqual(8);
    for (const pr of ['v2', 'v3', 'v4']) expect(seen.byProtocol.get(pr) ?? 0, pr).toBeGreaterThanOrEqual(5);
    // The answers are not the head's: some pool was read in more than one state.
    expect(
      [...states.values()].some((s) => s.size > 1),
      'a pool seen in two states',
    ).toBe(true);
  });

  it('/liquidity at N answers the detail’s native state; /stats at N the detail’s windows', async () => {
    for (const n0 of [fork.historyEnd - 3, fork.base, fork.base + 2, fork.head - 1]) {
      for (const p of pools.slice(0, 6)) {
        const n = Math.max(n0, p.from);
        const d = await idx.get(`${p.path}?atBlock=${n}`);
        const l = await idx.get(`${p.path}/liquidity?atBlock=${n}`);
        const s = await idx.get(`${p.path}/stats?atBlock=${n}`);
        for (const r of [l, s]) {
          expect(r.status, r.text).toBe(200);
          expect(r.body.anchor).toEqual(d.body.anchor);
        }
        expect(nativeOf(l.body.data.liquidity)).toEqual(nativeOf(d.body.data.state));
        for (const w of ['5m', '1h', '4h', '24h']) {
          const alone = s.body.data.windows[w];
          const embedded = d.body.data.stats.windows[w];
          // Both present, so the comparison below compares windows, not two absent fields.
          expect(alone, `${p.path} /stats at ${n}: window ${w}`).toBeTypeOf('object');
          expect(embedded, `${p.path} detail at ${n}: window ${w}`).toBeTypeOf('object');
          // /stats adds distinctTraders to the windows the detail embeds; every other field is equal.
          expect({ p: p.path, n, w, ...alone }).toMatchObject({ p: p.path, n, w, ...embedded });
        }
        expect(s.body.data.asOfTimestamp).toBe(d.body.data.stats.asOfTimestamp);
        const last = d.body.data.state.lastSwapBlock;
        if (last !== null) expect(last).toBeLessThanOrEqual(n);
      }
    }
  });

  it('atBlockHash answers what atBlock does', async () => {
    for (const n of [fork.base, fork.base + 2, fork.head - 1]) {
      const p = pick(pools);
      const byNumber = await idx.get(`${p.path}?atBlock=${n}`);
      const byHash = await idx.get(`${p.path}?atBlockHash=${await hashOf(n)}`);
      expect(byHash.status, byHash.text).toBe(200);
      expect(byHash.body).toEqual(byNumber.body);
    }
  });
});

describe('all-time high and low as of a block', () => {
  it('ath/atl at N: the max/min trade price of the swaps at or below N (a later trade of the day left out); swaps counted to N', async () => {
    const cross = (a: Price, b: Price) => BigInt(a.priceNumerator) * BigInt(b.priceDenominator);
    const cmp = (a: Price, b: Price) => cross(a, b) - cross(b, a);
    let compared = 0;
    for (const p of pools.filter((x) => x.protocol !== 'v4').slice(0, 4)) {
      const swaps = await allSwaps(p.path);
      for (const n of [p.from, fork.base - 10, fork.base + 2, fork.head - 1, between(p.from, fork.head)]) {
        const upTo = swaps.filter((x) => x.block <= n);
        const d = await idx.get(`${p.path}?atBlock=${n}`);
        expect({
          p: p.path,
          n,
          swaps: d.body.data.state.swaps,
          last: d.body.data.state.lastSwapBlock,
        }).toEqual({
          p: p.path,
          n,
          swaps: upTo.length,
          last: upTo.length ? Math.max(...upTo.map((x) => x.block)) : null,
        });
        for (const [kind, sign] of [
          ['ath', 1n],
          ['atl', -1n],
        ] as const) {
          const r = await idx.get(`${p.path}/${kind}?atBlock=${n}`);
          expect(r.status, r.text).toBe(200);
          expect(r.body.anchor).toEqual({ block: n, hash: await hashOf(n) });
          if (upTo.length === 0) {
            expect(r.body.data).toMatchObject({ price: null, priceReason: 'no_trades' });
            continue;
          }
          const want = upTo.reduce((b, x) => (cmp(x, b) * sign > 0n ? x : b));
          expect({ p: p.path, n, kind, same: cmp(r.body.data.price, want) === 0n }).toEqual({
            p: p.path,
            n,
            kind,
            same: true,
          });
          compared++;
        }
      }
    }
    expect(compared, 'extremes compared with trades').toBeGreaterThanOrEqual(10);
  });
});

type Price = { priceNumerator: string; priceDenominator: string };

/** Every swap of the pool at `path` (read at the head: swaps below it are final for this check). */
async function allSwaps(path: string): Promise<Array<Price & { block: number }>> {
  const out: Array<Price & { block: number }> = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; body: any; text: string } = await idx.get(
      `${path}/swaps?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return out;
}

describe('refusals', () => {
  it('/batch takes atBlock per pool item', async () => {
    const v2 = pools.find((x) => x.protocol !== 'v4')!;
    const v4 = pools.find((x) => x.protocol === 'v4')!;
    const [a, b] = [Math.max(fork.base - 5, v2.from, v4.from), fork.head - 1];
    const v4Params = { manager: v4.address, pool_id: v4.poolId };
    const r = await idx.post('/batch', {
      requests: [
        { route: 'pools.detail', params: { address: v2.address.toLowerCase(), atBlock: a } },
        { route: 'pools.v4Liquidity', params: { ...v4Params, atBlock: b } },
        { route: 'pools.detail', params: { address: v2.address.toLowerCase(), atBlock: fork.head + 5 } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const [ra, rb, rx] = r.body.results;
    expect(ra.body.anchor).toEqual({ block: a, hash: await hashOf(a) });
    expect(nativeOf(ra.body.data.state)).toEqual(await nodeState(v2, a));
    expect(rb.body.anchor).toEqual({ block: b, hash: await hashOf(b) });
    expect(nativeOf(rb.body.data.liquidity)).toEqual(await nodeState(v4, b));
    expect(rx.status).toBe(409);
    expect(rx.error.error).toBe('block_not_indexed');
  });

  it('the dropped fork, above the head, routes that do not answer as of a block', async () => {
    const p = pools.find((x) => x.protocol !== 'v4')!;
    const dropped = await idx.get(`${p.path}?atBlockHash=${fork.droppedHash}`);
    expect(dropped.status, dropped.text).toBe(409);
    expect(dropped.body.error).toBe('block_not_canonical');
    const above = await idx.get(`${p.path}/liquidity?atBlock=${fork.head + 1000}`);
    expect(above.status).toBe(409);
    expect(above.body).toMatchObject({ error: 'block_not_indexed', headBlock: fork.head });
    for (const suffix of ['/swaps', '/liquidity-events']) {
      const r = await idx.get(`${p.path}${suffix}?atBlock=${fork.base}`);
      expect(r.status, suffix).toBe(400);
      expect(r.body.error).toBe('bad_request');
    }
  });
});
