/**
 * Issue AC end-to-end, the token slice: as-of-block reads on the full devnet (real anvil, which
 * keeps every block's state; traffic of ERC-20s, WETH, Uniswap, the launchpad), indexed with a
 * 24-block live window so the chain has a history part and a live part, and one `anvil_reorg`.
 *
 *  - ≥ 60 random (block, token, wallet) pairs across the chain — below the reorg, on the new fork
 *    above it, inside the live window, in blocks written as history segments — `/tokens/{t}/balance/{w}?atBlock=N` equals `eth_call
 *    balanceOf` at N, anchored at (N, the node's hash of N);
 *  - holders (by wallet id, paged) and top holders at N against balanceOf at N: every page at
 *    (N, hash), every row's balance, the ranking, holderCount and supply at N;
 *  - `atBlockHash` resolves to the same answer; a cursor minted at N stays at N, beside another
 *    block it is refused, and a cursor minted on a block the reorg dropped is `stale_cursor`;
 *  - refusals: above the head 409 block_not_indexed, the dropped block's hash 409
 *    block_not_canonical, a route that does not answer as of a block 400, and (restarted with
 *    HISTORY_RETENTION=20) 410 history_pruned naming the oldest retained block, /health's range,
 *    and a cursor minted below that range 409 cursor_history_pruned;
 *  - /batch takes atBlock per item.
 *
 * Tokens whose balances do not follow their events (fee-on-transfer, rebasing) are left out, as
 * in ingest-modes.test.ts: kinds standard, stable, weth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '../faults/lib.js';
import { reorgAndSettle, startLate } from '../harness/as-of-devnet.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const WINDOW = 24;
const SINKS = new Set([
  '0x0000000000000000000000000000000000000000',
  '0x000000000000000000000000000000000000dead',
]);

let dev: TestDevnet;
let idx: IndexerProcess;
const env: Record<string, string> = {};
const rand = mulberry32(20261128);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const hashOf = async (n: number) =>
  (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(n), false])).hash;
const call = async (to: string, data: string, n: number) =>
  BigInt(await rpc<string>('eth_call', [{ to, data }, hex(n)]));
const balanceOf = (t: string, w: string, n: number) =>
  call(t, `0x70a08231${w.slice(2).padStart(64, '0')}`, n);
const totalSupply = (t: string, n: number) => call(t, '0x18160ddd', n);

/** What the chain looked like around the reorg. */
const fork = { base: 0, depth: 0, droppedHash: '', staleCursor: '', staleToken: '', head: 0, historyEnd: 0 };
/** The tokens checked, with the block they were first seen at. */
let tokens: Array<{ address: string; from: number }> = [];
/** Wallets per token: every holder at the head, at the fork base and on the dropped fork. */
const wallets = new Map<string, Set<string>>();

/** Every wallet id holder of `t` at `at` (head when null), added to the token's wallet set. */
async function noteHolders(t: string, at: number | null) {
  const q = at === null ? '' : `&atBlock=${at}`;
  const r = await idx.get(`/tokens/${t}/holders?sort=wallet_id&limit=1000${q}`);
  expect(r.status, r.text).toBe(200);
  const set = wallets.get(t) ?? new Set<string>();
  for (const h of r.body.data) set.add(h.wallet);
  wallets.set(t, set);
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 250, traffic: true, txPerSecond: 25, seed: 11 });
  Object.assign(env, devnetIndexerEnv(dev), {
    FINALITY: 'window',
    UNFINALISED_WINDOW: String(WINDOW),
    TRACES: 'off',
  });
  // A late start: the first ~100 blocks are final by the time the indexer comes up, so they are
  // written as history segments (no undo, one write per key per segment), the rest block by block.
  idx = await startLate(dev, env);
  fork.historyEnd = (await idx.get('/health')).body.ingest.historyEnd;
  const byKind = dev.deployment.tokens.filter((t) => ['standard', 'stable', 'weth'].includes(t.kind));
  for (const t of byKind) {
    const d = await idx.get(`/tokens/${t.address}`);
    if (d.status === 200)
      tokens.push({ address: t.address.toLowerCase(), from: d.body.data.firstSeen.block });
  }
  tokens = tokens.filter((t) => t.from < 80);
  // The reorg: freeze the node, let the index catch up, note a block it will drop and a cursor
  // minted there, then replace the last blocks.
  const head = await freezeNode(dev.rpcUrl);
  await idx.waitForHead(head, 60_000);
  fork.depth = 5;
  fork.base = head - fork.depth;
  fork.droppedHash = await hashOf(head - 1);
  fork.staleToken = tokens[0].address;
  for (const t of tokens) {
    await noteHolders(t.address, head - 1);
    await noteHolders(t.address, fork.base);
  }
  const p = await idx.get(`/tokens/${fork.staleToken}/holders?sort=wallet_id&limit=1&atBlock=${head - 1}`);
  expect(p.body.anchor).toEqual({ block: head - 1, hash: fork.droppedHash });
  fork.staleCursor = p.body.page.nextCursor;
  fork.head = await reorgAndSettle(dev, idx, fork.depth);
  expect(await hashOf(head - 1)).not.toBe(fork.droppedHash);
  for (const t of tokens) await noteHolders(t.address, null);
}, 420_000);

