/**
 * Issue E end-to-end on the full devnet (real Uniswap V2/V3/V4 bytecode, real anvil, no mocks):
 * pool state equals the pool contracts at the anchor block (V2 getReserves, V3 slot0/liquidity,
 * V4 through PoolManager.extsload with the StateLibrary layout), and candles recomputed
 * independently from the raw swap logs (eth_getLogs, decoded with viem) equal the route for every
 * frame.
 */
import { decodeEventLog, encodeAbiParameters, keccak256, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkPages } from '../harness/client.js';
import { assertFrame } from '../harness/contract.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';

let dev: TestDevnet;
let idx: IndexerProcess;

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);
const call = (to: string, data: string, block: number) =>
  rpc<string>('eth_call', [{ to, data }, `0x${block.toString(16)}`]);
const word = (hex: string, i: number) => BigInt(`0x${hex.slice(2 + 64 * i, 2 + 64 * (i + 1))}`);
const signed24 = (x: bigint) => Number(BigInt.asIntN(24, x));

const walk = (path: string) => walkPages(idx, path);

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 25 });
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: {
      ...devnetIndexerEnv(dev, { usdStablecoins: [], quoteAssets: null, launchpad: false }),
      TRACES: 'off',
      SCREENER_CEILING: '12',
    },
  });
  await idx.waitForHead(50, 120_000);
}, 240_000);

/** Stops traffic so reconciliation reads a settled chain. */
async function settle() {
  // The screener ceiling case needs more WETH pools traded than SCREENER_CEILING (12): the random
  // traffic reaches them only after a while, so it runs until the screener refuses (at most 90 s).
  const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
  for (let i = 0; i < 90; i++) {
    if ((await idx.get(`/screener?quote=${weth}&window=24h&grain=pool`)).status === 503) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  await dev.traffic?.stop();
  const head = Number.parseInt(await rpc<string>('eth_blockNumber', []), 16);
  await idx.waitForHead(head + 1, 60_000);
}

describe('live candle stream (traffic running)', () => {
  it('closed candle frames equal the REST candles of the same buckets', async () => {
    const { EventSource } = await import('eventsource');
    const { TEST_KEY } = await import('../harness/indexer.js');
    const { rows: pools } = await walk('/pools/new');
    const v2 = pools.filter((p) => p.protocol === 'v2');
    const select = v2
      .slice(0, 8)
      .map((p) => `pool:${p.address}:1s`)
      .join(',');
    const es = new EventSource(
      `http://127.0.0.1:${idx.port}/index/v1/testnet/stream/candles?select=${select}`,
      {
        fetch: (u, init) =>
          fetch(u, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), 'x-api-key': TEST_KEY },
          }),
      },
    );
    const closes: any[] = [];
    const snapshots: any[] = [];
    const updates: Array<{ series: string; at: number }> = [];
    es.addEventListener('close', (m: MessageEvent) => closes.push(JSON.parse(m.data)));
    es.addEventListener('snapshot', (m: MessageEvent) => snapshots.push(JSON.parse(m.data)));
    es.addEventListener('update', (m: MessageEvent) =>
      updates.push({ series: JSON.parse(m.data).series, at: Date.now() }),
    );
    const t0 = Date.now();
    while (closes.filter((c) => c.candle).length < 3 && Date.now() - t0 < 40_000)
      await new Promise((r) => setTimeout(r, 100));
    es.close();
    expect(snapshots.length).toBe(16);
    const withData = closes.filter((c) => c.candle);
    expect(withData.length).toBeGreaterThanOrEqual(3);
    for (const c of withData) {
      expect(c.final).toBe(true);
      const addr = c.series.split(':')[1];
      const r = await idx.get(`/pools/${addr}/ohlcv?frame=1s&from=${c.bucket}&to=${c.bucket}`);
      expect(r.body.data).toHaveLength(1);
      // The stream serves the REST row itself: every field, nothing more.
      expect(c.candle).toEqual(r.body.data[0]);
    }
    // At most one update per 250 ms per series.
    const bySeries = new Map<string, number[]>();
    for (const u of updates) bySeries.set(u.series, [...(bySeries.get(u.series) ?? []), u.at]);
    for (const ts of bySeries.values())
      for (let i = 1; i < ts.length; i++) expect(ts[i] - ts[i - 1]).toBeGreaterThanOrEqual(200);
  });
});

afterAll(stopAll(() => [idx, dev]));

