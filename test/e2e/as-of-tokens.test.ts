/**
 * Issue AC end-to-end, the token market slice: token detail, overview, stats, price, mcap,
 * liquidity, venue, ath/atl, pools aggregate and ranked pools as of a block on the full devnet
 * (real anvil, which keeps every block's state; ERC-20, WETH and Uniswap V2/V3/V4 swap traffic),
 * indexed from a late start (history segments) with a 24-block live window, and one `anvil_reorg`.
 *
 *  - random (block, token) pairs — in blocks written as history segments, across the chain, on the
 *    old fork before the reorg, on the new fork after it, inside the live window — each route at N
 *    is anchored at (N, the node's hash of N) and answers what the node holds at N:
 *    supplyFromTransfers (detail, overview, mcap) = `totalSupply()` at N; the price (price, mcap,
 *    overview) = the default venue's `getReserves()` (V2) or `slot0()` (V3) or `Pool.State`
 *    (V4, `extsload`) at N, oriented quote per token; mcap = that price × that supply; the pair
 *    liquidity = the sum of the V2 reserves and each V3/V4 pool's sqrtPriceX96, tick and L at N;
 *    ranked pools by liquidity: each pool's quote-side amount from its state at N;
 *  - at N the stats route answers the detail's embedded stats; the pools aggregate lists the pools
 *    registered by N with the 24h volume and trades the pool stats route answers at N; the venue
 *    candidates the same figures; token ath/atl the extreme over the pools' ath/atl at N;
 *  - the launch at N is the detail's launch at N, and its state is the launchpad's `curves(token)`
 *    at N on the node (graduated or not, the creator), on both sides of a graduation; the traders
 *    at N are the ranking of the token's swaps at or below N in the window ending at N's timestamp
 *    (the event list read at the head, cut at N); the screener at N (pool grain, WETH quote) lists
 *    exactly the pools registered by N with a swap at or before N, each with the 24h and 5m figures
 *    the pool stats route answers at N and the base's holder count of the token detail at N;
 *  - atBlockHash answers what atBlock does; before the token's first sight 404; a cursor of the
 *    ranked pools (and of the traders) minted at N stays at N; /batch per item; refusals above the
 *    head and for the dropped fork's hash.
 *
 * Tokens whose balances do not follow their events (fee-on-transfer, rebasing) are left out (their
 * supply from transfers is not totalSupply()): kinds standard, stable, weth.
 */
import { keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '../faults/lib.js';
import { reorgAndSettle, startAsOfIndex } from '../harness/as-of-devnet.js';
import type { TestDevnet } from '../harness/devnet.js';
import type { IndexerProcess } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import {
  invertRatio,
  nativeAmounts,
  nativePrice,
  nodePoolState,
  type Ratio,
  sameRatio,
} from '../harness/node-pool-state.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { mulberry32 } from '../harness/rpc-proxy.js';

const WINDOW = 24;

let dev: TestDevnet;
let idx: IndexerProcess;
const rand = mulberry32(20261130);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const rpc = <T = any>(method: string, params: unknown[] = []) => jsonRpc<T>(dev.rpcUrl, method, params);
const hashes = new Map<number, string>();
const hashOf = async (n: number) => {
  const h = (await rpc<{ hash: string }>('eth_getBlockByNumber', [hex(n), false])).hash;
  hashes.set(n, h);
  return h;
};
const totalSupply = async (t: string, n: number) =>
  BigInt(await rpc<string>('eth_call', [{ to: t, data: '0x18160ddd' }, hex(n)])).toString();

/** A registered pool of a token, as the index lists it at the head. */
interface PoolOf {
  key: string;
  protocol: 'v2' | 'v3' | 'v4' | 'launchpad';
  contract: string;
  poolId: string | null;
  currency0: string;
  currency1: string;
  created: number;
}
/** A token checked: its first-sight block and its pools (registration block each). */
interface Tok {
  address: string;
  from: number;
  pools: PoolOf[];
}
let tokens: Tok[] = [];

/** A route's exact rational as a {@link Ratio}. */
const ratioOf = (
  p: { priceNumerator: string; priceDenominator: string } | { numerator: string; denominator: string },
) =>
  'priceNumerator' in p
    ? { n: BigInt(p.priceNumerator), d: BigInt(p.priceDenominator) }
    : { n: BigInt(p.numerator), d: BigInt(p.denominator) };
const counterOf = (p: PoolOf, t: string) => (p.currency0 === t ? p.currency1 : p.currency0);

/** The node's state of a listed pool at n (null for a launchpad curve: no node reader here). */
const nodeState = (p: Pick<PoolOf, 'protocol' | 'contract' | 'poolId'>, n: number) =>
  p.protocol === 'launchpad'
    ? null
    : nodePoolState(dev.rpcUrl, { protocol: p.protocol, address: p.contract, poolId: p.poolId }, n);

/** The node's price of `pool` for token t at n, quote base units per token base unit. */
async function nodeTokenPrice(t: Tok, poolKey: string, n: number): Promise<Ratio | null | undefined> {
  const p = t.pools.find((x) => x.key === poolKey);
  expect(p, `venue ${poolKey} is a pool of ${t.address}`).toBeTruthy();
  const st = await nodeState(p!, n);
  if (!st) return undefined;
  const price = nativePrice(st);
  return price && (p!.currency0 === t.address ? price : invertRatio(price));
}

/** Node comparisons made, per route; and those on the old fork (before the reorg dropped it). */
const pairs = new Map<string, number>();
const oldFork = { pairs: 0 };
const count = (route: string) => pairs.set(route, (pairs.get(route) ?? 0) + 1);
const total = () => [...pairs.values()].reduce((a, b) => a + b, 0);
/** The (supply, price) answers seen per token: the reads are not all the head's. */
const seenFigures = new Map<string, Set<string>>();

/** GET `path` at N: 200, anchored at (N, the node's hash of N); returns the data. */
async function at(path: string, n: number): Promise<any> {
  const sep = path.includes('?') ? '&' : '?';
  const r = await idx.get(`${path}${sep}atBlock=${n}`);
  expect(r.status, `${path} at ${n}: ${r.text}`).toBe(200);
  expect(r.body.anchor, `${path} at ${n}`).toEqual({ block: n, hash: hashes.get(n) ?? (await hashOf(n)) });
  return r.body.data;
}

/** Checks an answered price against the node's price of its venue at n (skipped for a curve). */
async function checkPrice(label: string, t: Tok, n: number, venue: string, got: any): Promise<boolean> {
  const want = await nodeTokenPrice(t, venue, n);
  if (want === undefined) return false;
  const same = got === null ? want === null : want !== null && sameRatio(ratioOf(got), want);
  expect({ label, t: t.address, n, venue, same }).toEqual({ label, t: t.address, n, venue, same: true });
  return true;
}

/** The quotes of t whose pools are all registered by n. */
const quotesAt = (t: Tok, n: number) =>
  [...new Set(t.pools.filter((p) => p.created <= n).map((p) => counterOf(p, t.address)))].filter((q) =>
    t.pools.filter((p) => counterOf(p, t.address) === q).every((p) => p.created <= n),
  );

/** Detail, overview, stats, price, mcap, liquidity and ranked pools of t at n against the node. */
async function checkToken(label: string, t: Tok, n: number): Promise<void> {
  await hashOf(n);
  const supply = await totalSupply(t.address, n);
  const d = await at(`/tokens/${t.address}`, n);
  expect({ label, n, t: t.address, supply: d.supplyFromTransfers }).toEqual({
    label,
    n,
    t: t.address,
    supply,
  });
  expect(d.holderCount.asOfBlock).toBe(n);
  count('detail');
  if (!t.pools.some((p) => p.created <= n)) {
    const none = await idx.get(`/tokens/${t.address}/overview?atBlock=${n}`);
    expect(none.status, `no pool registered by ${n}: ${none.text}`).toBe(404);
    return;
  }
  const o = await at(`/tokens/${t.address}/overview`, n);
  expect({ label, n, supply: o.supplyFromTransfers }).toEqual({ label, n, supply });
  if (o.market.venue && (await checkPrice(`${label} overview`, t, n, o.market.venue.pool, o.market.price))) {
    if (o.market.price)
      expect(
        sameRatio(ratioOf(o.market.marketCap), {
          n: ratioOf(o.market.price).n * BigInt(supply),
          d: ratioOf(o.market.price).d,
        }),
      ).toBe(true);
    count('overview');
  }
  const s = await idx.get(`/tokens/${t.address}/stats?atBlock=${n}`);
  if (s.status === 200) {
    const { token: _t, ...body } = s.body.data;
    expect(body).toEqual(d.stats);
  } else expect(d.statsReason).toBe('quote_ambiguous');
  const quotes = quotesAt(t, n);
  if (!quotes.length) return;
  const q = pick(quotes);
  const p = await at(`/tokens/${t.address}/price?quote=${q}`, n);
  if (await checkPrice(`${label} price`, t, n, p.venue.pool, p.price)) count('price');
  const m = await at(`/tokens/${t.address}/mcap?quote=${q}`, n);
  expect({ label, n, supply: m.supply, venue: m.venue, price: m.price }).toEqual({
    label,
    n,
    supply,
    venue: p.venue,
    price: p.price,
  });
  if (m.price) {
    const r = ratioOf(m.price);
    expect(sameRatio(ratioOf(m.marketCap), { n: r.n * BigInt(supply), d: r.d })).toBe(true);
  }
  count('mcap');
  const figures = seenFigures.get(t.address) ?? new Set<string>();
  seenFigures.set(t.address, figures.add(`${q} ${supply} ${JSON.stringify(m.price)}`));
  await checkLiquidity(label, t, q, n);
  await checkRanked(label, t, n);
}

/** The pair liquidity of (t, q) at n: reserves summed, concentrated pools one by one, as the node holds. */
async function checkLiquidity(label: string, t: Tok, q: string, n: number): Promise<void> {
  const l = await at(`/tokens/${t.address}/liquidity?quote=${q}`, n);
  const pair = t.pools.filter((p) => counterOf(p, t.address) === q && p.created <= n);
  if (pair.some((p) => p.protocol === 'launchpad')) return;
  let [tokenReserve, quoteReserve] = [0n, 0n];
  const reservesPools: string[] = [];
  const concentrated: unknown[] = [];
  for (const p of pair) {
    const st = (await nodeState(p, n))!;
    const base = p.currency0 === t.address;
    if (p.protocol === 'v2') {
      if (!st.reserve0 || !st.reserve1) continue;
      tokenReserve += BigInt(base ? st.reserve0 : st.reserve1);
      quoteReserve += BigInt(base ? st.reserve1 : st.reserve0);
      reservesPools.push(p.key);
    } else
      concentrated.push({
        pool: p.key,
        sqrtPriceX96: st.sqrtPriceX96,
        tick: st.tick,
        liquidity: st.liquidity,
      });
  }
  expect({ label, n, t: t.address, q, ...l.reserves, pools: [...l.reserves.pools].sort() }).toEqual({
    label,
    n,
    t: t.address,
    q,
    tokenReserve: tokenReserve.toString(),
    quoteReserve: quoteReserve.toString(),
    pools: reservesPools.sort(),
  });
  const got = l.concentrated.map((c: any) => ({
    pool: c.pool,
    sqrtPriceX96: c.sqrtPriceX96,
    tick: c.tick,
    liquidity: c.liquidity,
  }));
  const byPool = (a: any, b: any) => (a.pool < b.pool ? -1 : 1);
  expect({ label, n, q, concentrated: got.sort(byPool) }).toEqual({
    label,
    n,
    q,
    concentrated: concentrated.sort(byPool),
  });
  count('liquidity');
}

/** Ranked pools by liquidity at n: the pools registered by n, each quote-side amount from the node's state. */
async function checkRanked(label: string, t: Tok, n: number): Promise<void> {
  const r = await idx.get(`/tokens/${t.address}/pools/ranked?sort=liquidity&limit=100&atBlock=${n}`);
  expect(r.status, r.text).toBe(200);
  expect(r.body.anchor).toEqual({ block: n, hash: hashes.get(n) });
  const rows = r.body.data as any[];
  expect(rows.map((x) => x.key).sort()).toEqual(
    t.pools
      .filter((p) => p.created <= n)
      .map((p) => p.key)
      .sort(),
  );
  let compared = 0;
  for (const row of rows) {
    const p = t.pools.find((x) => x.key === row.key)!;
    const st = await nodeState(p, n);
    if (!st) continue;
    const amounts = nativeAmounts(st);
    const want = amounts ? amounts[p.currency0 === t.address ? 1 : 0] : null;
    const got = row.quoteSideAmount ? ratioOf(row.quoteSideAmount) : null;
    const same = got === null || want === null ? got === want : sameRatio(got, want);
    expect({ label, n, pool: row.key, same }).toEqual({ label, n, pool: row.key, same: true });
    compared++;
  }
  if (compared) count('pools ranked');
}

const fork = { base: 0, depth: 5, droppedHash: '', head: 0, historyEnd: 0 };

/** A ranked-pools row as the checks use it (`created`: the block that registered the pool). */
const poolOf = (p: any) => ({
  key: p.key,
  protocol: p.protocol,
  contract: p.contract,
  poolId: p.poolId,
  currency0: p.currency0,
  currency1: p.currency1,
  created: p.created.block,
});

beforeAll(async () => {
  ({ dev, idx, historyEnd: fork.historyEnd } = await startAsOfIndex(13, WINDOW));
  for (const t of dev.deployment.tokens.filter((x) => ['standard', 'stable', 'weth'].includes(x.kind))) {
    const address = t.address.toLowerCase();
    const d = await idx.get(`/tokens/${address}`);
    const r = await idx.get(`/tokens/${address}/pools/ranked?limit=100`);
    if (d.status !== 200 || r.status !== 200) continue;
    tokens.push({ address, from: d.body.data.firstSeen.block, pools: (r.body.data as any[]).map(poolOf) });
  }
  tokens = tokens.filter((t) => t.from < 80 && t.pools.some((p) => p.created < 80));
  // The old fork: freeze the node, let the index catch up, check pairs on the blocks the reorg
  // will drop, then replace them.
  const head = await freezeNode(dev.rpcUrl);
  await idx.waitForHead(head, 60_000);
  fork.base = head - fork.depth;
  fork.droppedHash = await hashOf(head - 1);
  for (let i = 0; i < 6; i++) {
    const before = total();
    await checkToken('old fork', pick(tokens), between(fork.base + 1, head));
    oldFork.pairs += total() - before;
  }
  hashes.clear();
  fork.head = await reorgAndSettle(dev, idx, fork.depth);
  expect(await hashOf(head - 1)).not.toBe(fork.droppedHash);
  // The pools as the new fork holds them: the traffic runs on for a few blocks after the reorg
  // (pools made then), and pools made in the dropped blocks are made again elsewhere or not at all.
  for (const t of tokens) {
    const r = await idx.get(`/tokens/${t.address}/pools/ranked?limit=100`);
    expect(r.status, r.text).toBe(200);
    t.pools = (r.body.data as any[]).map(poolOf);
  }
}, 600_000);

afterAll(stopAll(() => [idx, dev]));

describe('token market figures as of a block equal the node at that block', () => {
  it('random (block, token) pairs: history segments, both sides of the reorg, the live window', async () => {
    expect(tokens.length, 'tokens').toBeGreaterThanOrEqual(5);
    expect(fork.historyEnd, 'blocks written as history segments').toBeGreaterThanOrEqual(60);
    const blocks: Array<[string, number]> = [];
    for (let i = 0; i < 12; i++) blocks.push(['history', between(1, fork.historyEnd)]);
    for (let i = 0; i < 8; i++) blocks.push(['chain', between(1, fork.head)]);
    for (let i = 0; i < 8; i++) blocks.push(['new fork', between(fork.base + 1, fork.head)]);
    for (let i = 0; i < 8; i++) blocks.push(['live', between(fork.head - WINDOW + 1, fork.head)]);
    for (let i = 0; i < 4; i++) blocks.push(['below the reorg', between(fork.base - 10, fork.base)]);
    for (const [side, n0] of blocks) {
      const t = pick(tokens);
      await checkToken(side, t, Math.max(n0, t.from));
    }
    const byRoute = Object.fromEntries(pairs);
    console.log(
      `as-of tokens: ${total()} (route, block, token) pairs against the node`,
      byRoute,
      `old fork ${oldFork.pairs}`,
    );
    expect(total(), 'pairs, the old fork’s included').toBeGreaterThanOrEqual(150);
    expect(oldFork.pairs).toBeGreaterThanOrEqual(10);
    for (const r of ['detail', 'overview', 'price', 'mcap', 'liquidity', 'pools ranked'])
      expect(pairs.get(r) ?? 0, r).toBeGreaterThanOrEqual(10);
    // The answers are not the head's: some token was read at two supplies or two prices.
    expect(
      [...seenFigures.values()].some((x) => x.size > 1),
      'a token seen with two figures',
    ).toBe(true);
  });

  it('atBlockHash answers what atBlock does; before first sight 404', async () => {
    const t = tokens[0];
    for (const n of [fork.base, fork.base + 2, fork.head - 1]) {
      for (const path of [
        `/tokens/${t.address}`,
        `/tokens/${t.address}/overview`,
        `/tokens/${t.address}/pools/ranked`,
      ]) {
        const byNumber = await idx.get(`${path}?atBlock=${n}`);
        const byHash = await idx.get(`${path}?atBlockHash=${await hashOf(n)}`);
        expect(byHash.status, byHash.text).toBe(200);
        expect(byHash.body).toEqual(byNumber.body);
      }
    }
    const early = tokens.find((x) => x.from > 1);
    if (early) {
      const r = await idx.get(`/tokens/${early.address}/overview?atBlock=${early.from - 1}`);
      expect(r.status, r.text).toBe(404);
    }
  });
});

/** Every swap of pool p (read at the head, cached: swaps at or below a block are final here). */
const swapCache = new Map<string, Array<{ block: number; price: Ratio }>>();
async function swapsOf(p: PoolOf): Promise<Array<{ block: number; price: Ratio }>> {
  const cached = swapCache.get(p.key);
  if (cached) return cached;
  const path = p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.contract}`;
  const out: Array<{ block: number; price: Ratio }> = [];
  let cursor: string | null = null;
  do {
    const r: { status: number; body: any; text: string } = await idx.get(
      `${path}/swaps?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(r.status, r.text).toBe(200);
    for (const x of r.body.data) out.push({ block: x.block, price: ratioOf(x) });
    cursor = r.body.page.nextCursor;
  } while (cursor);
  swapCache.set(p.key, out);
  return out;
}

