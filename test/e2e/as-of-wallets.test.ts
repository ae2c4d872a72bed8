/**
 * Issue AC end-to-end, the wallets and pool-ticks slice: wallet state as of a block on the full
 * devnet (real anvil, which keeps every block's state; ERC-20, WETH and Uniswap V2/V3/V4 traffic),
 * indexed from a late start (history segments) with a 24-block live window, and one `anvil_reorg`.
 * Random blocks N are drawn in blocks written as history segments, across the chain, on the old
 * fork before the reorg, on the new fork after it, below it and inside the live window:
 *
 *  - `/wallets/{w}/assets?atBlock=N`: every checked token's row is the node's `balanceOf(w)` at N
 *    (absent when it is zero), anchored at (N, the node's hash of N) — one pair per (N, w, token);
 *  - `/wallets/{w}/portfolio?atBlock=N`: net worth = Σ of the stablecoins' `balanceOf` at N at par;
 *    `/overview` at N: its top holdings are `balanceOf` at N, first seen at or below N;
 *  - `/pools/{p}/ticks?atBlock=N&order=desc&limit=1` (V3, and V4 by manager and pool id): the tick
 *    after the last trade at or before N is the node's `slot0().tick` at N (V4: the PoolManager's
 *    Pool.State through `extsload`);
 *  - `/wallets/{w}/positions`, `/pnl`, `/pnl/{token}` and `/pnl/daily` at N: the weighted-average
 *    cost fold of the wallet's trades at or below N (quantity, cost, realised, buys, sells, and the
 *    day's realised PnL);
 *  - `atBlockHash` answers what `atBlock` does; the dropped fork's hash is 409 block_not_canonical,
 *    above the head 409 block_not_indexed.
 *
 * The wallet routes do not serve native balances (transfers index top-level value only, without
 * gas or internal transfers), so `eth_getBalance` has nothing to be compared with. Tokens whose
 * balances do not follow their events (fee-on-transfer, rebasing) are left out: kinds standard,
 * stable, weth.
 */

import { tableSizes } from '@chain-indexer/indexer/testing';
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
const rand = mulberry32(20261130);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const { rpc, hashOf, words, pad } = nodeAt(() => dev.rpcUrl);
/** balanceOf(w) at n; 0 before the token's contract exists (the call answers no word). */
const balanceOf = async (t: string, w: string, n: number): Promise<bigint> =>
  (await words(t, `0x70a08231${pad(w)}`, n))[0] ?? 0n;

/** Tokens compared: balances follow their Transfer events. */
const tokens: Array<{ address: string; decimals: number; stable: boolean }> = [];
/** Wallets holding a compared token at the head, and wallets that traded. */
let holders: string[] = [];
let traders: string[] = [];
/** V3/V4 pools with their ticks path and the block they were registered at. */
let pools: Array<{ path: string; protocol: 'v3' | 'v4'; address: string; poolId?: string; from: number }> =
  [];

const fork = { base: 0, depth: 5, droppedHash: '', head: 0, historyEnd: 0 };
const count = { balancePairs: 0, tickPairs: 0, portfolioPairs: 0, overviewPairs: 0, positionPairs: 0 };
const totalPairs = () => count.balancePairs + count.tickPairs + count.portfolioPairs + count.overviewPairs;

/** An index GET that must answer 200 anchored at (n, the node's hash of n); returns the body. */
async function at(path: string, n: number): Promise<any> {
  const sep = path.includes('?') ? '&' : '?';
  const r = await idx.get(`${path}${sep}atBlock=${n}`);
  expect(r.status, `${path} at ${n}: ${r.text}`).toBe(200);
  expect(r.body.anchor, `${path} at ${n}`).toEqual({ block: n, hash: await hashOf(n) });
  return r.body;
}

/** Every page of a paged route at n (or at the head when n is null). */
async function allPages(path: string, n: number | null): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const q = `${cursor ? `&cursor=${cursor}` : ''}${n === null ? '' : `&atBlock=${n}`}`;
    const r: { status: number; body: any; text: string } = await idx.get(`${path}${q}`);
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return out;
}

