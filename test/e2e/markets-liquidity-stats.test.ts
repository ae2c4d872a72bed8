/**
 * Issue E (markets) on the full devnet (real Uniswap V2/V3/V4 bytecode, real anvil, no mocks):
 *  (a) the pool liquidity routes of every V2, V3 and V4 pool equal the node at the anchor block
 *      (getReserves; slot0 + liquidity(); PoolManager.extsload with the StateLibrary layout) and
 *      their liquidityUsd equals an exact recomputation from those node reads;
 *  (b) ranked pools with sort=liquidity: order equals an independent sort of the rows'
 *      liquidityUsd, cursor paging covers the bounded membership exactly once, cursors never cross
 *      between sorts;
 *  (c) pool stats (V2, V3, V4) and token stats for 5m/1h/4h/24h equal a brute-force recomputation
 *      from the raw swap logs (eth_getLogs) with block timestamps and transaction origins from
 *      the node.
 *
 * Chain time is shaped so every window boundary separates traffic: the traffic runs in phases
 * separated by time jumps (22 h, 3 h, 1.5 h, ~2 min), and the last two phases straddle the 5m boundary
 * on a whole minute (M − 3 s … M + 3 s, then M + 270 s …), after which mining is frozen so every
 * response shares one anchor.
 */
import { decodeEventLog, encodeAbiParameters, keccak256, parseAbi, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;
/** Whole minute the 5m boundary is placed on (see the file note). */
let M = 0;

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const call = (to: string, data: string, block: number) => rpc<string>('eth_call', [{ to, data }, hex(block)]);
const word = (h: string, i: number) => BigInt(`0x${h.slice(2 + 64 * i, 2 + 64 * (i + 1))}`);
const signed24 = (x: bigint) => Number(BigInt.asIntN(24, x));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const chainHead = async () => Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);

// ---- exact rationals, written independently of packages/indexer/src/markets/rational.ts ----
type Q = [bigint, bigint];
const gcd = (a: bigint, b: bigint): bigint => (b ? gcd(b, a % b) : a < 0n ? -a : a);
const red = (n: bigint, d: bigint): Q => {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return [n / g, d / g];
};
const qAdd = (a: Q, b: Q): Q => red(a[0] * b[1] + b[0] * a[1], a[1] * b[1]);
const qCmp = (a: Q, b: Q) => (a[0] * b[1] < b[0] * a[1] ? -1 : a[0] * b[1] > b[0] * a[1] ? 1 : 0);
const fromFields = (x: { numerator: string; denominator: string }): Q =>
  red(BigInt(x.numerator), BigInt(x.denominator));
const fromPrice = (x: { priceNumerator: string; priceDenominator: string }): Q =>
  red(BigInt(x.priceNumerator), BigInt(x.priceDenominator));

async function walk(path: string, limit = 1000): Promise<{ rows: any[]; anchors: any[]; pages: any[] }> {
  const rows: any[] = [];
  const anchors: any[] = [];
  const pages: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await idx.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, r.text).toBe(200);
    anchors.push(r.body.anchor);
    pages.push(r.body.page);
    rows.push(...r.body.data);
    cursor = r.body.page.nextCursor;
  } while (cursor);
  return { rows, anchors, pages };
}

