/**
 * Issue F end-to-end over a whole traffic population (real anvil, real Uniswap V2/V3/V4 and the
 * project's launchpad, the devnet traffic generator; no mocks). Traffic runs, stops, interval
 * mining is switched off so one head anchors every read, and the indexer catches up. Then:
 *
 *  1. For EVERY trader (transaction origin of a swap), positions are recomputed independently
 *     from the raw swap logs (eth_getLogs, decoded with viem; origins from the blocks'
 *     transactions): weighted-average cost, realised and unrealised PnL per (token, quote), the
 *     mark taken on the default venue (largest quote-side volume, ties by trades, creation) at its
 *     last logged price. They equal /wallets/{a}/positions, /pnl/{token} and /pnl exactly (same
 *     reduced rationals). Population identity: per (token, quote), the traders' bought and sold
 *     quantities sum to the swaps' token flows, and the trades routes list every swap once.
 *  2. Every multi-hop funding chain the traffic generator made (native and ERC-20, hop by hop) is
 *     recovered through /funded-by, and /funded-by, /funded-by-all, /funder-of and
 *     /funded-siblings equal an independent recomputation from the node (top-level transactions
 *     with value and a successful receipt for native; Transfer logs for ERC-20; earliest incoming
 *     per asset; every (funder, asset) edge with first, last block, count, total).
 *  3. The activity feed of the busiest wallets, paged with small pages in both orders, equals the
 *     unpaged merge of the wallet's transactions, transfers and trades.
 */

import type { FundingChainRecord } from '@chain-indexer/devnet';
import type { FundingEdge } from '@chain-indexer/indexer/types';
import { approxDecimal } from '@chain-indexer/platform/numbers';
import { decodeEventLog, type Hex, parseAbi, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';

/** Seconds of random traffic after bootstrap (≈ 15 tx/s). */
const TRAFFIC_S = 30;
const NATIVE = '0x0000000000000000000000000000000000000000';

let dev: TestDevnet;
let idx: IndexerProcess;
let head = 0;
let chains: FundingChainRecord[] = [];

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);
const hex = (n: number) => `0x${n.toString(16)}`;

/** GET expecting 200 at the fixed head. */
async function get(path: string): Promise<any> {
  const r = await idx.get(path);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  expect(r.body.anchor.block, path).toBe(head);
  return r.body;
}
/** Every row of a paged route (cursor walk). */
async function walk(path: string, limit = 1000): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const b = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...b.data);
    cursor = b.page.nextCursor;
  } while (cursor);
  return rows;
}

// ------------------------------------------------------------------ exact rationals (test-local)
type Rat = { n: bigint; d: bigint };
const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
};
/** x² of a bigint (the decoded event arguments are untyped). */
const sq = (x: bigint) => x * x;
const rat = (n: bigint, d = 1n): Rat => {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
};
const radd = (a: Rat, b: Rat) => rat(a.n * b.d + b.n * a.d, a.d * b.d);
const rsub = (a: Rat, b: Rat) => rat(a.n * b.d - b.n * a.d, a.d * b.d);
const rjson = (r: Rat) => ({ numerator: r.n.toString(), denominator: r.d.toString() });
/** The decimal sibling the API puts beside an exact rational (12 significant digits, flagged approximate). */
const approx = (r: Rat) => approxDecimal(r.n, r.d);
/** `{priceNumerator, priceDenominator, approx}` as the API serves it. */
const pjson = (r: Rat) => ({
  priceNumerator: r.n.toString(),
  priceDenominator: r.d.toString(),
  approx: approx(r),
});
const floorOf = (r: Rat) => (r.n >= 0n ? r.n / r.d : -((-r.n + r.d - 1n) / r.d));

// ------------------------------------------------------------------------------ raw chain data
const ABI = parseAbi([
  'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)',
  'event Sync(uint112 reserve0, uint112 reserve1)',
  'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
  'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
  'event Initialize(uint160 sqrtPriceX96, int24 tick)',
  'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  'event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)',
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
  'event LaunchCreated(address indexed token, address indexed creator, uint256 indexed launchSequence, string name, string symbol, string metadataUri, string imageUri)',
  'event CurveTrade(address indexed token, address indexed trader, bool isBuy, uint256 ethAmount, uint256 tokenAmount, uint256 ethReserve, uint256 tokenReserve)',
]);
const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