/** /wallets/{w}/assets at n against balanceOf at n for every compared token. */
async function checkAssets(label: string, w: string, n: number): Promise<void> {
  const rows = await allPages(`/wallets/${w}/assets?limit=100`, n);
  const got = new Map(rows.map((a: { token: string; balance: string }) => [a.token, a.balance]));
  for (const t of tokens) {
    const want = await balanceOf(t.address, w, n);
    expect({ label, w, n, t: t.address, balance: got.get(t.address) ?? '0' }).toEqual({
      label,
      w,
      n,
      t: t.address,
      balance: want.toString(),
    });
    count.balancePairs++;
  }
}

/** The tick after the pool's last trade at or before n, against the node's slot0 tick at n. */
async function checkTick(label: string, p: (typeof pools)[number], n: number): Promise<void> {
  const body = await at(`${p.path}/ticks?order=desc&limit=1`, n);
  let tick: number;
  if (p.protocol === 'v3') tick = Number(BigInt.asIntN(24, (await words(p.address, '0x3850c7bd', n))[1]));
  else {
    const slot = BigInt(keccak256(`0x${pad(p.poolId!)}${pad(6n)}`));
    const [w0] = await words(p.address, `0x1e2eaeaf${pad(slot)}`, n);
    tick = Number(BigInt.asIntN(24, w0 >> 160n));
  }
  if (!body.data.length) return; // no trade yet at n: slot0 holds the initial tick
  expect(body.data[0].block).toBeLessThanOrEqual(n);
  expect({ label, p: p.path, n, tick: body.data[0].tick }).toEqual({ label, p: p.path, n, tick });
  count.tickPairs++;
}

/** Portfolio net worth at n = Σ stablecoin balanceOf at n at par (exact rational). */
async function checkPortfolio(w: string, n: number): Promise<void> {
  const body = await at(`/wallets/${w}/portfolio`, n);
  let num = 0n;
  let den = 1n;
  for (const t of tokens.filter((x) => x.stable)) {
    const b = await balanceOf(t.address, w, n);
    const d = 10n ** BigInt(t.decimals);
    [num, den] = [num * d + b * den, den * d];
  }
  const { priceNumerator, priceDenominator } = body.data.netWorthUsd;
  expect({ w, n, same: BigInt(priceNumerator) * den === num * BigInt(priceDenominator) }).toEqual({
    w,
    n,
    same: true,
  });
  count.portfolioPairs++;
}

/** Overview at n: top holdings are balanceOf at n; first seen at or below n. */
async function checkOverview(w: string, n: number): Promise<void> {
  const body = await at(`/wallets/${w}/overview`, n);
  if (body.data.firstSeen) expect(body.data.firstSeen.block).toBeLessThanOrEqual(n);
  for (const h of body.data.topHoldings as Array<{ token: string; balance: string }>) {
    if (!tokens.some((t) => t.address === h.token)) continue;
    expect({ w, n, t: h.token, b: h.balance }).toEqual({
      w,
      n,
      t: h.token,
      b: (await balanceOf(h.token, w, n)).toString(),
    });
    count.overviewPairs++;
  }
}

/** A weighted-average-cost position folded from trades (projection rule, exact rationals). */
interface Fold {
  qty: bigint;
  cn: bigint;
  cd: bigint;
  rn: bigint;
  rd: bigint;
  buys: number;
  sells: number;
  days: Map<number, { n: bigint; d: bigint; any: boolean }>;
}
const gcd = (a: bigint, b: bigint): bigint => {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y) [x, y] = [y, x % y];
  return x || 1n;
};
const norm = (n: bigint, d: bigint) => {
  const g = gcd(n, d);
  return [n / g, d / g] as const;
};