const poolPath = (p: any) =>
  p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.address}`;

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 25 });
  const tok = (k: string) => dev.deployment.tokens.find((t) => t.key === k)!.address.toLowerCase();
  const env = devnetIndexerEnv(dev, {
    usdStablecoins: [tok('USDC'), tok('DAI')],
    quoteAssets: null,
    launchpad: false,
  });
  idx = await startIndexer({ rpcUrl: dev.rpcUrl, env: { ...env, TRACES: 'off' } });
  // Phases of random traffic (about 5 s each) separated by jumps of chain time.
  await dev.traffic!.ready;
  await sleep(5000);
  await rpc('evm_increaseTime', [22 * 3600]); // phase 0 (with the deployment) leaves the 24h window
  await sleep(5000);
  await rpc('evm_increaseTime', [3 * 3600]); // phase A: in 24h, not in 4h
  await sleep(5000);
  await rpc('evm_increaseTime', [90 * 60]); // phase B: in 4h, not in 1h
  await sleep(4000); // phase B': in 1h, not in 5m
  const t = Number.parseInt((await rpc<any>('eth_getBlockByNumber', ['latest', false])).timestamp, 16);
  M = Math.ceil((t + 120) / 60) * 60;
  await rpc('evm_setNextBlockTimestamp', [M - 3]); // phase C straddles minute M
  await sleep(6000);
  await rpc('evm_setNextBlockTimestamp', [M + 270]); // phase D: the 5m window starts at M
  await sleep(4000);
  await dev.traffic?.stop();
  for (let i = 0; i < 40; i++) {
    const s = await rpc<{ pending: string }>('txpool_status', []);
    if (Number(s.pending) === 0) break;
    await sleep(250);
  }
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_mine', []);
  await idx.waitForHead(await chainHead(), 120_000);
}, 240_000);

afterAll(stopAll(() => [idx, dev]));

/** decimals() of every configured stablecoin read from the node (the only USD marks). */
async function stableDecimals(A: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const k of ['USDC', 'DAI']) {
    const a = dev.deployment.tokens.find((t) => t.key === k)!.address.toLowerCase();
    out.set(a, Number(word(await call(a, '0x313ce567', A), 0)));
  }
  return out;
}

/** liquidityUsd recomputed from two side amounts: sum when both are stablecoins, twice the stable side. */
function expectedUsd(amounts: [Q, Q], currencies: [string, string], dec: Map<string, number>): Q | null {
  const usd = amounts.map((a, i) => {
    const d = dec.get(currencies[i]);
    return d === undefined ? null : red(a[0], a[1] * 10n ** BigInt(d));
  });
  if (usd[0] && usd[1]) return qAdd(usd[0], usd[1]);
  const one = usd[0] ?? usd[1];
  return one ? red(2n * one[0], one[1]) : null;
}

const Q96 = 1n << 96n;

describe('(a) pool liquidity routes reconcile with the node at the anchor block', () => {
  it('V2 getReserves, V3 slot0/liquidity, V4 extsload; liquidityUsd recomputed exactly', async () => {
    const { rows: pools } = await walk('/pools/new');
    const by = (p: string) => pools.filter((x) => x.protocol === p);
    expect(by('v2').length).toBeGreaterThan(10);
    expect(by('v3').length).toBe(7);
    expect(by('v4').length).toBe(4);
    let A: number | null = null;
    let dec = new Map<string, number>();
    const seen = { priced: { v2: 0, v3: 0, v4: 0 }, unpriced: { v2: 0, v3: 0, v4: 0 } };
    for (const p of [...by('v2'), ...by('v3'), ...by('v4')]) {
      const r = await idx.get(`${poolPath(p)}/liquidity`);
      expect(r.status, r.text).toBe(200);
      const d = r.body.data;
      if (A === null) {
        A = r.body.anchor.block as number;
        dec = await stableDecimals(A);
      }
      expect(r.body.anchor.block).toBe(A); // mining is frozen: one anchor for the whole test
      let amounts: [Q, Q];
      if (p.protocol === 'v2') {
        const res = await call(p.address, '0x0902f1ac', A);
        const [r0, r1] = [word(res, 0), word(res, 1)];
        expect(d.liquidity).toMatchObject({ kind: 'reserves', reserve0: `${r0}`, reserve1: `${r1}` });
        expect(d.liquidityUsdBasis).toBe('reserves');
        amounts = [
          [r0, 1n],
          [r1, 1n],
        ];
      } else {
        let sqrtP: bigint;
        let L: bigint;
        let tick: number;
        if (p.protocol === 'v3') {
          const slot0 = await call(p.address, '0x3850c7bd', A);
          sqrtP = word(slot0, 0);
          tick = signed24(word(slot0, 1));
          L = word(await call(p.address, '0x1a686502', A), 0);
        } else {
          // StateLibrary: pools mapping at slot 6; Slot0 = sqrtPriceX96 (160) | tick (24) | fees; liquidity at +3.
          const slot = BigInt(
            keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [p.poolId, 6n])),
          );
          const ext = async (s: bigint) =>
            BigInt(await call(p.contract, `0x1e2eaeaf${s.toString(16).padStart(64, '0')}`, A!));
          const s0 = await ext(slot);
          sqrtP = s0 & ((1n << 160n) - 1n);
          tick = signed24((s0 >> 160n) & 0xffffffn);
          L = (await ext(slot + 3n)) & ((1n << 128n) - 1n);
        }
        expect(d.liquidity).toMatchObject({
          kind: 'concentrated',
          sqrtPriceX96: `${sqrtP}`,
          tick,
          liquidity: `${L}`,
        });
        expect(L).toBeGreaterThan(0n);
        expect(d.liquidityUsdBasis).toBe('in_range_virtual_reserves');
        amounts = [red(L * Q96, sqrtP), red(L * sqrtP, Q96)];
      }
      expect(fromFields(d.liquidityUsdAmounts.amount0)).toEqual(amounts[0]);
      expect(fromFields(d.liquidityUsdAmounts.amount1)).toEqual(amounts[1]);
      const want = expectedUsd(amounts, [p.currency0, p.currency1], dec);
      const proto = p.protocol as 'v2' | 'v3' | 'v4';
      if (want) {
        expect(d.liquidityUsd, `${p.key}`).not.toBeNull();
        expect(fromFields(d.liquidityUsd)).toEqual(want);
        expect(d.liquidityUsdReason).toBeNull();
        expect(d.liquidityUsdMethod).toBe(
          dec.has(p.currency0) && dec.has(p.currency1)
            ? 'both_sides_stablecoins_at_par'
            : 'stable_side_times_two_at_pool_marginal_price',
        );
        seen.priced[proto]++;
      } else {
        expect(d.liquidityUsd).toBeNull();
        expect(d.liquidityUsdReason).toBe('side_unpriced');
        seen.unpriced[proto]++;
      }
    }
    // The devnet has priced and unpriced pools of every kind (ETH/PEPE and LINK/UNI are unpriced V4 pools).
    for (const k of ['v2', 'v3', 'v4'] as const) {
      expect(seen.priced[k], k).toBeGreaterThan(0);
      expect(seen.unpriced[k], k).toBeGreaterThan(0);
    }
  });
});

describe('(b) ranked pools with sort=liquidity', () => {
  const link = () => dev.deployment.tokens.find((t) => t.key === 'LINK')!.address.toLowerCase();
  const weth = () => dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
  const counter = (p: any, token: string) => (p.currency0 === token ? p.currency1 : p.currency0);

  /** Independent order: liquidityUsd desc; unpriced last by quote asc, quote-side amount desc; then key. */
  const expectedOrder = (rows: any[]) =>
    [...rows]
      .sort((a, b) => {
        const ua = a.liquidityUsd ? fromFields(a.liquidityUsd) : null;
        const ub = b.liquidityUsd ? fromFields(b.liquidityUsd) : null;
        if (!!ua !== !!ub) return ua ? -1 : 1;
        if (ua && ub && qCmp(ua, ub)) return -qCmp(ua, ub);
        if (!ua && a.quoteAsset !== b.quoteAsset) return a.quoteAsset < b.quoteAsset ? -1 : 1;
        if (!ua) {
          const qa = a.quoteSideAmount ? fromFields(a.quoteSideAmount) : null;
          const qb = b.quoteSideAmount ? fromFields(b.quoteSideAmount) : null;
          if (!!qa !== !!qb) return qa ? -1 : 1;
          if (qa && qb && qCmp(qa, qb)) return -qCmp(qa, qb);
        }
        return a.key < b.key ? -1 : 1;
      })
      .map((r) => r.key);

  it('order equals an independent sort of liquidityUsd; paging covers the membership exactly once', async () => {
    const token = link();
    const { rows: all } = await walk(`/currencies/${token}/pools`);
    for (const quote of [null, weth()]) {
      const q = quote ? `&quote=${quote}` : '';
      const { rows, anchors, pages } = await walk(`/tokens/${token}/pools/ranked?sort=liquidity${q}`, 2);
      // Membership: the token's registered pools (for a quote, those against it), each exactly once.
      const members = all.filter((p) => !quote || counter(p, token) === quote).map((p) => p.key);
      expect(rows.map((r) => r.key).sort()).toEqual([...members].sort());
      expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
      expect(rows.map((r) => r.rank)).toEqual(rows.map((_, i) => i + 1));
      expect(pages.length).toBe(Math.ceil(rows.length / 2));
      expect(pages.at(-1).stoppedBy).toBe('exhausted');
      for (const a of anchors) expect(a).toEqual(anchors[0]);
      // Each row's figures are the pool liquidity route's.
      for (const r of rows) {
        const l = (await idx.get(`${poolPath(r)}/liquidity`)).body.data;
        expect(r.liquidityUsd).toEqual(l.liquidityUsd);
        expect(r.liquidityUsdBasis).toBe(l.liquidityUsdBasis);
        expect(r.quoteAsset).toBe(counter(r, token));
        const side = r.currency0 === token ? l.liquidityUsdAmounts.amount1 : l.liquidityUsdAmounts.amount0;
        expect(fromFields(r.quoteSideAmount)).toEqual(fromFields(side));
        expect(r.rankedBy).toBe(r.liquidityUsd ? 'liquidity_usd' : 'quote_side_amount');
      }
      expect(rows.map((r) => r.key)).toEqual(expectedOrder(rows));
      // Same membership as the volume ranking (the bounded set shared by overview, mcap, ohlcv).
      const vol = await walk(`/tokens/${token}/pools/ranked?sort=volume_24h${q}`, 100);
      expect(vol.rows.map((r) => r.key).sort()).toEqual(rows.map((r) => r.key).sort());
      if (!quote) {
        // LINK trades against USDC (priced), WETH and UNI (unpriced), on V2, V3 and V4.
        expect(rows[0].liquidityUsd).not.toBeNull();
        expect(rows.at(-1).liquidityUsd).toBeNull();
        expect(new Set(rows.map((r) => r.protocol))).toEqual(new Set(['v2', 'v3', 'v4']));
      } else expect(rows.every((r) => r.liquidityUsd === null)).toBe(true);
    }
  });

  it('cursors never cross sorts or quotes; order and limit are validated', async () => {
    const token = link();
    const base = `/tokens/${token}/pools/ranked`;
    const liq = await idx.get(`${base}?sort=liquidity&limit=2`);
    const vol = await idx.get(`${base}?sort=volume_24h&limit=2`);
    expect(liq.status, liq.text).toBe(200);
    expect(vol.status, vol.text).toBe(200);
    const lc = liq.body.page.nextCursor;
    const vc = vol.body.page.nextCursor;
    expect(lc).toBeTruthy();
    expect(vc).toBeTruthy();
    for (const path of [
      `${base}?sort=volume_24h&limit=2&cursor=${lc}`,
      `${base}?limit=2&cursor=${lc}`,
      `${base}?sort=liquidity&limit=2&cursor=${vc}`,
      `${base}?sort=liquidity&limit=2&quote=${weth()}&cursor=${lc}`,
    ]) {
      const r = await idx.get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error).toBe('bad_cursor');
    }
    const ok = await idx.get(`${base}?sort=liquidity&limit=2&cursor=${lc}`);
    expect(ok.status).toBe(200);
    expect(ok.body.data[0].rank).toBe(3);
    for (const bad of [
      'sort=liquidity&order=asc',
      'sort=liquidity&limit=0',
      'sort=liquidity&limit=101',
      'sort=tvl',
    ]) {
      const r = await idx.get(`${base}?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(typeof r.body.error).toBe('string');
      expect(typeof r.body.detail).toBe('string');
    }
    const dflt = await idx.get(`${base}?sort=liquidity`);
    expect(dflt.body.page.limit).toBe(32);
    expect(dflt.body.sort).toBe('liquidity');
    expect(dflt.body.membershipSource).toMatch(/2048/);
  });
});