afterAll(stopAll(() => [idx, dev]));

describe('balances as of a block equal balanceOf at that block', () => {
  it('≥ 60 random pairs: history segments, below the reorg, on the new fork, in the live window', async () => {
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    const blocks: Array<[string, number]> = [];
    expect(fork.historyEnd, 'blocks written as history segments').toBeGreaterThanOrEqual(60);
    for (let i = 0; i < 15; i++) blocks.push(['history', between(1, fork.historyEnd)]);
    for (let i = 0; i < 15; i++) blocks.push(['chain', between(1, fork.head)]);
    for (let i = 0; i < 15; i++) blocks.push(['fork', between(fork.base + 1, fork.head)]);
    for (let i = 0; i < 15; i++) blocks.push(['live', between(fork.head - WINDOW + 1, fork.head)]);
    for (let i = 0; i < 5; i++) blocks.push(['below', between(fork.base - 10, fork.base)]);
    const hashes = new Map<number, string>();
    const seen = { pairs: 0, nonZero: 0 };
    for (const [side, n0] of blocks) {
      const t = pick(tokens);
      const n = Math.max(n0, t.from);
      const w = pick([...(wallets.get(t.address) ?? [])]);
      if (!hashes.has(n)) hashes.set(n, await hashOf(n));
      const r = await idx.get(`/tokens/${t.address}/balance/${w}?atBlock=${n}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.anchor, `${side} block ${n}`).toEqual({ block: n, hash: hashes.get(n) });
      const want = await balanceOf(t.address, w, n);
      expect({ side, n, t: t.address, w, balance: r.body.data.balance }).toEqual({
        side,
        n,
        t: t.address,
        w,
        balance: want.toString(),
      });
      seen.pairs++;
      if (want !== 0n) seen.nonZero++;
    }
    expect(seen.pairs).toBeGreaterThanOrEqual(60);
    expect(seen.nonZero, 'pairs with a non-zero balance').toBeGreaterThanOrEqual(20);
  });

  it('atBlockHash answers what atBlock does', async () => {
    const t = tokens[0].address;
    const w = pick([...(wallets.get(t) ?? [])]);
    for (const n of [fork.base, fork.base + 2, fork.head - 1]) {
      const byNumber = await idx.get(`/tokens/${t}/balance/${w}?atBlock=${n}`);
      const byHash = await idx.get(`/tokens/${t}/balance/${w}?atBlockHash=${await hashOf(n)}`);
      expect(byHash.status, byHash.text).toBe(200);
      expect(byHash.body).toEqual(byNumber.body);
    }
  });
});

describe('holders and top holders as of a block', () => {
  it('every page at (N, hash); rows, ranking, holderCount and supply equal the chain at N', async () => {
    const samples = [fork.base - 30, fork.base, fork.base + 2, fork.head - 3, between(20, fork.base)];
    for (const n0 of samples) {
      const t = pick(tokens);
      const n = Math.max(n0, t.from);
      const anchor = { block: n, hash: await hashOf(n) };
      const byId = await walk(`/tokens/${t.address}/holders?sort=wallet_id&limit=7&atBlock=${n}`, anchor);
      const positive = new Map<string, bigint>();
      for (const h of byId.rows) {
        const want = await balanceOf(t.address, h.wallet, n);
        expect({ n, w: h.wallet, balance: h.balance }).toEqual({ n, w: h.wallet, balance: want.toString() });
        if (want > 0n && !SINKS.has(h.wallet)) positive.set(h.wallet, want);
      }
      expect(byId.last.holderCount).toMatchObject({ value: positive.size, asOfBlock: n, status: 'exact' });
      const top = await walk(`/tokens/${t.address}/top-holders?limit=4&atBlock=${n}`, anchor);
      expect(top.rows.map((r: { wallet: string }) => r.wallet).sort()).toEqual([...positive.keys()].sort());
      for (const [i, r] of top.rows.entries()) {
        expect(r.rank).toBe(i + 1);
        expect(BigInt(r.balance)).toBe(positive.get(r.wallet));
        if (i > 0) expect(BigInt(top.rows[i - 1].balance) >= BigInt(r.balance)).toBe(true);
      }
      expect(top.last.supplyFromTransfers).toBe((await totalSupply(t.address, n)).toString());
      const byBalance = await walk(`/tokens/${t.address}/holders?limit=5&atBlock=${n}`, anchor);
      expect(byBalance.rows.map((r: { wallet: string }) => r.wallet)).toEqual(
        top.rows.map((r: { wallet: string }) => r.wallet),
      );
    }
  });

  it('a cursor minted at N stays at N; beside another block it is refused; a dropped fork is stale', async () => {
    const t = tokens[0].address;
    const n = fork.base;
    const first = await idx.get(`/tokens/${t}/holders?sort=wallet_id&limit=1&atBlock=${n}`);
    const cursor = first.body.page.nextCursor;
    expect(cursor).toBeTruthy();
    const next = await idx.get(`/tokens/${t}/holders?sort=wallet_id&limit=1&cursor=${cursor}`);
    expect(next.status, next.text).toBe(200);
    expect(next.body.anchor).toEqual(first.body.anchor);
    const beside = await idx.get(
      `/tokens/${t}/holders?sort=wallet_id&limit=1&cursor=${cursor}&atBlock=${n + 1}`,
    );
    expect(beside.status).toBe(400);
    expect(beside.body.error).toBe('bad_request');
    const stale = await idx.get(
      `/tokens/${fork.staleToken}/holders?sort=wallet_id&limit=1&cursor=${fork.staleCursor}`,
    );
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.error).toBe('stale_cursor');
  });
});

/** Every page of `path` (anchored at `anchor` on each page) and the last page's body. */
async function walk(path: string, anchor: { block: number; hash: string }) {
  const rows: any[] = [];
  let cursor: string | null = null;
  let last: any = null;
  do {
    const r: { status: number; body: any; text: string } = await idx.get(
      cursor ? `${path}&cursor=${cursor}` : path,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.anchor).toEqual(anchor);
    rows.push(...r.body.data);
    last = r.body;
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return { rows, last };
}

describe('refusals and /batch', () => {
  it('above the head, a dropped hash, a route that does not answer as of a block', async () => {
    const t = tokens[0].address;
    const w = pick([...(wallets.get(t) ?? [])]);
    const above = await idx.get(`/tokens/${t}/balance/${w}?atBlock=${fork.head + 1000}`);
    expect(above.status).toBe(409);
    expect(above.body).toMatchObject({
      error: 'block_not_indexed',
      requestedBlock: fork.head + 1000,
      headBlock: fork.head,
    });
    const dropped = await idx.get(`/tokens/${t}/top-holders?atBlockHash=${fork.droppedHash}`);
    expect(dropped.status).toBe(409);
    expect(dropped.body.error).toBe('block_not_canonical');
    for (const path of [`/tokens/${t}/swaps`, `/tokens/${t}/transfers`, `/blocks/${fork.base}`]) {
      const r = await idx.get(`${path}?atBlock=${fork.base}`);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toBe('bad_request');
    }
    const both = await idx.get(`/tokens/${t}/balance/${w}?atBlock=1&atBlockHash=${await hashOf(1)}`);
    expect(both.status).toBe(400);
  });

  it('/batch takes atBlock per item', async () => {
    const t = tokens[0].address;
    const w = pick([...(wallets.get(t) ?? [])]);
    const [a, b] = [fork.base - 5, fork.head - 1];
    const r = await idx.post('/batch', {
      requests: [
        { route: 'tokens.balance', params: { address: t, wallet: w, atBlock: a } },
        { route: 'tokens.balance', params: { address: t, wallet: w, atBlock: b } },
        { route: 'tokens.topHolders', params: { address: t, limit: 3, atBlock: a } },
        { route: 'tokens.balance', params: { address: t, wallet: w, atBlock: fork.head + 5 } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const [ra, rb, rt, rx] = r.body.results;
    expect(ra.body.anchor).toEqual({ block: a, hash: await hashOf(a) });
    expect(ra.body.data.balance).toBe((await balanceOf(t, w, a)).toString());
    expect(rb.body.anchor).toEqual({ block: b, hash: await hashOf(b) });
    expect(rb.body.data.balance).toBe((await balanceOf(t, w, b)).toString());
    expect(rt.body.anchor.block).toBe(a);
    expect(rx.status).toBe(409);
    expect(rx.error.error).toBe('block_not_indexed');
  });

  it('/health shows the retained range; HISTORY_RETENTION=20 refuses older blocks with 410', async () => {
    const all = (await idx.get('/health')).body.history;
    expect(all).toMatchObject({ retention: 'all', headBlock: fork.head, enforcement: 'reads' });
    expect(all.oldestRetainedBlock).toBeLessThanOrEqual(1);
    const t = tokens[0].address;
    const w = pick([...(wallets.get(t) ?? [])]);
    // A cursor minted at a block the bounded retention below leaves out.
    const early = await idx.get(`/tokens/${t}/holders?sort=wallet_id&limit=1&atBlock=${fork.head - 21}`);
    expect(early.status, early.text).toBe(200);
    const earlyCursor = early.body.page.nextCursor;
    expect(earlyCursor).toBeTruthy();
    // The same store served again under a bounded retention (restart re-reads the env).
    env.HISTORY_RETENTION = '20';
    await idx.sigterm();
    await idx.restart();
    await idx.waitForHead(fork.head, 60_000);
    const h = (await idx.get('/health')).body.history;
    // A number of blocks prunes the stored versions too (storage/history-prune.ts): the pruner's
    // mark never passes the oldest block a read may name.
    expect(h).toMatchObject({
      retention: 20,
      oldestRetainedBlock: fork.head - 20,
      headBlock: fork.head,
      enforcement: 'pruned',
    });
    expect(h.prunedBelow ?? 0).toBeLessThanOrEqual(fork.head - 20);
    const old = await idx.get(`/tokens/${t}/balance/${w}?atBlock=${fork.head - 21}`);
    expect(old.status, old.text).toBe(410);
    expect(old.body).toMatchObject({
      error: 'history_pruned',
      requestedBlock: fork.head - 21,
      oldestRetainedBlock: fork.head - 20,
    });
    const byHash = await idx.get(`/tokens/${t}/holders?atBlockHash=${await hashOf(5)}`);
    expect(byHash.status).toBe(410);
    const replay = await idx.get(`/tokens/${t}/holders?sort=wallet_id&limit=1&cursor=${earlyCursor}`);
    expect(replay.status, replay.text).toBe(409);
    expect(replay.body).toMatchObject({
      error: 'cursor_history_pruned',
      anchorBlock: fork.head - 21,
      oldestRetainedBlock: fork.head - 20,
    });
    const edge = await idx.get(`/tokens/${t}/balance/${w}?atBlock=${fork.head - 20}`);
    expect(edge.status, edge.text).toBe(200);
    expect(edge.body.data.balance).toBe((await balanceOf(t, w, fork.head - 20)).toString());
  });
});