/** Folds the trades at or below n by (token, quote), as the wallets projection does. */
function fold(trades: any[], n: number): Map<string, Fold> {
  const out = new Map<string, Fold>();
  for (const t of trades) {
    if (t.block > n) continue;
    const k = `${t.token}:${t.quote.address}`;
    const f = out.get(k) ?? { qty: 0n, cn: 0n, cd: 1n, rn: 0n, rd: 1n, buys: 0, sells: 0, days: new Map() };
    const amt = BigInt(t.amountToken);
    const q = BigInt(t.amountQuote);
    if (t.side === 'buy' && amt > 0n) {
      f.buys++;
      f.qty += amt;
      [f.cn, f.cd] = norm(f.cn + q * f.cd, f.cd);
    } else if (amt > 0n) {
      f.sells++;
      const covered = amt <= f.qty ? amt : f.qty;
      const [on, od] = f.qty > 0n ? norm(f.cn * covered, f.cd * f.qty) : [0n, 1n];
      const [dn, dd] = norm(q * od - on, od);
      [f.cn, f.cd] = norm(f.cn * od - on * f.cd, f.cd * od);
      [f.rn, f.rd] = norm(f.rn * dd + dn * f.rd, f.rd * dd);
      f.qty -= covered;
      const day = Math.floor(t.timestamp / 86400);
      const cur = f.days.get(day) ?? { n: 0n, d: 1n, any: false };
      const [sn, sd] = norm(cur.n * dd + dn * cur.d, cur.d * dd);
      f.days.set(day, { n: sn, d: sd, any: cur.any || dn !== 0n });
    }
    out.set(k, f);
  }
  return out;
}

const ratEq = (r: { numerator: string; denominator: string }, n: bigint, d: bigint) =>
  BigInt(r.numerator) * d === n * BigInt(r.denominator);

/** Positions, PnL per token, the aggregate and the daily series of `w` at n against the fold. */
async function checkPositions(w: string, trades: any[], n: number): Promise<void> {
  const want = fold(trades, n);
  const rows = await allPages(`/wallets/${w}/positions?limit=100`, n);
  expect(rows.map((p: any) => `${p.token}:${p.quote}`).sort(), `${w} at ${n}`).toEqual(
    [...want.keys()].sort(),
  );
  for (const p of rows) {
    const f = want.get(`${p.token}:${p.quote}`)!;
    expect({ w, n, k: p.token, q: p.quantity, b: p.buys, s: p.sells }).toEqual({
      w,
      n,
      k: p.token,
      q: f.qty.toString(),
      b: f.buys,
      s: f.sells,
    });
    expect({ w, n, cost: ratEq(p.cost, f.cn, f.cd), realised: ratEq(p.realised, f.rn, f.rd) }).toEqual({
      w,
      n,
      cost: true,
      realised: true,
    });
    expect(p.lastBlock).toBeLessThanOrEqual(n);
    count.positionPairs++;
  }
  const pnl = (await at(`/wallets/${w}/pnl`, n)).data;
  for (const [quote, s] of Object.entries(pnl.realisedByQuote as Record<string, any>)) {
    let [sn, sd] = [0n, 1n];
    for (const [k, f] of want) if (k.endsWith(`:${quote}`)) [sn, sd] = norm(sn * f.rd + f.rn * sd, sd * f.rd);
    expect({
      w,
      n,
      quote,
      same: BigInt(s.priceNumerator) * sd === sn * BigInt(s.priceDenominator),
    }).toMatchObject({
      same: true,
    });
  }
  const [k, f] = [...want][0] ?? [];
  if (!k || !f) return;
  const [token, quote] = k.split(':');
  const one = (await at(`/wallets/${w}/pnl/${token}`, n)).data.positions.find((x: any) => x.quote === quote);
  expect(ratEq(one.realised, f.rn, f.rd)).toBe(true);
  const daily = await allPages(`/wallets/${w}/pnl/daily?token=${token}&quote=${quote}`, n);
  const days = [...f.days].filter(([, v]) => v.any).sort((a, b) => a[0] - b[0]);
  expect(
    daily.map((r: any) => r.day),
    `${w} ${k} days at ${n}`,
  ).toEqual(days.map(([d]) => d));
  for (const [i, [, v]] of days.entries()) expect(ratEq(daily[i].realised, v.n, v.d)).toBe(true);
}