// ---- (c) brute force from the raw logs ----

interface Trade {
  block: number;
  logIndex: number;
  t: number;
  origin: string;
  /** Pool perspective: positive = the pool received it. */
  a0: bigint;
  a1: bigint;
  /** Price after the trade, currency1 per currency0 base unit, reduced. */
  price: Q;
}

const V2 = parseAbi([
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
]);
const V3 = parseAbi([
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
]);
const V4 = parseAbi([
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
]);

const blocks = new Map<number, { t: number; from: Map<string, string> }>();
async function blockInfo(n: number) {
  let b = blocks.get(n);
  if (!b) {
    const raw = await rpc<any>('eth_getBlockByNumber', [hex(n), true]);
    b = {
      t: Number.parseInt(raw.timestamp, 16),
      from: new Map(raw.transactions.map((x: any) => [x.hash, x.from.toLowerCase()])),
    };
    blocks.set(n, b);
  }
  return b;
}

/** Every swap of pool `p` up to block A, decoded from eth_getLogs, with timestamp and origin. */
async function tradesOf(p: any, A: number): Promise<Trade[]> {
  const range = { fromBlock: '0x0', toBlock: hex(A) };
  const logs =
    p.protocol === 'v4'
      ? await rpc<any[]>('eth_getLogs', [
          { ...range, address: p.contract, topics: [toEventSelector(V4[0]), p.poolId] },
        ])
      : await rpc<any[]>('eth_getLogs', [{ ...range, address: p.address }]);
  const out: Trade[] = [];
  let reserves: [bigint, bigint] | null = null;
  for (const l of logs) {
    let a0: bigint;
    let a1: bigint;
    let price: Q;
    try {
      if (p.protocol === 'v2') {
        const ev = decodeEventLog({ abi: V2, data: l.data, topics: l.topics });
        if (ev.eventName === 'Sync') {
          reserves = [ev.args.reserve0, ev.args.reserve1];
          continue;
        }
        a0 = ev.args.amount0In - ev.args.amount0Out;
        a1 = ev.args.amount1In - ev.args.amount1Out;
        price = red(reserves![1], reserves![0]); // Sync precedes Swap in the same call
      } else if (p.protocol === 'v3') {
        const ev = decodeEventLog({ abi: V3, data: l.data, topics: l.topics });
        a0 = ev.args.amount0;
        a1 = ev.args.amount1;
        price = red(ev.args.sqrtPriceX96 ** 2n, 1n << 192n);
      } else {
        const ev = decodeEventLog({ abi: V4, data: l.data, topics: l.topics });
        // V4 reports the swapper's balance deltas: the pool's are their negation.
        a0 = -ev.args.amount0;
        a1 = -ev.args.amount1;
        price = red(ev.args.sqrtPriceX96 ** 2n, 1n << 192n);
      }
    } catch {
      continue; // Transfer, Mint, Burn … of the pair
    }
    const block = Number.parseInt(l.blockNumber, 16);
    const b = await blockInfo(block);
    out.push({
      block,
      logIndex: Number.parseInt(l.logIndex, 16),
      t: b.t,
      origin: b.from.get(l.transactionHash)!,
      a0,
      a1,
      price,
    });
  }
  return out;
}