describe('pool state reconciles with the pool contracts at the anchor block', () => {
  beforeAll(settle, 180_000);
  it('V2 reserves = getReserves, V3 slot0/liquidity, V4 extsload', async () => {
    const { rows: pools } = await walk('/pools/new');
    const by = (p: string) => pools.filter((x) => x.protocol === p);
    expect(by('v2').length).toBeGreaterThan(5);
    expect(by('v3').length).toBeGreaterThan(2);
    expect(by('v4').length).toBeGreaterThan(1);
    for (const p of by('v2')) {
      const d = await idx.get(`/pools/${p.address}`);
      const A = d.body.anchor.block;
      const r = await call(p.address, '0x0902f1ac', A);
      expect(d.body.data.state.reserve0).toBe(word(r, 0).toString());
      expect(d.body.data.state.reserve1).toBe(word(r, 1).toString());
    }
    for (const p of by('v3')) {
      const d = await idx.get(`/pools/${p.address}/liquidity`);
      const A = d.body.anchor.block;
      const slot0 = await call(p.address, '0x3850c7bd', A);
      const liq = await call(p.address, '0x1a686502', A);
      expect(d.body.data.liquidity.sqrtPriceX96).toBe(word(slot0, 0).toString());
      expect(d.body.data.liquidity.tick).toBe(signed24(word(slot0, 1)));
      expect(d.body.data.liquidity.liquidity).toBe(word(liq, 0).toString());
    }
    for (const p of by('v4')) {
      const d = await idx.get(`/pools/v4/${p.contract}/${p.poolId}/liquidity`);
      expect(d.status, d.text).toBe(200);
      const A = d.body.anchor.block;
      // StateLibrary: pools mapping at slot 6; Slot0 packs sqrtPriceX96 (160) | tick (24) | fees; liquidity at +3.
      const stateSlot = BigInt(
        keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [p.poolId, 6n])),
      );
      const extsload = (slot: bigint) =>
        call(p.contract, `0x1e2eaeaf${slot.toString(16).padStart(64, '0')}`, A);
      const s0 = BigInt(await extsload(stateSlot));
      const liq = BigInt(await extsload(stateSlot + 3n));
      expect(d.body.data.liquidity.sqrtPriceX96).toBe((s0 & ((1n << 160n) - 1n)).toString());
      expect(d.body.data.liquidity.tick).toBe(signed24((s0 >> 160n) & 0xffffffn));
      expect(d.body.data.liquidity.liquidity).toBe((liq & ((1n << 128n) - 1n)).toString());
    }
  });
});