beforeAll(async () => {
  ({ dev, idx, historyEnd: fork.historyEnd } = await startAsOfIndex(13, WINDOW));
  for (const t of dev.deployment.tokens.filter((x) => ['standard', 'stable', 'weth'].includes(x.kind)))
    tokens.push({ address: t.address.toLowerCase(), decimals: t.decimals, stable: t.kind === 'stable' });
  const seen = new Set<string>();
  for (const t of tokens) {
    const r = await idx.get(`/tokens/${t.address}/holders?sort=wallet_id&limit=1000`);
    if (r.status === 200) for (const h of r.body.data) seen.add(h.wallet);
  }
  holders = [...seen].filter((w) => !/^0x0{30}/.test(w));
  const origins = new Set<string>();
  for (const d of dev.deployment.pools) {
    if (d.protocol === 'uniswap-v2') continue;
    const protocol = d.protocol === 'uniswap-v3' ? 'v3' : 'v4';
    const path =
      protocol === 'v4' ? `/pools/v4/${d.address}/${d.poolId}` : `/pools/${d.address.toLowerCase()}`;
    const r = await idx.get(path);
    if (r.status !== 200) continue;
    pools.push({ path, protocol, address: d.address, poolId: d.poolId, from: r.body.data.created.block });
    for (const s of (await idx.get(`${path}/swaps?limit=200`)).body.data) origins.add(s.origin);
  }
  pools = pools.filter((p) => p.from < 80);
  traders = [...origins];
  // The old fork: freeze the node, let the index catch up, check pairs on the blocks the reorg
  // will drop, then replace them.
  const head = await freezeNode(dev.rpcUrl);
  await idx.waitForHead(head, 60_000);
  fork.base = head - fork.depth;
  fork.droppedHash = await hashOf(head - 1);
  for (let i = 0; i < 4; i++) {
    const n = between(fork.base + 1, head);
    await checkAssets('old fork', pick(holders), n);
    await checkTick('old fork', pick(pools), n);
  }
  fork.head = await reorgAndSettle(dev, idx, fork.depth);
  expect(await hashOf(head - 1)).not.toBe(fork.droppedHash);
}, 420_000);

afterAll(stopAll(() => [idx, dev]));

/** Random blocks across the kinds of history the index holds, labelled. */
function blocks(per: number): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (let i = 0; i < per; i++) out.push(['history', between(1, fork.historyEnd)]);
  for (let i = 0; i < per; i++) out.push(['chain', between(1, fork.head)]);
  for (let i = 0; i < per; i++) out.push(['new fork', between(fork.base + 1, fork.head)]);
  for (let i = 0; i < per; i++) out.push(['live', between(fork.head - WINDOW + 1, fork.head)]);
  for (let i = 0; i < Math.ceil(per / 2); i++)
    out.push(['below the reorg', between(fork.base - 10, fork.base)]);
  return out;
}