const WINDOWS: Array<[string, number]> = [
  ['5m', 300],
  ['1h', 3600],
  ['4h', 14400],
  ['24h', 86400],
];

/**
 * The contract's window: trades of blocks ≤ A whose timestamp lies in a whole 1-minute bucket
 * starting after T − w, i.e. t ≥ floor((T − w)/60)·60 + 60 (docs/contract-choices.md).
 */
function windowOf(trades: Trade[], A: number, T: number, secs: number) {
  const from = Math.floor((T - secs) / 60) * 60 + 60;
  const sel = trades.filter((x) => x.block <= A && x.t >= from);
  const abs = (x: bigint) => (x < 0n ? -x : x);
  return {
    from,
    n: sel.length,
    v0: sel.reduce((s, x) => s + abs(x.a0), 0n),
    v1: sel.reduce((s, x) => s + abs(x.a1), 0n),
    buys: sel.filter((x) => x.a0 < 0n).length, // trader received currency0
    sells: sel.filter((x) => x.a0 >= 0n).length,
    traders: new Set(sel.map((x) => x.origin)).size,
    open: sel[0]?.price ?? null,
    close: sel.at(-1)?.price ?? null,
  };
}

/** Checks one window of a stats response against the brute force (prices oriented by `inv`). */
function expectWindow(got: any, e: ReturnType<typeof windowOf>, inv: boolean, label: string) {
  const o = (x: Q | null): Q | null => (x && inv ? red(x[1], x[0]) : x);
  expect(got.trades, label).toBe(e.n);
  expect(got.distinctTraders, label).toEqual({ lowerBound: e.traders, exact: true });
  const open = o(e.open);
  const close = o(e.close);
  if (!open || !close) {
    expect(got.open, label).toBeNull();
    expect(got.priceChange, label).toBeNull();
    expect(got.priceChangeReason, label).toBe('no_trades_in_window');
    return;
  }
  expect(fromPrice(got.open), label).toEqual(open);
  expect(fromPrice(got.close), label).toEqual(close);
  expect(fromPrice(got.priceChange), label).toEqual(
    red(close[0] * open[1] - open[0] * close[1], open[0] * close[1]),
  );
}