interface RawLog {
  address: string;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  logIndex: Hex;
  transactionHash: string;
  transactionIndex: Hex;
}
interface Pool {
  key: string;
  protocol: 'v2' | 'v3' | 'v4' | 'launchpad';
  currency0: string;
  currency1: string;
  created: [number, number];
  /** Price after the last logged state change (currency1 per currency0), or null. */
  price: Rat | null;
}
interface Swap {
  pool: Pool;
  block: number;
  logIndex: number;
  txIndex: number;
  txHash: string;
  origin: string;
  /** Pool perspective: positive = the pool received it. */
  a0: bigint;
  a1: bigint;
}

/** Everything the checks need, read from the node only. */
const node = {
  /** tx hash → {from, to, value, block, txIndex, ok}. */
  txs: new Map<
    string,
    { from: string; to: string | null; value: bigint; block: number; txIndex: number; ok: boolean }
  >(),
  pools: new Map<string, Pool>(),
  swaps: [] as Swap[],
  /** ERC-20 Transfer logs (3 topics) in chain order. */
  transfers: [] as Array<{
    token: string;
    from: string;
    to: string;
    value: bigint;
    block: number;
    txIndex: number;
    logIndex: number;
    txHash: string;
  }>,
  quotePriority: [] as string[],
};

const addrOfTopic = (t: Hex) => `0x${t.slice(26)}`.toLowerCase();