describe('wallet state and pool ticks as of a block equal the node at that block', () => {
  it('assets at N: balanceOf at N for every compared token; ticks at N: slot0 at N (V3, V4)', async () => {
    expect(tokens.length, 'compared tokens').toBeGreaterThanOrEqual(3);
    expect(holders.length, 'holders').toBeGreaterThanOrEqual(5);
    expect(fork.historyEnd, 'blocks written as history segments').toBeGreaterThanOrEqual(60);
    for (const pr of ['v3', 'v4'])
      expect(
        pools.some((p) => p.protocol === pr),
        pr,
      ).toBe(true);
    const states = new Set<string>();
    for (const [side, n] of blocks(4)) {
      const w = pick(holders);
      await checkAssets(side, w, n);
      states.add(JSON.stringify((await at(`/wallets/${w}/assets?limit=100`, n)).data));
      const p = pick(pools);
      await checkTick(side, p, Math.max(n, p.from));
    }
    expect(states.size, 'answers differ by block').toBeGreaterThan(1);
    expect(count.tickPairs, 'tick pairs').toBeGreaterThanOrEqual(10);
  });

  it('portfolio and overview at N: stablecoin net worth and top holdings from balanceOf at N', async () => {
    for (const [, n] of blocks(2)) {
      const w = pick(holders);
      await checkPortfolio(w, n);
      await checkOverview(w, n);
    }
    expect(count.portfolioPairs).toBeGreaterThanOrEqual(8);
  });

  it('positions, PnL per token, the aggregate and the daily series at N: the fold of the trades at or below N', async () => {
    expect(traders.length, 'traders').toBeGreaterThanOrEqual(2);
    for (const w of traders.slice(0, 4)) {
      const trades = await allPages(`/wallets/${w}/trades?limit=1000`, null);
      expect(trades.length, `${w} trades`).toBeGreaterThan(0);
      const firsts = trades.map((t: any) => t.block as number);
      for (const n of [Math.min(...firsts), fork.historyEnd, fork.base, fork.head - 2, between(1, fork.head)])
        await checkPositions(w, trades, Math.max(1, n));
    }
    expect(count.positionPairs, 'position pairs').toBeGreaterThanOrEqual(10);
    const pairs = totalPairs();
    console.log(
      `as-of wallets: ${pairs} node pairs (balances ${count.balancePairs}, ticks ${count.tickPairs}, portfolio ${count.portfolioPairs}, overview ${count.overviewPairs}); ${count.positionPairs} position pairs against the trade fold`,
    );
    expect(pairs, 'node pairs').toBeGreaterThanOrEqual(80);
  });

  it('atBlockHash answers what atBlock does; the dropped fork and above the head are refused', async () => {
    const w = pick(holders);
    for (const n of [fork.base, fork.head - 1]) {
      for (const path of [
        `/wallets/${w}/assets`,
        `/wallets/${w}/portfolio`,
        `${pools[0].path}/ticks?limit=3`,
      ]) {
        const sep = path.includes('?') ? '&' : '?';
        const a = await idx.get(`${path}${sep}atBlock=${n}`);
        const b = await idx.get(`${path}${sep}atBlockHash=${await hashOf(n)}`);
        expect(b.status, b.text).toBe(200);
        expect(b.body).toEqual(a.body);
      }
    }
    const dropped = await idx.get(`/wallets/${w}/overview?atBlockHash=${fork.droppedHash}`);
    expect(dropped.status, dropped.text).toBe(409);
    expect(dropped.body.error).toBe('block_not_canonical');
    const above = await idx.get(`/wallets/${w}/positions?atBlock=${fork.head + 1000}`);
    expect(above.status).toBe(409);
    expect(above.body).toMatchObject({ error: 'block_not_indexed', headBlock: fork.head });
  });
});

describe('what the versioned wallet tables cost', () => {
  it('bytes per transaction of wallets.position_history and funding_generation_history (the store stopped)', async () => {
    // SIGTERM (not stop(), which removes the data directory): the store closed, then read.
    await idx.sigterm();
    const sizes = await tableSizes(idx.dataDir);
    const of = (name: string) => sizes.find((t) => t.name === name);
    const txs = of('chain.transaction')?.rows ?? 0;
    expect(txs).toBeGreaterThan(0);
    const lines = [
      'wallets.position',
      'wallets.position_history',
      'wallets.funding_generation_history',
      'markets.swap',
      'markets.state_history',
      'tokens.balance_history',
    ].map((name) => {
      const t = of(name);
      const bytes = t ? t.keyBytes + t.valueBytes : 0;
      return `${name}: ${t?.rows ?? 0} rows, ${(bytes / txs).toFixed(1)} B/tx`;
    });
    console.log(`devnet store, ${txs} transactions:\n  ${lines.join('\n  ')}`);
    const hist = of('wallets.position_history');
    expect(hist?.rows ?? 0, 'position versions').toBeGreaterThan(0);
    // A version per (wallet, pair, block) that traded: never more than the pool swaps indexed.
    expect(hist!.rows).toBeLessThanOrEqual(of('markets.swap')?.rows ?? 0);
  });
});