describe('the figures the routes share at N agree', () => {
  it('pools aggregate and venue candidates: the pools registered by N with their 24h figures of the pool stats at N; ath/atl = the extreme trade price of the pair’s swaps at or below N', async () => {
    let compared = 0;
    for (const n0 of [fork.historyEnd - 5, fork.base, fork.base + 3, fork.head - 2]) {
      const t = pick(tokens);
      const n = Math.max(n0, t.from);
      await hashOf(n);
      const agg = await at(`/tokens/${t.address}/pools/aggregate`, n);
      const listed = agg.groups.flatMap((g: any) =>
        g.pools.map((p: any) => ({ ...p, counter: g.counterCurrency })),
      );
      expect(listed.map((p: any) => p.key).sort()).toEqual(
        t.pools
          .filter((p) => p.created <= n)
          .map((p) => p.key)
          .sort(),
      );
      for (const p of listed) {
        const path =
          p.protocol === 'v4'
            ? `/pools/v4/${p.contract}/${p.poolId}`
            : p.protocol === 'launchpad'
              ? null
              : `/pools/${p.address}`;
        if (!path) continue;
        const day = (await at(`${path}/stats`, n)).windows['24h'];
        const quoteSide = p.currency0 === t.address ? day.volume1 : day.volume0;
        expect({ n, pool: p.key, v: p.volume24hQuote, trades: p.trades24h }).toEqual({
          n,
          pool: p.key,
          v: quoteSide,
          trades: day.trades,
        });
        compared++;
      }
      const v = await at(`/tokens/${t.address}/venue`, n);
      for (const qv of v.quotes)
        for (const c of qv.candidates) {
          const a = listed.find((p: any) => p.key === c.pool);
          expect({ n, pool: c.pool, v: c.volume24hQuote, trades: c.trades24h }).toEqual({
            n,
            pool: c.pool,
            v: a.volume24hQuote,
            trades: a.trades24h,
          });
        }
      const quotes = quotesAt(t, n).filter((c) =>
        t.pools.every((p) => counterOf(p, t.address) !== c || p.protocol !== 'launchpad'),
      );
      if (!quotes.length) continue;
      const q = pick(quotes);
      for (const [kind, sign] of [
        ['ath', 1n],
        ['atl', -1n],
      ] as const) {
        const x = await at(`/tokens/${t.address}/${kind}?quote=${q}`, n);
        let best: Ratio | null = null;
        for (const p of t.pools.filter((y) => counterOf(y, t.address) === q && y.created <= n)) {
          const base = p.currency0 === t.address;
          for (const sw of (await swapsOf(p)).filter((y) => y.block <= n)) {
            const r = base ? sw.price : invertRatio(sw.price);
            if (!best || (r.n * best.d - best.n * r.d) * sign > 0n) best = r;
          }
        }
        const same = x.price === null ? best === null : best !== null && sameRatio(ratioOf(x.price), best);
        expect({ n, t: t.address, q, kind, same }).toEqual({ n, t: t.address, q, kind, same: true });
      }
    }
    expect(compared, 'aggregate pools compared').toBeGreaterThanOrEqual(8);
  });

  it('a ranked-pools cursor minted at N (also the overview’s) stays at N', async () => {
    const t = [...tokens].sort((a, b) => b.pools.length - a.pools.length)[0];
    const n = fork.base;
    const anchor = { block: n, hash: await hashOf(n) };
    const first = await idx.get(`/tokens/${t.address}/pools/ranked?limit=1&atBlock=${n}`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.anchor).toEqual(anchor);
    const cursor = first.body.page.nextCursor;
    expect(cursor, 'a token with more than one pool').toBeTruthy();
    const next = await idx.get(`/tokens/${t.address}/pools/ranked?limit=1&cursor=${cursor}`);
    expect(next.status, next.text).toBe(200);
    expect(next.body.anchor).toEqual(anchor);
    const beside = await idx.get(
      `/tokens/${t.address}/pools/ranked?limit=1&cursor=${cursor}&atBlock=${n + 1}`,
    );
    expect(beside.status).toBe(400);
  });
});