async function readChain() {
  const c = dev.deployment.contracts as any;
  const v2f = c.uniswapV2Factory.toLowerCase();
  const v3f = c.uniswapV3Factory.toLowerCase();
  const pm = c.poolManager.toLowerCase();
  const pad = dev.deployment.launchpad.address.toLowerCase();
  // Blocks with full transactions, and their receipts (statuses).
  const nums = Array.from({ length: head + 1 }, (_, i) => i);
  for (let i = 0; i < nums.length; i += 16) {
    await Promise.all(
      nums.slice(i, i + 16).map(async (n) => {
        const [b, rcs] = await Promise.all([
          rpc<any>('eth_getBlockByNumber', [hex(n), true]),
          rpc<any[]>('eth_getBlockReceipts', [hex(n)]),
        ]);
        const ok = new Map(rcs.map((r) => [r.transactionHash, r.status === '0x1']));
        for (const t of b.transactions)
          node.txs.set(t.hash, {
            from: t.from.toLowerCase(),
            to: t.to ? t.to.toLowerCase() : null,
            value: BigInt(t.value),
            block: n,
            txIndex: Number(t.transactionIndex),
            ok: ok.get(t.hash)!,
          });
      }),
    );
  }
  const logs = await rpc<RawLog[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head) }]);
  logs.sort(
    (a, b) => Number(a.blockNumber) - Number(b.blockNumber) || Number(a.logIndex) - Number(b.logIndex),
  );
  const byAddress = new Map<string, Pool>();
  for (const l of logs) {
    const block = Number(l.blockNumber);
    const logIndex = Number(l.logIndex);
    const txIndex = Number(l.transactionIndex);
    const address = l.address.toLowerCase();
    if (l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3 && l.data.length === 66) {
      node.transfers.push({
        token: address,
        from: addrOfTopic(l.topics[1]),
        to: addrOfTopic(l.topics[2]),
        value: BigInt(l.data),
        block,
        txIndex,
        logIndex,
        txHash: l.transactionHash,
      });
      continue;
    }
    let ev: any;
    try {
      ev = decodeEventLog({ abi: ABI, data: l.data, topics: l.topics as [Hex, ...Hex[]] });
    } catch {
      continue;
    }
    const a = ev.args;
    const register = (p: Pool, addr: string | null) => {
      node.pools.set(p.key, p);
      if (addr) byAddress.set(addr, p);
    };
    const swap = (p: Pool, a0: bigint, a1: bigint) =>
      node.swaps.push({
        pool: p,
        block,
        logIndex,
        txIndex,
        txHash: l.transactionHash,
        origin: node.txs.get(l.transactionHash)!.from,
        a0,
        a1,
      });
    /** The V2 pair or V3 pool this log created: its own contract `addr`, no price yet. */
    const registerContract = (protocol: 'v2' | 'v3', addr: string) =>
      register(
        {
          key: `${addr}${'00'.repeat(32)}`,
          protocol,
          currency0: a.token0.toLowerCase(),
          currency1: a.token1.toLowerCase(),
          created: [block, logIndex],
          price: null,
        },
        addr,
      );
    if (ev.eventName === 'PairCreated' && address === v2f) registerContract('v2', a.pair.toLowerCase());
    else if (ev.eventName === 'PoolCreated' && address === v3f) registerContract('v3', a.pool.toLowerCase());
    else if (ev.eventName === 'Initialize' && 'id' in a && address === pm) {
      register(
        {
          key: `${pm}${a.id.slice(2)}`,
          protocol: 'v4',
          currency0: a.currency0.toLowerCase(),
          currency1: a.currency1.toLowerCase(),
          created: [block, logIndex],
          price: rat(sq(a.sqrtPriceX96), 1n << 192n),
        },
        null,
      );
    } else if (ev.eventName === 'LaunchCreated' && address === pad) {
      register(
        {
          key: `${pad}${a.token.slice(2).toLowerCase()}${'00'.repeat(12)}`,
          protocol: 'launchpad',
          currency0: a.token.toLowerCase(),
          currency1: NATIVE,
          created: [block, logIndex],
          price: null,
        },
        null,
      );
    } else if (ev.eventName === 'Sync' && byAddress.get(address)?.protocol === 'v2') {
      const p = byAddress.get(address)!;
      p.price = a.reserve0 > 0n ? rat(a.reserve1, a.reserve0) : null;
    } else if (ev.eventName === 'Swap' && 'amount0In' in a && byAddress.get(address)?.protocol === 'v2') {
      swap(
        byAddress.get(address)!,
        (a.amount0In as bigint) - (a.amount0Out as bigint),
        (a.amount1In as bigint) - (a.amount1Out as bigint),
      );
    } else if (ev.eventName === 'Initialize' && !('id' in a) && byAddress.get(address)?.protocol === 'v3') {
      byAddress.get(address)!.price = rat(sq(a.sqrtPriceX96), 1n << 192n);
    } else if (ev.eventName === 'Swap' && 'recipient' in a && byAddress.get(address)?.protocol === 'v3') {
      const p = byAddress.get(address)!;
      p.price = rat(sq(a.sqrtPriceX96), 1n << 192n);
      swap(p, a.amount0, a.amount1);
    } else if (ev.eventName === 'Swap' && 'id' in a && address === pm) {
      const p = node.pools.get(`${pm}${a.id.slice(2)}`);
      if (!p) continue;
      p.price = rat(sq(a.sqrtPriceX96), 1n << 192n);
      // V4 reports the swapper's balance deltas: the pool's are their negation.
      swap(p, -(a.amount0 as bigint), -(a.amount1 as bigint));
    } else if (ev.eventName === 'CurveTrade' && address === pad) {
      const p = node.pools.get(`${pad}${a.token.slice(2).toLowerCase()}${'00'.repeat(12)}`);
      // A curve with no token reserve has no price (degenerate; never seen on the devnet).
      if (!p || a.tokenReserve === 0n) continue;
      p.price = rat(a.ethReserve, a.tokenReserve);
      swap(p, a.isBuy ? -a.tokenAmount : a.tokenAmount, a.isBuy ? a.ethAmount : -a.ethAmount);
    }
  }
}