describe('candles recomputed from the raw swap logs', () => {
  const V2 = parseAbi([
    'event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)',
    'event Sync(uint112 reserve0, uint112 reserve1)',
  ]);
  const V3 = parseAbi([
    'event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)',
  ]);
  const cmp = (a: [bigint, bigint], b: [bigint, bigint]) =>
    a[0] * b[1] < b[0] * a[1] ? -1 : a[0] * b[1] > b[0] * a[1] ? 1 : 0;
  const gcd = (a: bigint, b: bigint): bigint => (b ? gcd(b, a % b) : a < 0n ? -a : a);
  const red = (n: bigint, d: bigint): [bigint, bigint] => {
    const g = gcd(n, d) || 1n;
    return [n / g, d / g];
  };

  it('every frame of the busiest V2 and V3 pools matches exactly', async () => {
    const { rows: pools, anchor } = await walk('/pools/new');
    const busiest = async (proto: string) => {
      let best: any = null;
      for (const p of pools.filter((x) => x.protocol === proto)) {
        const d = await idx.get(`/pools/${p.address}`);
        if (!best || d.body.data.state.swaps > best.swaps) best = { ...p, swaps: d.body.data.state.swaps };
      }
      return best;
    };
    for (const proto of ['v2', 'v3']) {
      const p = await busiest(proto);
      expect(p.swaps).toBeGreaterThan(0);
      const A = anchor.block;
      const logs = await rpc<any[]>('eth_getLogs', [
        { address: p.address, fromBlock: '0x0', toBlock: `0x${A.toString(16)}` },
      ]);
      const ts = new Map<string, number>();
      const trades: Array<{ t: number; price: [bigint, bigint]; v0: bigint; v1: bigint; buy: boolean }> = [];
      let reserves: [bigint, bigint] | null = null;
      for (const l of logs) {
        if (!ts.has(l.blockNumber))
          ts.set(
            l.blockNumber,
            Number.parseInt((await rpc('eth_getBlockByNumber', [l.blockNumber, false])).timestamp, 16),
          );
        const t = ts.get(l.blockNumber)!;
        if (proto === 'v2') {
          let ev: any;
          try {
            ev = decodeEventLog({ abi: V2, data: l.data, topics: l.topics });
          } catch {
            continue;
          }
          if (ev.eventName === 'Sync') reserves = [ev.args.reserve0, ev.args.reserve1];
          else if (ev.eventName === 'Swap' && reserves) {
            const a0 = (ev.args.amount0In as bigint) - (ev.args.amount0Out as bigint);
            const a1 = (ev.args.amount1In as bigint) - (ev.args.amount1Out as bigint);
            trades.push({
              t,
              price: red(reserves[1], reserves[0]),
              v0: a0 < 0n ? -a0 : a0,
              v1: a1 < 0n ? -a1 : a1,
              buy: a0 < 0n,
            });
          }
        } else {
          let ev: any;
          try {
            ev = decodeEventLog({ abi: V3, data: l.data, topics: l.topics });
          } catch {
            continue;
          }
          const s = ev.args.sqrtPriceX96 as bigint;
          const a0 = ev.args.amount0 as bigint;
          const a1 = ev.args.amount1 as bigint;
          trades.push({
            t,
            price: red(s * s, 1n << 192n),
            v0: a0 < 0n ? -a0 : a0,
            v1: a1 < 0n ? -a1 : a1,
            buy: a0 < 0n,
          });
        }
      }
      expect(trades.length).toBe(p.swaps);
      for (const [frame, width] of [
        ['1s', 1],
        ['30s', 30],
        ['1m', 60],
        ['1h', 3600],
        ['1d', 86400],
      ] as const) {
        const expected = new Map<number, any>();
        for (const tr of trades) {
          const b = Math.floor(tr.t / width) * width;
          const c = expected.get(b);
          if (!c)
            expected.set(b, {
              t: b,
              open: tr.price,
              high: tr.price,
              low: tr.price,
              close: tr.price,
              v0: tr.v0,
              v1: tr.v1,
              n: 1,
              buys: tr.buy ? 1 : 0,
            });
          else {
            if (cmp(tr.price, c.high) > 0) c.high = tr.price;
            if (cmp(tr.price, c.low) < 0) c.low = tr.price;
            c.close = tr.price;
            c.v0 += tr.v0;
            c.v1 += tr.v1;
            c.n++;
            c.buys += tr.buy ? 1 : 0;
          }
        }
        const from = Math.min(...expected.keys());
        const to = Math.max(...expected.keys());
        const r = await idx.get(`/pools/${p.address}/ohlcv?frame=${frame}&from=${from}&to=${to}&limit=1000`);
        expect(r.status, r.text).toBe(200);
        const got = r.body.data;
        expect(got.length).toBe(expected.size);
        for (const c of got) {
          const e = expected.get(c.t);
          const rat = (x: any) => [BigInt(x.priceNumerator), BigInt(x.priceDenominator)];
          expect(rat(c.open)).toEqual(e.open);
          expect(rat(c.high)).toEqual(e.high);
          expect(rat(c.low)).toEqual(e.low);
          expect(rat(c.close)).toEqual(e.close);
          expect(c.volumeBase).toBe(e.v0.toString());
          expect(c.volumeQuote).toBe(e.v1.toString());
          expect(c.trades).toBe(e.n);
          expect(c.buys).toBe(e.buys);
        }
      }
      // Swaps route: every swap, amounts in pool perspective, origin set.
      const { rows: swaps } = await walk(`/pools/${p.address}/swaps`);
      expect(swaps.length).toBe(trades.length);
      for (const s of swaps) expect(s.origin).toMatch(/^0x[0-9a-f]{40}$/);
    }
  });

  it('bars fold the tick sequence: trade bars of 3 cover every tick once', async () => {
    const { rows: pools } = await walk('/pools/new');
    const p = pools.find((x) => x.protocol === 'v2');
    const ticks = (await walk(`/pools/${p.address}/ticks`)).rows;
    const bars = (await walk(`/pools/${p.address}/ticks/bars?rule=trade&size=3`)).rows;
    expect(bars.reduce((a, b) => a + b.trades, 0)).toBe(ticks.length);
    for (const b of bars.slice(0, -1)) expect(b.trades).toBe(3);
  });

  it('search refusals and anchors', async () => {
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address;
    expect((await idx.get(`/pools/search?factory=x&token=${weth}`)).status).toBe(400);
    expect((await idx.get(`/pools/search?sort=liquidity&token=${weth}`)).status).toBe(400);
    expect((await idx.get('/pools/search')).status).toBe(400);
    expect((await idx.get(`/pools/search?token=${weth}&protocol=v2`)).status).toBe(400);
    const ok = await idx.get(`/pools/search?token=${weth}&protocol=v2&allowScan=true`);
    expect(ok.status).toBe(200);
    for (const r of ok.body.data) expect(r.protocol).toBe('v2');
  });
});