describe('(c) rolling stats equal a brute-force recomputation from the swap logs', () => {
  it('pool stats of the busiest V2, V3 and V4 pools', async () => {
    const { rows: pools } = await walk('/pools/new');
    const totals = WINDOWS.map(() => 0);
    let everything = 0;
    for (const proto of ['v2', 'v3', 'v4']) {
      let best: any = null;
      for (const p of pools.filter((x) => x.protocol === proto)) {
        const d = (await idx.get(poolPath(p))).body.data;
        if (!best || d.state.swaps > best.swaps) best = { ...p, swaps: d.state.swaps };
      }
      const r = await idx.get(`${poolPath(best)}/stats`);
      expect(r.status, r.text).toBe(200);
      const A = r.body.anchor.block;
      const T = (await blockInfo(A)).t;
      expect(r.body.data.asOfTimestamp).toBe(T);
      const trades = await tradesOf(best, A);
      expect(trades.length).toBe(best.swaps);
      everything += trades.length;
      for (const [i, [w, secs]] of WINDOWS.entries()) {
        const e = windowOf(trades, A, T, secs);
        const got = r.body.data.windows[w];
        const label = `${proto} ${best.key} ${w}`;
        expect(got.volume0, label).toBe(e.v0.toString());
        expect(got.volume1, label).toBe(e.v1.toString());
        expect(got.buys, label).toBe(e.buys);
        expect(got.sells, label).toBe(e.sells);
        expectWindow(got, e, false, label);
        totals[i] += e.n;
      }
    }
    // The shaped chain time makes every window boundary separate traffic.
    expect(totals[0]).toBeGreaterThan(0);
    for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeGreaterThan(totals[i - 1]);
    expect(everything).toBeGreaterThan(totals[3]);
  });

  it('token stats: default venue by 24h quote volume, oriented windows', async () => {
    const token = dev.deployment.tokens.find((t) => t.key === 'LINK')!.address.toLowerCase();
    for (const t of ['USDC', 'WETH']) {
      const quote = (
        t === 'WETH'
          ? dev.deployment.tokens.find((x) => x.kind === 'weth')!
          : dev.deployment.tokens.find((x) => x.key === t)!
      ).address.toLowerCase();
      const r = await idx.get(`/tokens/${token}/stats?quote=${quote}`);
      expect(r.status, r.text).toBe(200);
      const A = r.body.anchor.block;
      const T = (await blockInfo(A)).t;
      // Default venue: largest 24h quote-side volume, then more 24h trades, earliest creation, key.
      const { rows: cands } = await walk(`/tokens/${token}/pools/by-currency/${quote}`);
      const scored = [];
      for (const p of cands) {
        const w = windowOf(await tradesOf(p, A), A, T, 86400);
        scored.push({ p, q: p.currency0 === token ? w.v1 : w.v0, n: w.n });
      }
      scored.sort(
        (a, b) =>
          (b.q > a.q ? 1 : b.q < a.q ? -1 : 0) ||
          b.n - a.n ||
          a.p.created.block - b.p.created.block ||
          a.p.created.logIndex - b.p.created.logIndex ||
          (a.p.key < b.p.key ? -1 : 1),
      );
      expect(r.body.data.venue.pool).toBe(scored[0].p.key);
      const venue = scored[0].p;
      const base = venue.currency0 === token;
      const trades = await tradesOf(venue, A);
      for (const [w, secs] of WINDOWS) {
        const e = windowOf(trades, A, T, secs);
        const got = r.body.data.windows[w];
        const label = `${t} ${w}`;
        expect(got.volumeBase, label).toBe((base ? e.v0 : e.v1).toString());
        expect(got.volumeQuote, label).toBe((base ? e.v1 : e.v0).toString());
        // A token buy is the trader receiving the token.
        expect(got.buys, label).toBe(base ? e.buys : e.sells);
        expect(got.sells, label).toBe(base ? e.sells : e.buys);
        expectWindow(got, e, !base, label);
      }
    }
  });
});