// ------------------------------------------------------------------- independent WAC positions
interface Pos {
  token: string;
  quote: string;
  qty: bigint;
  cost: Rat;
  realised: Rat;
  buys: number;
  sells: number;
  bought: bigint;
  sold: bigint;
  unexplained: bigint;
  firstBlock: number;
  lastBlock: number;
}
/** Which side is the quote: the higher-priority configured quote asset, else currency1. */
function sides(p: Pool): { token: string; quote: string } {
  const p0 = node.quotePriority.indexOf(p.currency0);
  const p1 = node.quotePriority.indexOf(p.currency1);
  if (p0 >= 0 && (p1 < 0 || p0 < p1)) return { token: p.currency1, quote: p.currency0 };
  return { token: p.currency0, quote: p.currency1 };
}
/** Weighted-average cost over the swaps in chain order; sells beyond the held quantity carry zero basis. */
function recomputePositions(): Map<string, Map<string, Pos>> {
  const out = new Map<string, Map<string, Pos>>();
  for (const s of node.swaps) {
    const { token, quote } = sides(s.pool);
    const tokenIs0 = s.pool.currency0 === token;
    const gotToken = -(tokenIs0 ? s.a0 : s.a1);
    const gotQuote = -(tokenIs0 ? s.a1 : s.a0);
    let w = out.get(s.origin);
    if (!w) out.set(s.origin, (w = new Map()));
    const k = `${token}:${quote}`;
    let p = w.get(k);
    if (!p) {
      p = {
        token,
        quote,
        qty: 0n,
        cost: rat(0n),
        realised: rat(0n),
        buys: 0,
        sells: 0,
        bought: 0n,
        sold: 0n,
        unexplained: 0n,
        firstBlock: s.block,
        lastBlock: s.block,
      };
      w.set(k, p);
    }
    p.lastBlock = s.block;
    if (gotToken > 0n) {
      p.buys++;
      p.bought += gotToken;
      p.qty += gotToken;
      p.cost = radd(p.cost, rat(-gotQuote));
    } else if (gotToken < 0n) {
      const sold = -gotToken;
      p.sells++;
      p.sold += sold;
      const covered = sold < p.qty ? sold : p.qty;
      const costOut = p.qty > 0n ? rat(p.cost.n * covered, p.cost.d * p.qty) : rat(0n);
      p.realised = radd(p.realised, rsub(rat(gotQuote), costOut));
      p.cost = rsub(p.cost, costOut);
      p.qty -= covered;
      p.unexplained += sold - covered;
    }
  }
  return out;
}

/** Default venue for (token, quote): largest quote-side volume (the run is far inside 24 h), then trades, then creation. */
function venueOf(token: string, quote: string): Pool | null {
  const cands = [...node.pools.values()].filter(
    (p) =>
      (p.currency0 === token && p.currency1 === quote) || (p.currency1 === token && p.currency0 === quote),
  );
  const stats = (p: Pool) => {
    let vol = 0n;
    let trades = 0;
    for (const s of node.swaps) {
      if (s.pool !== p) continue;
      const q = p.currency0 === token ? s.a1 : s.a0;
      vol += q < 0n ? -q : q;
      trades++;
    }
    return { vol, trades };
  };
  const ranked = cands
    .map((p) => ({ p, ...stats(p) }))
    .sort(
      (a, b) =>
        (b.vol > a.vol ? 1 : b.vol < a.vol ? -1 : 0) ||
        b.trades - a.trades ||
        a.p.created[0] - b.p.created[0] ||
        a.p.created[1] - b.p.created[1],
    );
  return ranked[0]?.p ?? null;
}

/** The expected position row fields (exact), including the mark on the default venue. */
function expectedRow(p: Pos) {
  let unrealised: Rat | null = p.qty === 0n ? rat(0n) : null;
  let mark: Rat | null = null;
  let venue: string | null = null;
  if (p.qty > 0n) {
    const v = venueOf(p.token, p.quote);
    if (v?.price) {
      mark = v.currency0 === p.token ? v.price : rat(v.price.d, v.price.n);
      venue = v.key;
      const value = rat(mark.n * p.qty, mark.d);
      unrealised = rsub(value, p.cost);
    }
  }
  const withFloor = (r: Rat) => ({ ...rjson(r), floor: floorOf(r).toString(), approx: approx(r) });
  return {
    token: p.token,
    quote: p.quote,
    quantity: p.qty.toString(),
    cost: withFloor(p.cost),
    averageCost: p.qty > 0n ? pjson(rat(p.cost.n, p.cost.d * p.qty)) : null,
    realised: withFloor(p.realised),
    unrealised: unrealised ? withFloor(unrealised) : null,
    markPrice: mark ? pjson(mark) : null,
    markVenue: venue,
    buys: p.buys,
    sells: p.sells,
    boughtQuantity: p.bought.toString(),
    soldQuantity: p.sold.toString(),
    unexplainedSold: p.unexplained.toString(),
    abnormal: p.unexplained > 0n,
    firstBlock: p.firstBlock,
    lastBlock: p.lastBlock,
  };
}
const pick = (row: any, like: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(like).map((k) => [k, row[k]]));