describe('quote and venue rules on a token trading against WETH and a stablecoin', () => {
  it('two separate series, never blended; ambiguous without quote; inadmissible quote 409', async () => {
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
    const usdc = dev.deployment.tokens.find((t) => t.key === 'USDC')!.address.toLowerCase();
    const link = dev.deployment.tokens.find((t) => t.key === 'LINK')!.address.toLowerCase();
    const amb = await idx.get(`/tokens/${link}/price`);
    expect(amb.status).toBe(400);
    expect(amb.body.candidates).toEqual(expect.arrayContaining([weth, usdc]));
    const bad = await idx.get(`/tokens/${link}/price?quote=0x${'12'.repeat(20)}`);
    expect(bad.status).toBe(409);
    expect(bad.body.error).toBe('quote_not_admitted');
    const inWeth = await idx.get(`/tokens/${link}/price?quote=${weth}`);
    const inUsdc = await idx.get(`/tokens/${link}/price?quote=${usdc}`);
    expect(inWeth.status).toBe(200);
    expect(inUsdc.status).toBe(200);
    expect(inWeth.body.data.venue.pool).not.toBe(inUsdc.body.data.venue.pool);
    expect(inWeth.body.data.venue.rule).toMatch(/24h/);
    // The default-venue candles equal the venue pool's own candles, oriented quote per token.
    const now = Math.floor(Date.now() / 1000);
    for (const q of [weth, usdc]) {
      const c = await idx.get(
        `/tokens/${link}/candles?quote=${q}&frame=1m&from=${now - 3600}&to=${now + 60}&limit=1000`,
      );
      expect(c.status, c.text).toBe(200);
      const venue = c.body.venue;
      const pool = (await walk('/pools/new')).rows.find((p) => p.key === venue.pool);
      const path =
        pool.protocol === 'v4' ? `/pools/v4/${pool.contract}/${pool.poolId}` : `/pools/${pool.address}`;
      const pc = await idx.get(`${path}/ohlcv?frame=1m&from=${now - 3600}&to=${now + 60}&limit=1000`);
      const linkIsBase = pool.currency0 === link;
      expect(c.body.data.length).toBe(pc.body.data.length);
      for (let i = 0; i < c.body.data.length; i++) {
        const a = c.body.data[i];
        const b = pc.body.data[i];
        expect(a.volumeBase).toBe(linkIsBase ? b.volumeBase : b.volumeQuote);
        // The exact rationals (each side's `approx` is the decimal of its own orientation).
        const exact = (x: any) => ({
          priceNumerator: x.priceNumerator,
          priceDenominator: x.priceDenominator,
        });
        const inv = (x: any) => ({ priceNumerator: x.priceDenominator, priceDenominator: x.priceNumerator });
        expect(exact(a.close)).toEqual(linkIsBase ? exact(b.close) : inv(b.close));
        expect(exact(a.high)).toEqual(linkIsBase ? exact(b.high) : inv(b.low));
      }
      // Token-grain ohlcv for one quote sums exactly the volumes of that quote's pools only.
      const o = await idx.get(
        `/tokens/${link}/ohlcv?quote=${q}&frame=1d&from=${now - 5 * 86400}&to=${now + 86400}`,
      );
      const { rows: pools } = await walk(`/tokens/${link}/pools/by-currency/${q}`);
      let vol = 0n;
      for (const p of pools) {
        const pp = p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.address}`;
        const d = await idx.get(`${pp}/ohlcv?frame=1d&from=${now - 5 * 86400}&to=${now + 86400}`);
        for (const row of d.body.data) vol += BigInt(p.currency0 === link ? row.volumeBase : row.volumeQuote);
      }
      expect(o.body.data.reduce((a: bigint, r: any) => a + BigInt(r.volumeBase), 0n)).toBe(vol);
    }
    const mc = await idx.get(`/tokens/${link}/mcap?quote=${weth}`);
    expect(BigInt(mc.body.data.marketCap.priceNumerator) * BigInt(mc.body.data.price.priceDenominator)).toBe(
      BigInt(mc.body.data.price.priceNumerator) *
        BigInt(mc.body.data.supply) *
        BigInt(mc.body.data.marketCap.priceDenominator),
    );
    const ov = await idx.get(`/tokens/${link}/overview?quote=${weth}`);
    expect(ov.status).toBe(200);
    expect(ov.body.data.holderCount.status).toBe('exact');
    expect(ov.body.data.market.venue.pool).toBe(inWeth.body.data.venue.pool);
  });
});

describe('screener and rankings', () => {
  it('figures, filters and sorts equal a brute-force recomputation from the swaps', async () => {
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
    const { rows: pools } = await walk(`/currencies/${weth}/pools`);
    // Brute force over every swap of every pool against WETH (the devnet is younger than 24 h).
    const expected = new Map<
      string,
      { vol: bigint; buyVol: bigint; trades: number; buys: number; traders: Set<string> }
    >();
    for (const p of pools) {
      const path =
        p.protocol === 'v4'
          ? `/pools/v4/${p.contract}/${p.poolId}`
          : p.protocol === 'launchpad'
            ? null
            : `/pools/${p.address}`;
      if (!path) continue;
      const { rows: swaps } = await walk(`${path}/swaps`);
      const base = p.currency0 === weth ? p.currency1 : p.currency0;
      const baseIs0 = p.currency0 === base;
      const e = expected.get(base) ?? { vol: 0n, buyVol: 0n, trades: 0, buys: 0, traders: new Set<string>() };
      for (const s of swaps) {
        const q = BigInt(baseIs0 ? s.amount1 : s.amount0);
        const qa = q < 0n ? -q : q;
        const buy = BigInt(baseIs0 ? s.amount0 : s.amount1) < 0n;
        e.vol += qa;
        if (buy) {
          e.buyVol += qa;
          e.buys++;
        }
        e.trades++;
        e.traders.add(s.origin);
      }
      expected.set(base, e);
    }
    let r = await idx.get(`/screener?quote=${weth}&window=24h&limit=100&recency_floor_block=0`);
    if (r.status === 503) {
      // Too many candidates for the test ceiling: the suggested floor must work.
      expect(r.body.ceiling).toBe(12);
      r = await idx.get(
        `/screener?quote=${weth}&window=24h&limit=100&recency_floor_block=${r.body.suggestedRecencyFloorBlock}`,
      );
    }
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(3);
    for (const row of r.body.data) {
      const e = expected.get(row.base.address)!;
      expect(row.totalVolumeQuote).toBe(e.vol.toString());
      expect(row.buyVolumeQuote).toBe(e.buyVol.toString());
      expect(row.sellVolumeQuote).toBe((e.vol - e.buyVol).toString());
      expect(row.trades).toBe(e.trades);
      expect(row.buys).toBe(e.buys);
      expect(row.distinctTraders).toEqual({ lowerBound: e.traders.size, exact: true });
    }
    const vols = r.body.data.map((x: any) => BigInt(x.totalVolumeQuote));
    for (let i = 1; i < vols.length; i++) expect(vols[i - 1] >= vols[i]).toBe(true);
  });

  it('the ceiling 503 carries usable suggestions; filters need allowScan; rankings equal their screener query; cursors keep the anchor', async () => {
    const weth = dev.deployment.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
    const over = await idx.get(`/screener?quote=${weth}&window=24h&grain=pool`);
    expect(over.status).toBe(503);
    for (const f of ['suggestedRecencyFloorBlock', 'candidatesScanned', 'ceiling', 'rankedAtBlock'])
      expect(over.body).toHaveProperty(f);
    const floor = over.body.suggestedRecencyFloorBlock;
    const ok = await idx.get(
      `/screener?quote=${weth}&window=24h&grain=pool&recency_floor_block=${floor}&limit=2`,
    );
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.recencyFloorBlock).toBe(floor);
    expect((await idx.get(`/screener?quote=${weth}&min_trades=1&recency_floor_block=${floor}`)).status).toBe(
      400,
    );
    const filtered = await idx.get(
      `/screener?quote=${weth}&min_trades=3&allowScan=true&recency_floor_block=${floor}&window=24h`,
    );
    expect(filtered.status).toBe(200);
    for (const row of filtered.body.data) expect(row.trades).toBeGreaterThanOrEqual(3);
    // Cursor walk keeps its anchor.
    if (ok.body.page.nextCursor) {
      const p2 = await idx.get(
        `/screener?quote=${weth}&window=24h&grain=pool&recency_floor_block=${floor}&limit=2&cursor=${ok.body.page.nextCursor}`,
      );
      expect(p2.body.anchor).toEqual(ok.body.anchor);
    }
    const cat = await idx.get('/rankings');
    expect(cat.body.data.length).toBeGreaterThanOrEqual(5);
    for (const preset of cat.body.data) {
      const rk = await idx.get(
        `/rankings/${preset.name}?quote=${weth}&window=24h&recency_floor_block=${floor}`,
      );
      expect(rk.status, rk.text).toBe(200);
      const eq = await idx.get(rk.body.equivalentScreenerQuery.replace('/screener', '/screener'));
      expect(eq.status, eq.text).toBe(200);
      expect(rk.body.data.map((x: any) => x.subject)).toEqual(eq.body.data.map((x: any) => x.subject));
    }
    expect((await idx.get(`/rankings/most_traded?quote=${weth}&metric=trades`)).status).toBe(400);
  });
});

describe('amm-events and pools streams (traffic stopped)', () => {
  /** Every frame of a topic stream from sequence 0 until it goes quiet, each validated against the contract. */
  async function drain(
    path: string,
    events: string[],
  ): Promise<Array<{ event: string; id: string; data: any }>> {
    const { EventSource } = await import('eventsource');
    const { TEST_KEY } = await import('../harness/indexer.js');
    const full = `/index/v1/testnet${path}`;
    const es = new EventSource(`http://127.0.0.1:${idx.port}${full}`, {
      fetch: (u, init) =>
        fetch(u, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), 'x-api-key': TEST_KEY },
        }),
    });
    const got: Array<{ event: string; id: string; data: any }> = [];
    const violations: string[] = [];
    let last = Date.now();
    for (const e of events)
      es.addEventListener(e, (m: MessageEvent) => {
        const data = JSON.parse(m.data);
        try {
          assertFrame(full, e, m.lastEventId || null, data);
        } catch (err) {
          violations.push((err as Error).message);
        }
        got.push({ event: e, id: m.lastEventId, data });
        last = Date.now();
      });
    const t0 = Date.now();
    while (Date.now() - last < 1500 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 100));
    es.close();
    expect(violations.slice(0, 5), `${path}: frames that break the contract`).toEqual([]);
    return got;
  }

  it('swap and liquidity frames validate against the contract and equal the REST rows; pool_new frames name every pool', async () => {
    const amm = await drain('/stream/amm-events?all=true&after_sequence=0', [
      'swap',
      'liquidity',
      'reorg',
      'lag',
    ]);
    const swaps = amm.filter((f) => f.event === 'swap');
    expect(swaps.length).toBeGreaterThan(20);
    expect(amm.some((f) => f.event === 'liquidity')).toBe(true);
    // The frames of the busiest V2 pool are its REST swaps, one for one.
    const byPool = new Map<string, any[]>();
    for (const f of swaps)
      if (f.data.protocol === 'v2')
        byPool.set(f.data.contract, [...(byPool.get(f.data.contract) ?? []), f.data]);
    const [addr, frames] = [...byPool.entries()].sort((a, b) => b[1].length - a[1].length)[0];
    const { rows } = await walk(`/pools/${addr}/swaps?order=asc`);
    const key = (x: any) => `${x.block}:${x.logIndex}:${x.txHash}:${x.amount0}:${x.amount1}:${x.side}`;
    expect(frames.map(key)).toEqual(rows.map(key));
    for (const [i, f] of frames.entries())
      expect(f.price).toBe(`${rows[i].priceNumerator}/${rows[i].priceDenominator}`);

    const pools = await drain('/stream/pools?all=true&after_sequence=0', ['pool_new', 'reorg', 'lag']);
    const listed = (await walk('/pools/new')).rows.map((p: any) => p.key).sort();
    const framed = pools
      .filter((f) => f.event === 'pool_new')
      .map((f) => f.data.key)
      .sort();
    expect(framed).toEqual(listed);
  });
});