/** Every row of a paged route at the head (limit 1000 a page). */
async function walkAll(path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const r: { status: number; body: any; text: string } = await idx.get(
      `${path}${sep}limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return out;
}

/** The node's timestamp of block n (seconds). */
const timestampOf = async (n: number) =>
  Number((await rpc<{ timestamp: string }>('eth_getBlockByNumber', [hex(n), false])).timestamp);

/** The first second of a window of `secs` ending at `ts`: whole 1-minute buckets (markets/windows.ts). */
const windowFrom = (ts: number, secs: number) => Math.floor((ts - secs) / 60) * 60 + 60;

/** The launchpad's `curves(token)` at n on the node: whether the curve graduated, and its creator. */
async function nodeCurve(token: string, n: number): Promise<{ graduated: boolean; creator: string }> {
  const selector = keccak256(toHex('curves(address)')).slice(0, 10);
  const data = `${selector}${token.slice(2).padStart(64, '0')}`;
  const out = await rpc<string>('eth_call', [{ to: dev.deployment.launchpad.address, data }, hex(n)]);
  const word = (i: number) => out.slice(2 + 64 * i, 2 + 64 * (i + 1));
  return { graduated: BigInt(`0x${word(2)}`) !== 0n, creator: `0x${word(3).slice(24)}` };
}

/** The traders ranking of t against q in a window of `secs` at n, from its swaps (read at the head) at or below n. */
function tradersFrom(swaps: any[], n: number, from: number) {
  const agg = new Map<string, { trades: number; buys: number; sells: number; vt: bigint; vq: bigint }>();
  for (const s of swaps) {
    if (s.block > n || s.timestamp < from) continue;
    const a = agg.get(s.executor) ?? { trades: 0, buys: 0, sells: 0, vt: 0n, vq: 0n };
    a.trades++;
    if (s.side === 'buy') a.buys++;
    else a.sells++;
    a.vt += BigInt(s.amountToken);
    a.vq += BigInt(s.amountQuote);
    agg.set(s.executor, a);
  }
  return [...agg.entries()]
    .sort((x, y) => (y[1].vq > x[1].vq ? 1 : y[1].vq < x[1].vq ? -1 : x[0] < y[0] ? -1 : 1))
    .map(([trader, a], i) => ({
      rank: i + 1,
      trader,
      trades: a.trades,
      buys: a.buys,
      sells: a.sells,
      volumeToken: a.vt.toString(),
      volumeQuote: a.vq.toString(),
    }));
}

/** The stats path of a listed pool (null for a launchpad curve). */
const statsPath = (p: PoolOf) =>
  p.protocol === 'launchpad'
    ? null
    : p.protocol === 'v4'
      ? `/pools/v4/${p.contract}/${p.poolId}/stats`
      : `/pools/${p.contract}/stats`;

/** Checks the screener at n (pool grain, quote q, window w) against the pool stats and token detail at n. */
async function checkScreener(
  q: string,
  n: number,
  w: '24h' | '5m',
  byKey: Map<string, PoolOf>,
): Promise<number> {
  const rows = (await at(
    `/screener?quote=${q}&grain=pool&window=${w}&limit=100&sort=total_volume_quote`,
    n,
  )) as any[];
  const listed = new Set(rows.map((r) => r.subject));
  // Exactly the (known, non-curve) pools of q registered by n with a swap at or before n.
  for (const p of byKey.values()) {
    if (p.currency0 !== q && p.currency1 !== q) continue;
    const last = Math.max(-1, ...(await swapsOf(p)).filter((s) => s.block <= n).map((s) => s.block));
    const want = p.created <= n && last >= 0;
    expect({ n, pool: p.key, listed: listed.has(p.key) }).toEqual({ n, pool: p.key, listed: want });
  }
  let compared = 0;
  for (const r of rows) {
    const p = byKey.get(r.subject);
    if (!p) continue;
    const last = Math.max(...(await swapsOf(p)).filter((s) => s.block <= n).map((s) => s.block));
    const stats = await at(statsPath(p)!, n);
    const day = stats.windows[w];
    const baseIs0 = p.currency0 !== q;
    expect({ n, w, pool: p.key, ...figuresOf(r) }).toEqual({
      n,
      w,
      pool: p.key,
      totalVolumeQuote: baseIs0 ? day.volume1 : day.volume0,
      trades: day.trades,
      buys: baseIs0 ? day.buys : day.sells,
      sells: baseIs0 ? day.sells : day.buys,
      distinctTraders: day.distinctTraders,
      lastTradeBlock: last,
    });
    expect(BigInt(r.buyVolumeQuote) + BigInt(r.sellVolumeQuote)).toBe(BigInt(r.totalVolumeQuote));
    const base = await idx.get(`/tokens/${r.base.address}?atBlock=${n}`);
    if (base.status === 200)
      expect(r.holderCount, `${r.base.address} at ${n}`).toEqual(base.body.data.holderCount);
    compared++;
  }
  return compared;
}
/** The screener row's figures the pool stats route also answers. */
const figuresOf = (r: any) => ({
  totalVolumeQuote: r.totalVolumeQuote,
  trades: r.trades,
  buys: r.buys,
  sells: r.sells,
  distinctTraders: r.distinctTraders,
  lastTradeBlock: r.lastTradeBlock,
});

describe('launch, traders and the screener at N', () => {
  it('the launch at N is the detail’s and the launchpad’s curve at N on the node, both sides of a graduation', async () => {
    const launches = await walkAll('/launchpads/devnet-pad/launches');
    expect(launches.length).toBeGreaterThanOrEqual(2);
    let compared = 0;
    let graduatedSeen = 0;
    for (const l of launches.slice(0, 8)) {
      const created = l.created.block as number;
      const blocks = [created, between(created, fork.head), fork.head - 1];
      if (l.graduated) blocks.push(l.graduated.block - 1, l.graduated.block);
      const before = await idx.get(`/tokens/${l.token}/launch?atBlock=${created - 1}`);
      expect(before.status, before.text).toBe(404);
      for (const n of blocks.filter((b) => b >= created && b <= fork.head)) {
        const got = await at(`/tokens/${l.token}/launch`, n);
        expect(got).toEqual((await at(`/tokens/${l.token}`, n)).launch);
        const node = await nodeCurve(l.token, n);
        expect({ n, t: l.token, graduated: got.state === 'graduated', creator: got.creator }).toEqual({
          n,
          t: l.token,
          graduated: node.graduated,
          creator: node.creator,
        });
        expect(got.graduated === null || got.graduated.block <= n).toBe(true);
        if (node.graduated) graduatedSeen++;
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(10);
    expect(graduatedSeen, 'a graduated launch read at N').toBeGreaterThan(0);
  });

  it('the traders at N rank the token’s swaps at or below N in the window ending at N; a cursor stays at N', async () => {
    let compared = 0;
    let ranked = 0;
    for (const n0 of [fork.historyEnd - 5, fork.base, fork.base + 2, fork.head - 1, between(1, fork.head)]) {
      const t = pick(tokens);
      const n = Math.max(n0, t.from);
      const quotes = quotesAt(t, n);
      if (!quotes.length) continue;
      const q = pick(quotes);
      const swaps = await walkAll(`/tokens/${t.address}/swaps?quote=${q}`);
      const ts = await timestampOf(n);
      for (const [w, secs] of [
        ['24h', 86_400],
        ['5m', 300],
      ] as const) {
        const r = await at(`/tokens/${t.address}/traders?quote=${q}&window=${w}&limit=1000`, n);
        const want = tradersFrom(swaps, n, windowFrom(ts, secs));
        expect({ n, t: t.address, q, w, rows: r }).toEqual({ n, t: t.address, q, w, rows: want });
        compared++;
        if (want.length) ranked++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(6);
    expect(ranked, 'rankings with traders').toBeGreaterThanOrEqual(3);
    const t = tokens.find((x) => quotesAt(x, Math.max(fork.base, x.from)).length)!;
    const n = Math.max(fork.base, t.from);
    const q = quotesAt(t, n)[0];
    const first = await idx.get(`/tokens/${t.address}/traders?quote=${q}&limit=1&atBlock=${n}`);
    expect(first.status, first.text).toBe(200);
    const cursor = first.body.page.nextCursor;
    if (cursor) {
      const next = await idx.get(`/tokens/${t.address}/traders?quote=${q}&limit=1&cursor=${cursor}`);
      expect(next.status, next.text).toBe(200);
      expect(next.body.anchor).toEqual(first.body.anchor);
    }
  });

  it('the screener at N: the pools registered by N with a swap by N, each with the pool stats and holder count at N', async () => {
    const weth = dev.deployment.tokens.find((x) => x.kind === 'weth')!.address.toLowerCase();
    const byKey = new Map<string, PoolOf>();
    for (const t of tokens) for (const p of t.pools) if (p.protocol !== 'launchpad') byKey.set(p.key, p);
    let compared = 0;
    for (const n of [fork.historyEnd - 5, fork.base, fork.base + 2, fork.head - 1]) {
      await hashOf(n);
      for (const w of ['24h', '5m'] as const) compared += await checkScreener(weth, n, w, byKey);
    }
    expect(compared, 'screener rows compared').toBeGreaterThanOrEqual(8);
    const ranking = await at(
      `/rankings/most_traded?quote=${weth}&grain=pool&window=24h&limit=100`,
      fork.base,
    );
    const screener = await at(
      `/screener?quote=${weth}&grain=pool&window=24h&limit=100&sort=trades`,
      fork.base,
    );
    expect(ranking).toEqual(screener);
  });
});

describe('refusals and /batch', () => {
  it('/batch takes atBlock per token item', async () => {
    const t = tokens[0];
    const [a, b] = [Math.max(fork.base - 5, t.from), fork.head - 1];
    const r = await idx.post('/batch', {
      requests: [
        { route: 'tokens.detail', params: { address: t.address, atBlock: a } },
        { route: 'tokens.overview', params: { address: t.address, atBlock: b } },
        { route: 'tokens.detail', params: { address: t.address, atBlock: fork.head + 5 } },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const [ra, rb, rx] = r.body.results;
    expect(ra.body.anchor).toEqual({ block: a, hash: await hashOf(a) });
    expect(ra.body.data.supplyFromTransfers).toBe(await totalSupply(t.address, a));
    expect(rb.body.anchor).toEqual({ block: b, hash: await hashOf(b) });
    expect(rb.body.data.supplyFromTransfers).toBe(await totalSupply(t.address, b));
    expect(rx.status).toBe(409);
    expect(rx.error.error).toBe('block_not_indexed');
  });

  it('the dropped fork, above the head, token routes that do not answer as of a block', async () => {
    const t = tokens[0].address;
    const dropped = await idx.get(`/tokens/${t}/overview?atBlockHash=${fork.droppedHash}`);
    expect(dropped.status, dropped.text).toBe(409);
    expect(dropped.body.error).toBe('block_not_canonical');
    const above = await idx.get(`/tokens/${t}/liquidity?atBlock=${fork.head + 1000}`);
    expect(above.status).toBe(409);
    expect(above.body).toMatchObject({ error: 'block_not_indexed', headBlock: fork.head });
    for (const suffix of ['/swaps', '/candles']) {
      const r = await idx.get(`/tokens/${t}${suffix}?atBlock=${fork.base}`);
      expect(r.status, suffix).toBe(400);
      expect(r.body.error).toBe('bad_request');
    }
  });
});