// ------------------------------------------------------------------------------------- set-up
beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 15 });
  await dev.traffic!.ready;
  await new Promise((r) => setTimeout(r, TRAFFIC_S * 1000));
  await dev.traffic!.stop();
  chains = dev.traffic!.stats().fundingChains;
  // Let the last sent transactions land, then freeze the chain: one head anchors every read.
  await new Promise((r) => setTimeout(r, 2500));
  head = await freezeNode(dev.rpcUrl);

  const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
  const stables = dev.deployment.tokens
    .filter((t) => t.kind === 'stable')
    .map((t) => t.address.toLowerCase());
  node.quotePriority = [...stables, weth, NATIVE];
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: {
      ...devnetIndexerEnv(dev, { usdStablecoins: stables, quoteAssets: node.quotePriority }),
      TRACES: 'off',
    },
  });
  await Promise.all([readChain(), idx.waitForHead(head, 120_000)]);
}, 240_000);

afterAll(stopAll(() => [idx, dev]));

describe('population PnL', () => {
  it('every trader’s positions, per-token PnL and PnL aggregate equal a recomputation from the raw swap logs', async () => {
    const expected = recomputePositions();
    expect(node.swaps.length).toBeGreaterThan(50);
    expect(expected.size).toBeGreaterThan(10);
    // The population exercises every venue kind, marked and exited positions, and sells of
    // inventory that trades never bought (airdrops: zero cost basis).
    expect(new Set(node.swaps.map((s) => s.pool.protocol))).toEqual(new Set(['v2', 'v3', 'v4', 'launchpad']));
    const all = [...expected.values()].flatMap((m) => [...m.values()]);
    expect(all.filter((p) => p.qty > 0n && expectedRow(p).markPrice).length).toBeGreaterThan(5);
    expect(all.filter((p) => p.unexplained > 0n).length).toBeGreaterThan(0);
    expect(all.filter((p) => p.sells > 0 && p.buys > 0).length).toBeGreaterThan(0);
    if (process.env.WPOP_VERBOSE)
      console.log(
        `swaps ${node.swaps.length}, traders ${expected.size}, positions ${all.length}, chains ${chains.length}`,
      );
    let checked = 0;
    for (const [trader, byKey] of expected) {
      const rows = await walk(`/wallets/${trader}/positions`, 100);
      const want = [...byKey.values()].sort((a, b) =>
        a.token === b.token ? (a.quote < b.quote ? -1 : 1) : a.token < b.token ? -1 : 1,
      );
      expect(
        rows.map((r) => `${r.token}:${r.quote}`),
        trader,
      ).toEqual(want.map((p) => `${p.token}:${p.quote}`));
      for (let i = 0; i < want.length; i++) {
        const e = expectedRow(want[i]);
        expect(pick(rows[i], e), `${trader} ${e.token}/${e.quote}`).toEqual(e);
        checked++;
      }
      // /pnl/{token}: the same rows, per token.
      for (const token of new Set(want.map((p) => p.token))) {
        const b = await get(`/wallets/${trader}/pnl/${token}`);
        const e = want.filter((p) => p.token === token).map(expectedRow);
        expect(
          b.data.positions.map((r: any, i: number) => pick(r, e[i] ?? {})),
          `${trader} pnl/${token}`,
        ).toEqual(e);
      }
      // /pnl: sums per quote, never blended.
      const agg = (await get(`/wallets/${trader}/pnl`)).data;
      expect(agg.complete).toBe(true);
      const realised = new Map<string, Rat>();
      const unrealised = new Map<string, { sum: Rat; missing: number }>();
      for (const p of want) {
        const e = expectedRow(p);
        realised.set(p.quote, radd(realised.get(p.quote) ?? rat(0n), p.realised));
        const u = unrealised.get(p.quote) ?? { sum: rat(0n), missing: 0 };
        if (e.unrealised)
          u.sum = radd(u.sum, rat(BigInt(e.unrealised.numerator), BigInt(e.unrealised.denominator)));
        else u.missing++;
        unrealised.set(p.quote, u);
      }
      for (const [q, r] of realised) {
        expect(agg.realisedByQuote[q], `${trader} realised ${q}`).toEqual({
          ...pjson(r),
          unpricedPositions: 0,
        });
        const u = unrealised.get(q)!;
        expect(agg.unrealisedByQuote[q], `${trader} unrealised ${q}`).toEqual({
          ...pjson(u.sum),
          unpricedPositions: u.missing,
        });
      }
      expect(Object.keys(agg.realisedByQuote).sort()).toEqual([...realised.keys()].sort());
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('population identity: traders’ bought and sold quantities sum to the swaps’ flows; trades list every swap once', async () => {
    const flows = new Map<string, { bought: bigint; sold: bigint; swaps: number }>();
    for (const s of node.swaps) {
      const { token, quote } = sides(s.pool);
      const got = -(s.pool.currency0 === token ? s.a0 : s.a1);
      const f = flows.get(`${token}:${quote}`) ?? { bought: 0n, sold: 0n, swaps: 0 };
      if (got > 0n) f.bought += got;
      else f.sold -= got;
      f.swaps++;
      flows.set(`${token}:${quote}`, f);
    }
    const traders = [...new Set(node.swaps.map((s) => s.origin))];
    const sums = new Map<string, { bought: bigint; sold: bigint }>();
    const tradeSums = new Map<string, { bought: bigint; sold: bigint }>();
    const seen = new Set<string>();
    for (const t of traders) {
      for (const r of await walk(`/wallets/${t}/positions`, 100)) {
        const k = `${r.token}:${r.quote}`;
        const cur = sums.get(k) ?? { bought: 0n, sold: 0n };
        cur.bought += BigInt(r.boughtQuantity);
        cur.sold += BigInt(r.soldQuantity);
        sums.set(k, cur);
      }
      for (const r of await walk(`/wallets/${t}/trades`)) {
        expect(r.origin).toBe(t);
        const id = `${r.txHash}:${r.logIndex}`;
        expect(seen.has(id), id).toBe(false);
        seen.add(id);
        const k = `${r.token}:${r.quote.address}`;
        const cur = tradeSums.get(k) ?? { bought: 0n, sold: 0n };
        if (r.side === 'buy') cur.bought += BigInt(r.amountToken);
        else cur.sold += BigInt(r.amountToken);
        tradeSums.set(k, cur);
      }
    }
    // Every other transaction sender has no trade and no position.
    const others = new Set([...node.txs.values()].map((t) => t.from).filter((a) => !traders.includes(a)));
    expect(others.size).toBeGreaterThan(0);
    for (const a of others) {
      expect((await get(`/wallets/${a}/trades`)).data, a).toEqual([]);
      expect((await get(`/wallets/${a}/positions`)).data, a).toEqual([]);
    }
    for (const s of node.swaps) expect(seen.has(`${s.txHash}:${s.logIndex}`), s.txHash).toBe(true);
    expect(seen.size).toBe(node.swaps.length);
    expect([...sums.keys()].sort()).toEqual([...flows.keys()].sort());
    for (const [k, f] of flows) {
      expect(sums.get(k)!.bought, `bought ${k}`).toBe(f.bought);
      expect(sums.get(k)!.sold, `sold ${k}`).toBe(f.sold);
      expect(tradeSums.get(k), `trades ${k}`).toEqual({ bought: f.bought, sold: f.sold });
    }
  });
});

// ------------------------------------------------------------------------------ funding graph
/** A funder edge as the API serves it (the row type of the funding graph). */
type Edge = FundingEdge;
/** Every funder edge from the node: wallet → (funder, asset) → edge, in chain order. */
function recomputeEdges(): Map<string, Map<string, Edge>> {
  const into = new Map<string, Map<string, Edge>>();
  const add = (
    w: string,
    funder: string,
    assetKind: 'native' | 'erc20',
    asset: string | null,
    value: bigint,
    at: { block: number; txIndex: number; logIndex: number | null; txHash: string },
  ) => {
    if (funder === NATIVE || funder === w || value === 0n) return;
    let m = into.get(w);
    if (!m) into.set(w, (m = new Map()));
    const k = `${funder}:${asset ?? NATIVE}`;
    const e = m.get(k) ?? {
      funder,
      assetKind,
      asset,
      first: { ...at, value: value.toString() },
      lastBlock: at.block,
      count: 0,
      total: '0',
    };
    e.total = (BigInt(e.total) + value).toString();
    e.count++;
    e.lastBlock = at.block;
    m.set(k, e);
  };
  // Native (top-level value of successful transactions) precedes a block's logs in the index's
  // processing order, but the two assets never share an edge, so only per-asset order matters.
  const txs = [...node.txs.entries()].sort((a, b) => a[1].block - b[1].block || a[1].txIndex - b[1].txIndex);
  for (const [hash, t] of txs)
    if (t.ok && t.value > 0n && t.to)
      add(t.to, t.from, 'native', null, t.value, {
        block: t.block,
        txIndex: t.txIndex,
        logIndex: null,
        txHash: hash,
      });
  for (const l of node.transfers)
    add(l.to, l.from, 'erc20', l.token, l.value, {
      block: l.block,
      txIndex: l.txIndex,
      logIndex: l.logIndex,
      txHash: l.txHash,
    });
  return into;
}
/** Earliest incoming transfer per asset: the first edge (chain order) of each asset. */
function firstFunding(edges: Map<string, Edge> | undefined) {
  const best = new Map<string, Edge>();
  for (const e of edges?.values() ?? []) {
    const k = e.asset ?? NATIVE;
    const cur = best.get(k);
    const before =
      !cur ||
      e.first.block < cur.first.block ||
      (e.first.block === cur.first.block &&
        (e.first.txIndex < cur.first.txIndex ||
          (e.first.txIndex === cur.first.txIndex && (e.first.logIndex ?? 0) < (cur.first.logIndex ?? 0))));
    if (before) best.set(k, e);
  }
  return [...best.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, e]) => ({ funder: e.funder, assetKind: e.assetKind, asset: e.asset, ...e.first }));
}
const edgeOrder = (
  a: { funder: string; asset: string | null },
  b: { funder: string; asset: string | null },
) =>
  a.funder === b.funder ? ((a.asset ?? NATIVE) < (b.asset ?? NATIVE) ? -1 : 1) : a.funder < b.funder ? -1 : 1;

describe('funding chains of the traffic generator', () => {
  it('every generated chain (native and ERC-20) is recovered hop by hop, and the funding routes equal the node', async () => {
    const edges = recomputeEdges();
    // Hops whose two transactions both succeeded, per the node (not the generator's word).
    const minedHops = (c: FundingChainRecord) => {
      const out: FundingChainRecord['hops'] = [];
      for (const h of c.hops) {
        const a = h.nativeTx ? node.txs.get(h.nativeTx) : undefined;
        const b = h.tokenTx ? node.txs.get(h.tokenTx) : undefined;
        if (!a?.ok || !b?.ok) break;
        out.push(h);
      }
      return out;
    };
    const recovered = chains.map(minedHops);
    if (process.env.WPOP_VERBOSE)
      console.log(
        `funding chains: hops mined ${recovered.map((h) => h.length)} of ${chains.map((c) => c.wallets.length)}`,
      );
    expect(recovered.filter((h) => h.length >= 2).length, JSON.stringify(chains)).toBeGreaterThanOrEqual(1);
    const wallets = new Set<string>();
    for (let ci = 0; ci < chains.length; ci++) {
      const c = chains[ci];
      const hops = recovered[ci];
      for (const h of hops) {
        wallets.add(h.from);
        wallets.add(h.to);
        const rows = await walk(`/wallets/${h.to}/funded-by`);
        const native = rows.find((r) => r.assetKind === 'native');
        const token = rows.find((r) => r.assetKind === 'erc20' && r.asset === c.token);
        expect(native, h.to).toMatchObject({
          funder: h.from,
          asset: null,
          txHash: h.nativeTx,
          value: h.native,
        });
        expect(token, h.to).toMatchObject({ funder: h.from, txHash: h.tokenTx, value: h.amount });
      }
      if (!hops.length) continue;
      // Walk the chain back from its last wallet through the index only, per asset.
      for (const asset of ['native', c.token]) {
        const path = [hops[hops.length - 1].to];
        while (path.length <= hops.length) {
          const rows = await walk(`/wallets/${path[0]}/funded-by`);
          const r = rows.find((x) => (asset === 'native' ? x.assetKind === 'native' : x.asset === asset));
          path.unshift(r.funder);
        }
        expect(path, `chain ${ci} ${asset}`).toEqual([c.root, ...c.wallets.slice(0, hops.length)]);
      }
    }
    // Every wallet on a chain (roots included): the four funding routes against the node.
    for (const w of wallets) {
      const into = edges.get(w);
      expect(await walk(`/wallets/${w}/funded-by`), `funded-by ${w}`).toEqual(firstFunding(into));
      const all = (await get(`/wallets/${w}/funded-by-all`)).data;
      expect(all.truncated).toBe(false);
      expect(all.edges, `funded-by-all ${w}`).toEqual([...(into?.values() ?? [])].sort(edgeOrder));
      const out: Array<Edge & { wallet: string }> = [];
      for (const [to, m] of edges)
        for (const e of m.values()) if (e.funder === w) out.push({ ...e, wallet: to });
      out.sort((a, b) => (a.wallet === b.wallet ? edgeOrder(a, b) : a.wallet < b.wallet ? -1 : 1));
      expect(await walk(`/wallets/${w}/funder-of`), `funder-of ${w}`).toEqual(out);
      const sib = (await get(`/wallets/${w}/funded-siblings`)).data;
      const firstNative = firstFunding(into).find((f) => f.assetKind === 'native');
      if (!firstNative) {
        expect(sib.funder).toBeNull();
        continue;
      }
      expect(sib.funder).toBe(firstNative.funder);
      const siblings: Array<Edge & { wallet: string }> = [];
      for (const [to, m] of edges)
        for (const e of m.values())
          if (e.funder === firstNative.funder && e.assetKind === 'native' && to !== w)
            siblings.push({ ...e, wallet: to });
      siblings.sort((a, b) => (a.wallet < b.wallet ? -1 : 1));
      expect(sib.siblings, `funded-siblings ${w}`).toEqual(siblings);
    }
  });
});

// ------------------------------------------------------------------------------------ activity
describe('activity feed', () => {
  it('paging a busy wallet’s activity with small cursors (both orders) equals the unpaged merge of its transactions, transfers and trades', async () => {
    const counts = new Map<string, number>();
    for (const t of node.txs.values())
      for (const a of [t.from, t.to]) if (a) counts.set(a, (counts.get(a) ?? 0) + 1);
    for (const l of node.transfers) for (const a of [l.from, l.to]) counts.set(a, (counts.get(a) ?? 0) + 1);
    const busiest = [...counts.entries()]
      .filter(([a]) => a !== NATIVE)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([a]) => a);
    const trader = [...new Set(node.swaps.map((s) => s.origin))].sort(
      (a, b) =>
        node.swaps.filter((s) => s.origin === b).length - node.swaps.filter((s) => s.origin === a).length,
    )[0];
    for (const w of [...busiest, trader]) {
      const txs = await walk(`/wallets/${w}/transactions`);
      const transfers = await walk(`/wallets/${w}/transfers`);
      const trades = await walk(`/wallets/${w}/trades`);
      const parents = new Map<
        string,
        { block: number; txIndex: number; txHash: string | null; events: any[] }
      >();
      const parent = (block: number, txIndex: number) => {
        const k = `${block}:${txIndex}`;
        let p = parents.get(k);
        if (!p) parents.set(k, (p = { block, txIndex, txHash: null, events: [] }));
        return p;
      };
      for (const t of txs) {
        const p = parent(t.block, t.txIndex);
        p.txHash = t.transaction.hash;
        p.events.push({ type: 'transaction', transaction: t.transaction });
      }
      for (const t of transfers) {
        const p = parent(t.block, t.txIndex);
        p.txHash = t.txHash;
        p.events.push({ type: 'transfer', ...t });
      }
      for (const t of trades) {
        const p = parent(t.block, t.txIndex);
        p.txHash = t.txHash;
        p.events.push({ type: 'trade', ...t });
      }
      const merged = [...parents.values()].sort((a, b) => a.block - b.block || a.txIndex - b.txIndex);
      expect(merged.length, w).toBeGreaterThan(0);
      // The wallet's own transactions (origin or recipient) are all in the merge.
      const own = [...node.txs.values()].filter((t) => t.from === w || t.to === w).length;
      expect(txs.length, w).toBe(own);
      expect(await walk(`/wallets/${w}/activity`), `activity ${w}`).toEqual(merged);
      expect(await walk(`/wallets/${w}/activity`, 7), `activity ${w} limit 7`).toEqual(merged);
      expect(await walk(`/wallets/${w}/activity?order=desc`, 5), `activity ${w} desc`).toEqual(
        [...merged].reverse(),
      );
    }
  });
});
