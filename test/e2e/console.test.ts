/**
 * The browser console end to end: a real indexer on a real devnet with traffic, driven through the
 * real Debian chromium (playwright-core). Every figure the pages show is compared with the API's
 * answer at the same anchor (the node is frozen for the comparisons); the live candles must
 * receive stream updates through EventSource (console session cookie); a 503 names its projection.
 *
 * Every test fails on a console error or an uncaught page error, except the refusals it provokes
 * on purpose (listed per test, matched by status and path). Each page is screenshotted to
 * test-output/console/ (gitignored); the PNG files are checked to exist.
 *
 * Needs chromium at /usr/bin/chromium (or CHROMIUM_PATH): `apt-get install chromium`, or run
 * .ci/run which installs it. Missing, the suite FAILS (it never skips).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { quoteText, ratioToDecimal, type TokenMeta, unitsText, usdText } from '@chain-indexer/console/format';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { freezeNode, jsonRpc } from '../harness/rpc.js';
import { type RpcProxy, startRpcProxy } from '../harness/rpc-proxy.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const BUILT = new URL('../../dist/console/index.html', import.meta.url).pathname;
const CHAIN = 'testnet';
/** Screenshots of every page (gitignored). */
const SHOTS = new URL('../../test-output/console/', import.meta.url).pathname;
/** A funded dev account the traffic generator does not use: it sends the reorg's replacement tx. */
const REPLACER = '0xa0ee7a142d267c1f36714e4a8f75612f20a79720';

let dev: TestDevnet;
/** The indexer reads the node through this proxy (a slow node for the 503 case). */
let proxy: RpcProxy;
let idx: IndexerProcess;
let browser: Browser;
let page: Page;
/** The most traded token (and its quote) while traffic runs: the live-candle subject. */
type Subject = { token: string; quote: string; pool: string; symbol: string };
let subject: Subject;

/** The browser globals the page callbacks read (they run in Chromium, not in node). */
declare const sessionStorage: { getItem(key: string): string | null };
declare const localStorage: { length: number };
declare const document: { cookie: string };
let base = '';

const api = async (path: string) => {
  const r = await idx.get(path);
  if (r.status !== 200) throw new Error(`GET ${path} → ${r.status} ${r.text.slice(0, 300)}`);
  return r.body;
};
const text = async (testid: string, scope = page) =>
  (await scope.getByTestId(testid).first().textContent())?.trim();
const anchorOf = async (panel: string) =>
  Number(await page.getByTestId(panel).first().getAttribute('data-anchor', { timeout: 20_000 }));
/** Symbol and decimals of a token as the console shows amounts in it (native: ETH, 18). */
const metaOf = async (token: string): Promise<TokenMeta> => {
  if (/^0x0{40}$/.test(token)) return { symbol: 'ETH', decimals: 18 };
  const t = (await api(`/tokens/${token}`)).data;
  return { symbol: t.symbol, decimals: t.decimals };
};
/** API path of a pool from its key (V2/V3 by address, V4 by manager and pool id). */
const poolPath = (k: string): string =>
  /^0+$/.test(k.slice(42)) ? `/pools/${k.slice(0, 42)}` : `/pools/v4/${k.slice(0, 42)}/0x${k.slice(42)}`;
const nodeHead = async () => Number(BigInt(await jsonRpc<string>(dev.rpcUrl, 'eth_blockNumber')));

/** What the browser logged as an error (console.error, failed resource, uncaught exception). */
interface Logged {
  kind: 'console' | 'pageerror';
  text: string;
  /** The resource or script the message is about. */
  url: string;
}
/** A refusal a test provokes on purpose: Chromium logs it as a failed resource. */
interface Expected {
  status: number;
  path: RegExp;
  why: string;
}
const logged: Logged[] = [];
/** The refusals the running test provokes on purpose (reset after each test). */
let expected: Expected[] = [];
const isExpected = (e: Logged): boolean =>
  e.kind === 'console' &&
  expected.some(
    (x) =>
      e.text ===
        `Failed to load resource: the server responded with a status of ${x.status} (${STATUS_TEXT[x.status]})` &&
      x.path.test(new URL(e.url, base).pathname),
  );
const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  404: 'Not Found',
  503: 'Service Unavailable',
};
/** Screenshots written so far (name → path). */
const shots = new Map<string, string>();
/** Writes a full-page screenshot of what the page shows now; checks a PNG was written. */
const shot = async (name: string) => {
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  expect(readFileSync(path).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  shots.set(name, path);
};
/** Exact equality of two rationals given as `n/d` strings (reduced before comparing). */
const reduced = (r: string): string => {
  let [n, d] = r.split('/').map(BigInt);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
  const g = gcd(n, d);
  [n, d] = [n / g, d / g];
  return d < 0n ? `${-n}/${-d}` : `${n}/${d}`;
};
/** Waits for a panel to show its answer (an anchor badge), then for its API-equal figures. */
const open = async (hash: string, panel: string) => {
  await page.goto(`${base}/${hash}`);
  await page.getByTestId(panel).getByTestId('anchor').first().waitFor({ timeout: 20_000 });
};

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `chromium not found at ${CHROMIUM}: the console test needs the real browser — apt-get install chromium (or run .ci/run)`,
    );
  if (!existsSync(BUILT)) throw new Error(`console not built (${BUILT} missing): run npm run build`);
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 15 });
  await dev.traffic?.ready;
  proxy = await startRpcProxy({ upstream: dev.rpcUrl });
  idx = await startIndexer({
    rpcUrl: proxy.url,
    chain: CHAIN,
    env: devnetIndexerEnv(dev, { chain: CHAIN }),
  });
  base = `http://127.0.0.1:${idx.port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') logged.push({ kind: 'console', text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (e) =>
    logged.push({ kind: 'pageerror', text: String(e.stack ?? e), url: page.url() }),
  );
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  // Pick the token with the most trades in the last 5 minutes once traffic has traded a while.
  const deadline = Date.now() + 60_000;
  while (!subject && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2000));
    let best: { trades: number; s: Subject } | null = null;
    for (const t of dev.deployment.tokens.filter((x) => x.kind === 'standard' || x.kind === 'ownable')) {
      const r = await idx.get(`/tokens/${t.address}/stats`);
      if (r.status !== 200 || !r.body.data.venue) continue;
      const trades = r.body.data.windows['5m'].trades as number;
      if (trades >= 3 && (!best || trades > best.trades))
        best = {
          trades,
          s: {
            token: t.address.toLowerCase(),
            quote: r.body.data.quote,
            pool: r.body.data.venue.pool,
            symbol: t.symbol,
          },
        };
    }
    if (best) subject = best.s;
  }
  if (!subject) throw new Error('no token traded 3 times within a minute of traffic');
}, 240_000);

afterEach(() => {
  const unexpected = logged.filter((e) => !isExpected(e));
  logged.length = 0;
  expected = [];
  expect(unexpected, 'console errors or page errors in the browser').toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await idx?.stop();
  await proxy?.close();
  await dev?.stop();
});

describe('browser console', () => {
  it('asks for a key: a wrong key is refused, the test key opens the ops page; no dev key offered off the embedded devnet', async () => {
    // Not the embedded devnet (RPC_URL): the dev key is never offered, even on loopback.
    expect((await fetch(`${base}/console/dev-key`)).status).toBe(404);
    const index = await fetch(`${base}/`);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(await index.text())![1];
    const asset = await fetch(`${base}${js}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    // The API keeps its key: a stream without key or cookie is 401.
    expect((await fetch(`${base}/index/v1/${CHAIN}/stream/heads`)).status).toBe(401);

    expected = [
      {
        status: 404,
        path: /^\/console\/dev-key$/,
        why: 'the login probes for the dev key; not offered here',
      },
      { status: 401, path: /^\/console\/session$/, why: 'the wrong key is refused' },
      {
        status: 401,
        path: new RegExp(`^/index/v1/${CHAIN}/tokens$`),
        why: 'a REST route with the stream cookie and no key is refused',
      },
    ];
    await page.goto(`${base}/`);
    await page.getByTestId('key').fill('not-a-key');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.locator('.refusal').first().textContent()).toContain('unknown API key');
    expect(await page.getByTestId('dev-key-offered').count()).toBe(0);
    await shot('login-refused');
    // Both refusals were logged by the browser, and nothing else (checked after the test).
    const failed = logged.map(
      (e) => `${new URL(e.url, base).pathname} ${e.text.replace(/.* status of /, '')}`,
    );
    expect(failed).toEqual(
      expect.arrayContaining(['/console/dev-key 404 (Not Found)', '/console/session 401 (Unauthorized)']),
    );
    await page.getByTestId('key').fill(TEST_KEY);
    await page.getByTestId('login-submit').click();
    await page.getByTestId('ops-head').waitFor({ timeout: 20_000 });
    // The key lives in this tab's session storage only; the stream cookie is HttpOnly.
    expect(await page.evaluate(() => sessionStorage.getItem('indexer-console.key'))).toBe(TEST_KEY);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.evaluate(() => document.cookie)).not.toContain('ix_stream');
    // The cookie opens streams only: a REST route with the cookie and no key is still 401.
    const viaCookie = await page.evaluate(async (chain) => {
      const rest = await fetch(`/index/v1/${chain}/tokens?limit=1`);
      const ctl = new AbortController();
      const stream = await fetch(`/index/v1/${chain}/stream/heads`, { signal: ctl.signal });
      ctl.abort();
      return { rest: rest.status, stream: stream.status };
    }, CHAIN);
    expect(viaCookie).toEqual({ rest: 401, stream: 200 });
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'ix_stream')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
      path: '/index/v1/',
    });
  });

  it('token page: live candles through EventSource receive stream updates; recent swaps arrive from amm-events', async () => {
    await open(`#/${CHAIN}/token/${subject.token}`, 'token-identity');
    const chart = page.getByTestId('candles');
    await chart.locator('canvas').first().waitFor({ timeout: 20_000 });
    expect(await chart.getAttribute('data-state', { timeout: 20_000 })).not.toBe(
      'stream refused; renewing session',
    );
    await expect
      .poll(async () => Number(await chart.getAttribute('data-live-updates')), {
        timeout: 45_000,
        interval: 500,
      })
      .toBeGreaterThan(0);
    expect(Number(await chart.getAttribute('data-bars'))).toBeGreaterThan(0);
    await expect
      .poll(async () => Number(await page.getByTestId('amm-feed').getAttribute('data-rows')), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    await shot('token-live');
  });

  it('freezes the node; the ops page shows the head equal to /health', async () => {
    await dev.traffic?.stop();
    // A transaction the stopped traffic had in flight can still be mined: wait until the head stands.
    const h = await freezeNode(dev.rpcUrl);
    await idx.waitForHead(h, 60_000);
    // The follower flips from backfilling to following once the last planned range is done: wait
    // for the settled state, so the page (refreshed every second) and this read see the same one.
    await expect.poll(async () => (await api('/health')).ingest.state, { timeout: 20_000 }).toBe('following');
    await page.goto(`${base}/#/ops`);
    const health = await api('/health');
    expect(health.anchor.block).toBe(h);
    await expect.poll(() => text('ops-head'), { timeout: 20_000 }).toBe(String(health.anchor.block));
    await expect.poll(() => text('ops-state'), { timeout: 5_000 }).toBe(health.ingest.state);
    expect(await anchorOf('ops-follower')).toBe(health.anchor.block);
    expect(await text('ops-node-head')).toBe(String(health.ingest.nodeHead));
    expect(await text('ops-state')).toBe(health.ingest.state);
    expect(await text('ops-open-gaps')).toBe(String(health.openGaps));
    // The HTTP core this process serves through, as /health names it (AB).
    expect(await text('ops-http-core')).toContain(
      health.http.core === 'uws' ? 'native uWebSockets.js' : 'node:http stand-in',
    );
    for (const p of health.projections)
      expect(await page.locator(`tr[data-projection="${p.name}"]`).getAttribute('data-status')).toBe(
        p.status,
      );
    await shot('ops');
  });

  it('token page: holder count, price (rational and decimal) and anchor equal the API', async () => {
    await open(`#/${CHAIN}/token/${subject.token}`, 'token-identity');
    await page.getByTestId('token-price').getByTestId('anchor').waitFor({ timeout: 20_000 });
    const t = await api(`/tokens/${subject.token}`);
    const price = await api(`/tokens/${subject.token}/price?quote=${subject.quote}`);
    expect(await anchorOf('token-identity')).toBe(t.anchor.block);
    expect(await text('holder-count')).toBe(String(t.data.holderCount.value));
    expect(await text('token-symbol')).toBe(t.data.symbol);
    expect(await anchorOf('token-price')).toBe(price.anchor.block);
    const p = price.data.price;
    expect(await text('price-rational')).toBe(`${p.priceNumerator}/${p.priceDenominator}`);
    const quoteDecimals =
      subject.quote === '0x0000000000000000000000000000000000000000'
        ? 18
        : (await api(`/tokens/${subject.quote}`)).data.decimals;
    const dec = ratioToDecimal(p.priceNumerator, p.priceDenominator, t.data.decimals - quoteDecimals, 10);
    await expect.poll(() => text('price-decimal')).toBe(`${dec} per whole token`);
    // The venue is named as people know it: a 20-byte pool address or a 32-byte V4 pool id, never
    // the 52-byte key with its zero padding.
    const venueLink = page.getByTestId('token-price').locator('a[data-pool]').first();
    const venue = price.data.venue;
    const shownPool = await venueLink.getAttribute('data-pool');
    expect(shownPool).toBe(venue.protocol === 'v4' ? venue.poolId : venue.contract);
    expect(shownPool).toMatch(/^0x([0-9a-f]{40}|[0-9a-f]{64})$/);
    expect(await venueLink.getAttribute('title')).not.toContain(venue.pool);
    // Window stats: volumes in token units with the symbol, base units one hover away.
    const stats = await api(`/tokens/${subject.token}/stats`);
    const tokenMeta = { symbol: t.data.symbol, decimals: t.data.decimals };
    const quoteMeta = await metaOf(stats.data.quote);
    const w24 = page.locator('[data-testid=token-stats] tr[data-window="24h"]');
    await expect
      .poll(async () => w24.getByTestId('window-volume-quote').textContent(), { timeout: 20_000 })
      .toMatch(new RegExp(` ${quoteMeta.symbol}$`));
    for (const [id, field, meta] of [
      ['window-volume-base', 'volumeBase', tokenMeta],
      ['window-volume-quote', 'volumeQuote', quoteMeta],
    ] as const) {
      const cell = w24.getByTestId(id);
      // The node is frozen: the page's figures are the API's at the same anchor.
      const raw: string = stats.data.windows['24h'][field];
      await expect.poll(() => cell.getAttribute('data-raw'), { timeout: 20_000 }).toBe(raw);
      const shownRaw = raw;
      expect(await cell.textContent()).toBe(unitsText(shownRaw, meta));
      expect(await cell.getAttribute('title')).toBe(`${shownRaw} base units`);
    }
    // Pools ranked: each 24h volume in its own quote's units with the symbol.
    const ranked = await api(`/tokens/${subject.token}/pools/ranked?limit=10`);
    const volumes = page.getByTestId('token-pools').getByTestId('ranked-volume');
    await expect.poll(() => volumes.count(), { timeout: 20_000 }).toBe(ranked.data.length);
    for (let i = 0; i < ranked.data.length; i++) {
      const r = ranked.data[i];
      const meta = await metaOf(r.quoteAsset);
      await expect.poll(() => volumes.nth(i).textContent()).toBe(unitsText(r.rankedVolume24hQuote, meta));
    }
    const holders = await api(`/tokens/${subject.token}/top-holders?limit=10`);
    expect(await anchorOf('token-holders')).toBe(holders.anchor.block);
    expect(await page.getByTestId('token-holders').locator('tbody tr').count()).toBe(holders.data.length);
    await shot('token');
  });

  it("token page: the chart's last candle close equals /pools/{address}/ohlcv at the same anchor", async () => {
    const h = await nodeHead();
    await open(`#/${CHAIN}/token/${subject.token}`, 'token-identity');
    const panel = page.getByTestId('token-candles');
    await panel.locator('button[data-frame="1m"]').click();
    const chart = panel.getByTestId('candles');
    await expect.poll(() => chart.textContent(), { timeout: 20_000 }).toContain(':1m:');
    // The node is frozen at h: the chart's history was read at h.
    await expect.poll(() => chart.getAttribute('data-history-anchor'), { timeout: 20_000 }).toBe(String(h));
    await expect.poll(() => chart.getAttribute('data-last-close'), { timeout: 20_000 }).toMatch(/^\d+\/\d+$/);
    const shown = {
      t: Number(await chart.getAttribute('data-last-t')),
      close: await chart.getAttribute('data-last-close'),
    };
    // The venue the token's candles come from, then that pool's own candles at the same anchor.
    // A window of 9000 one-minute buckets that ends in the future holds every candle so far.
    const to = Math.floor(Date.now() / 1000) + 3600;
    const win = `frame=1m&from=${to - 9000 * 60}&to=${to}&order=desc&limit=1`;
    const tc = await api(`/tokens/${subject.token}/candles?quote=${subject.quote}&${win}`);
    expect(tc.anchor.block).toBe(h);
    const ohlcv = await api(`${poolPath(tc.venue.pool)}/ohlcv?${win}`);
    expect(ohlcv.anchor).toEqual(tc.anchor);
    const last = ohlcv.data[0];
    expect(shown.t).toBe(last.t);
    // Pool candles are currency1 per currency0: inverted when the token is currency1.
    const { priceNumerator: n, priceDenominator: d } = last.close;
    const base0 = ohlcv.base.toLowerCase() === subject.token;
    if (!base0) expect(ohlcv.quote.toLowerCase()).toBe(subject.token);
    expect(reduced(shown.close!)).toBe(reduced(base0 ? `${n}/${d}` : `${d}/${n}`));
    await shot('token-chart-1m');
  });

  it('pool page: state, liquidity and anchor equal the API; frames switch 1s … 1d', async () => {
    const k: string = subject.pool;
    const id = k.slice(42);
    const v4 = !/^0+$/.test(id);
    const hash = v4 ? `#/${CHAIN}/pool/v4/${k.slice(0, 42)}/0x${id}` : `#/${CHAIN}/pool/${k.slice(0, 42)}`;
    const path = v4 ? `/pools/v4/${k.slice(0, 42)}/0x${id}` : `/pools/${k.slice(0, 42)}`;
    await open(hash, 'pool-identity');
    const pool = await api(path);
    expect(await anchorOf('pool-identity')).toBe(pool.anchor.block);
    expect(await text('pool-protocol')).toBe(pool.data.protocol);
    expect(await text('pool-swaps')).toBe(String(pool.data.state.swaps));
    if (pool.data.state.kind === 'concentrated') {
      expect(await text('pool-liquidity')).toBe(String(pool.data.state.liquidity));
      expect(await text('pool-tick')).toBe(String(pool.data.state.tick));
    } else {
      // Reserves in token units with their symbols; the base units in data-raw and the title.
      for (const [id, raw, token] of [
        ['pool-reserve0', pool.data.state.reserve0, pool.data.currency0],
        ['pool-reserve1', pool.data.state.reserve1, pool.data.currency1],
      ]) {
        expect(await text(id)).toBe(unitsText(raw, await metaOf(token)));
        expect(await page.getByTestId(id).getAttribute('title')).toBe(`${raw} base units`);
      }
    }
    const liq = await api(`${path}/liquidity`);
    await page.getByTestId('pool-liquidity-usd').getByTestId('anchor').waitFor();
    expect(await anchorOf('pool-liquidity-usd')).toBe(liq.anchor.block);
    const usd = liq.data.liquidityUsd;
    if (usd) {
      expect(await text('pool-liq-usd-rational')).toBe(`${usd.numerator}/${usd.denominator}`);
      // Dollars (liquidityUsd is in whole USD), the exact rational and the API's decimal on hover.
      expect(await text('pool-liq-usd')).toBe(usdText(usd.numerator, usd.denominator));
      expect(await page.getByTestId('pool-liq-usd').getAttribute('title')).toBe(
        `${usd.numerator}/${usd.denominator} USD (exact) ≈ ${usd.approx.decimal}`,
      );
    }
    const ticks = await api(`${path}/ticks?order=desc&limit=20`);
    expect(await page.getByTestId('pool-ticks').locator('tbody tr').count()).toBe(ticks.data.length);
    const candles = page.getByTestId('pool-candles');
    for (const f of ['1s', '30s', '1m', '1h', '1d']) {
      await candles.locator(`button[data-frame="${f}"]`).click();
      await expect.poll(() => candles.getByTestId('candles').textContent()).toContain(`:${f} — live`);
      await candles.locator('canvas').first().waitFor();
    }
    // The frozen node has had trades: the 1d candle of the pool shows them.
    await expect
      .poll(async () => Number(await candles.getByTestId('candles').getAttribute('data-bars')))
      .toBeGreaterThan(0);
    await shot('pool');
  });

  it('pool page at a past block (block picker): the anchor (number, hash) shown, figures at that block, not the head', async () => {
    const k: string = subject.pool;
    const v4 = !/^0+$/.test(k.slice(42));
    const hash = v4
      ? `#/${CHAIN}/pool/v4/${k.slice(0, 42)}/0x${k.slice(42)}`
      : `#/${CHAIN}/pool/${k.slice(0, 42)}`;
    const path = poolPath(k);
    const head = await api(path);
    // A block before the pool's last swap: its swap count there is lower than at the head.
    const n = head.data.state.lastSwapBlock - 1;
    const past = await api(`${path}?atBlock=${n}`);
    expect(past.anchor.block).toBe(n);
    expect(past.data.state.swaps).toBeLessThan(head.data.state.swaps);
    const nodeHash = (
      await jsonRpc<{ hash: string }>(dev.rpcUrl, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    ).hash;
    expect(past.anchor.hash).toBe(nodeHash);

    await open(hash, 'pool-identity');
    expect(await text('pool-swaps')).toBe(String(head.data.state.swaps));
    await page.getByTestId('at-block').fill(String(n));
    await page.getByTestId('at-block-go').click();
    await page.waitForURL(new RegExp(`\\?at=${n}$`), { timeout: 20_000 });
    // The anchor the page is shown at: number and canonical hash (the node's).
    const shown = page.getByTestId('as-of-anchor');
    await shown.waitFor({ timeout: 20_000 });
    expect([await shown.getAttribute('data-block'), await shown.getAttribute('data-hash')]).toEqual([
      String(n),
      nodeHash,
    ]);
    expect(await text('as-of-hash')).toBe(nodeHash);
    // Every as-of panel read at n; its figures are the API's at n, not the head's.
    await expect.poll(() => anchorOf('pool-identity'), { timeout: 20_000 }).toBe(n);
    expect(await page.getByTestId('pool-identity').getByTestId('anchor').getAttribute('data-hash')).toBe(
      nodeHash,
    );
    expect(await text('pool-swaps')).toBe(String(past.data.state.swaps));
    expect(await text('pool-swaps')).not.toBe(String(head.data.state.swaps));
    if (past.data.state.kind === 'concentrated')
      expect(await text('pool-tick')).toBe(String(past.data.state.tick));
    else
      expect(await page.getByTestId('pool-reserve0').getAttribute('data-raw')).toBe(past.data.state.reserve0);
    await page.getByTestId('pool-liquidity-usd').getByTestId('anchor').waitFor({ timeout: 20_000 });
    expect(await anchorOf('pool-liquidity-usd')).toBe(n);
    // Every other section follows the contract: read at n where its route takes atBlock, else it
    // says so with the contract's reason (never the head's rows).
    const doc = (await (await fetch(`${base}/index/v1/openapi.json`)).json()) as any;
    const ticksPath = v4
      ? '/index/v1/{chain}/pools/v4/{manager}/{pool_id}/ticks'
      : '/index/v1/{chain}/pools/{address}/ticks';
    const ticksAsOf = doc.paths[ticksPath].get['x-as-of'];
    const ticks = page.getByTestId('pool-ticks');
    if (ticksAsOf.supported) {
      await expect.poll(() => anchorOf('pool-ticks'), { timeout: 20_000 }).toBe(n);
      const rows = await api(`${path}/ticks?order=desc&limit=20&atBlock=${n}`);
      expect(await ticks.locator('tbody tr').count()).toBe(rows.data.length);
      expect(rows.data.every((t: any) => t.block <= n)).toBe(true);
    } else {
      await ticks.getByTestId('not-as-of').waitFor({ timeout: 20_000 });
      expect(await ticks.getByTestId('not-as-of').textContent()).toContain(ticksAsOf.reason);
    }
    // The live candles are off, saying why.
    const candles = page.getByTestId('pool-candles').getByTestId('not-as-of');
    await candles.waitFor({ timeout: 20_000 });
    expect(await candles.textContent()).toContain(
      doc.paths['/index/v1/{chain}/stream/candles'].get['x-as-of'].reason,
    );
    expect(await page.getByTestId('candles').count()).toBe(0);
    await shot('pool-as-of');
    // Back to the head.
    await page.getByTestId('at-head').click();
    await expect.poll(() => text('pool-swaps'), { timeout: 20_000 }).toBe(String(head.data.state.swaps));
    expect(await anchorOf('pool-identity')).toBe(head.anchor.block);
  });

  it('token page at a time (time picker through /blocks/at): the block shown and every section at it or saying why not', async () => {
    const h = (await api('/health')).anchor.block;
    const timestampOf = async (n: number) =>
      Number(
        BigInt(
          (
            await jsonRpc<{ timestamp: string }>(dev.rpcUrl, 'eth_getBlockByNumber', [
              `0x${n.toString(16)}`,
              false,
            ])
          ).timestamp,
        ),
      );
    // A past block whose market figures need no quote= (early on, a token with pools in several
    // quotes and no trade yet has no default venue: its stats answer 400 naming the candidates,
    // which the page shows, and the browser logs as a failed resource).
    let ts = 0;
    let resolved: { number: number; hash: string; timestamp: number } | null = null;
    for (const target of [h - 20, h - 15, h - 10, h - 6, h - 3]) {
      ts = await timestampOf(target);
      const at = (await api(`/blocks/at?timestamp=${ts}`)).data.lastAtOrBefore;
      const stats = await idx.get(`/tokens/${subject.token}/stats?atBlock=${at.number}`);
      if (stats.status === 200) {
        resolved = at;
        break;
      }
    }
    if (!resolved)
      throw new Error(`no block from ${h - 20} to ${h - 3} where the token's stats need no quote`);
    expect(resolved.timestamp).toBe(ts);
    await open(`#/${CHAIN}/token/${subject.token}`, 'token-identity');
    // The browser's own local time of ts (datetime-local is in the browser's time zone).
    const local = await page.evaluate((t) => {
      const d = new Date(t * 1000);
      const p = (x: number) => String(x).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, ts);
    await page.getByTestId('at-time').fill(local);
    await page.getByTestId('at-time-go').click();
    const shown = page.getByTestId('as-of-anchor');
    await shown.waitFor({ timeout: 20_000 });
    expect([await shown.getAttribute('data-block'), await shown.getAttribute('data-hash')]).toEqual([
      String(resolved.number),
      resolved.hash,
    ]);
    const doc = (await (await fetch(`${base}/index/v1/openapi.json`)).json()) as any;
    const sections: Array<[string, string]> = [
      ['token-identity', '/index/v1/{chain}/tokens/{address}'],
      ['token-stats', '/index/v1/{chain}/tokens/{address}/stats'],
      ['token-holders', '/index/v1/{chain}/tokens/{address}/top-holders'],
      ['token-pools', '/index/v1/{chain}/tokens/{address}/pools/ranked'],
    ];
    for (const [testid, route] of sections) {
      const asOf = doc.paths[route].get['x-as-of'];
      const panel = page.getByTestId(testid);
      if (asOf.supported)
        await expect.poll(() => anchorOf(testid), { timeout: 20_000 }).toBe(resolved.number);
      else {
        await panel.getByTestId('not-as-of').waitFor({ timeout: 20_000 });
        expect(await panel.getByTestId('not-as-of').textContent()).toContain(asOf.reason);
        expect(await panel.getByTestId('anchor').count()).toBe(0);
      }
    }
    // Top holders at that block are the API's there.
    const holders = await api(`/tokens/${subject.token}/top-holders?limit=10&atBlock=${resolved.number}`);
    expect(await page.getByTestId('token-holders').locator('tbody tr').count()).toBe(holders.data.length);
    await shot('token-as-of');
  });

  it('wallet page: positions, PnL, funding graph and anchors equal the API', async () => {
    // A recent trader of the subject that holds at least one position.
    const ticks = await api(`${poolPath(subject.pool)}/ticks?order=desc&limit=50`);
    let trader = '';
    for (const o of new Set<string>(ticks.data.map((t: any) => t.origin))) {
      if ((await api(`/wallets/${o}/positions?limit=1`)).data.length) {
        trader = o;
        break;
      }
    }
    expect(trader).not.toBe('');
    await open(`#/${CHAIN}/wallet/${trader}`, 'wallet-positions');
    const positions = await api(`/wallets/${trader}/positions?limit=50`);
    expect(await anchorOf('wallet-positions')).toBe(positions.anchor.block);
    expect(positions.data.length).toBeGreaterThan(0);
    const rows = page.getByTestId('wallet-positions').locator('tbody tr');
    expect(await rows.count()).toBe(positions.data.length);
    // Quantities in token units with the symbol, PnL in quote units (native in ETH, not wei); the
    // base units and the exact rational one hover away.
    for (const p of positions.data) {
      const row = page.locator(`[data-testid=wallet-positions] tr[data-position="${p.token}:${p.quote}"]`);
      const [tm, qm] = [await metaOf(p.token), await metaOf(p.quote)];
      const qty = row.getByTestId('position-quantity');
      await expect.poll(() => qty.textContent(), { timeout: 20_000 }).toBe(unitsText(p.quantity, tm));
      expect(await qty.getAttribute('title')).toBe(`${p.quantity} base units`);
      const realised = row.getByTestId('position-realised');
      expect(await realised.textContent()).toBe(quoteText(p.realised.numerator, p.realised.denominator, qm));
      expect(await realised.getAttribute('title')).toBe(
        `${p.realised.numerator}/${p.realised.denominator} quote base units (exact)`,
      );
      if (qm.symbol === 'ETH') expect(await realised.textContent()).toMatch(/ ETH$/);
    }
    const pnl = await api(`/wallets/${trader}/pnl`);
    await page.getByTestId('wallet-pnl').getByTestId('anchor').waitFor();
    expect(await anchorOf('wallet-pnl')).toBe(pnl.anchor.block);
    for (const [q, r] of Object.entries(pnl.data.realisedByQuote) as Array<[string, any]>)
      expect(
        await page
          .locator(`[data-testid=wallet-pnl] tr[data-quote="${q}"] [data-testid=pnl-realised]`)
          .textContent(),
      ).toBe(quoteText(r.priceNumerator, r.priceDenominator, await metaOf(q)));
    // Holdings: token units with the symbol, USD where the API marks the holding.
    const overview = await api(`/wallets/${trader}/overview`);
    const marked = overview.data.topHoldings.filter((h: any) => h.balanceUsd.value);
    const usdCells = page.getByTestId('wallet-overview').getByTestId('holding-usd');
    expect(await usdCells.count()).toBe(marked.length);
    for (let i = 0; i < marked.length; i++) {
      const v = marked[i].balanceUsd.value;
      expect(await usdCells.nth(i).textContent()).toBe(usdText(v.priceNumerator, v.priceDenominator));
    }
    const fundedBy = await api(`/wallets/${trader}/funded-by`);
    await page.getByTestId('funding-graph').waitFor();
    expect(Number(await page.getByTestId('funding-graph').getAttribute('data-funders'))).toBe(
      Math.min(12, new Set(fundedBy.data.map((f: any) => f.funder)).size),
    );
    expect(await anchorOf('wallet-funding')).toBe(fundedBy.anchor.block);
    await shot('wallet');
  });

  it('search: a symbol opens the token page, a tx hash the transaction, a number the block', async () => {
    await page.goto(`${base}/#/ops`);
    await page.getByTestId('search').fill(subject.symbol);
    await page.getByTestId('search').press('Enter');
    await page.waitForURL(new RegExp(`#/${CHAIN}/token/${subject.token}$`, 'i'), { timeout: 20_000 });
    await expect.poll(() => text('token-symbol'), { timeout: 20_000 }).toBe(subject.symbol);
    await shot('search-symbol');

    const tick = (await api(`/tokens/${subject.token}/swaps?quote=${subject.quote}&limit=1&order=desc`))
      .data[0];
    await page.getByTestId('search').fill(tick.txHash);
    await page.getByTestId('search').press('Enter');
    await page.waitForURL(new RegExp(`#/${CHAIN}/tx/${tick.txHash}$`), { timeout: 20_000 });
    await page.getByTestId('tx').getByTestId('anchor').waitFor();
    await shot('search-tx');

    await page.getByTestId('search').fill(String(tick.block));
    await page.getByTestId('search').press('Enter');
    await expect.poll(() => text('block-number'), { timeout: 20_000 }).toBe(String(tick.block));
    await shot('search-block');
  });

  it('ops page: a reorg made with anvil_reorg shows within 10 s, with its depth and blocks', async () => {
    await page.goto(`${base}/#/ops`);
    await expect
      .poll(() => page.getByTestId('reorg-feed-state').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('live');
    const h = await nodeHead();
    await idx.waitForHead(h, 60_000);
    const before = (await api('/health')).ingest;
    const DEPTH = 3;
    // Replaces the last 3 blocks with a fork of 3 blocks holding one new transfer: same height.
    await jsonRpc(dev.rpcUrl, 'anvil_reorg', [
      DEPTH,
      [[{ from: REPLACER, to: '0x000000000000000000000000000000000000c0de', value: '0x5' }, 0]],
    ]);
    const t0 = Date.now();
    expect(await nodeHead()).toBe(h);
    const row = page.getByTestId('reorg-row').first();
    await expect
      .poll(() => row.getAttribute('data-depth'), { timeout: 10_000, interval: 100 })
      .toBe(String(DEPTH));
    const seenMs = Date.now() - t0;
    expect(seenMs).toBeLessThan(10_000);
    expect({
      from: await row.getAttribute('data-from'),
      to: await row.getAttribute('data-to'),
      ancestor: await row.getAttribute('data-ancestor'),
    }).toEqual({ from: String(h - DEPTH + 1), to: String(h), ancestor: String(h - DEPTH) });
    expect(await page.getByTestId('reorg-row').count()).toBe(1);
    // The follower's counters, on the page and in /health, count it; the index serves the new fork.
    await expect
      .poll(() => text('ops-reorgs'), { timeout: 10_000 })
      .toBe(`${before.reorgs + 1} (last depth ${DEPTH})`);
    const forked = await jsonRpc<{ hash: string }>(dev.rpcUrl, 'eth_getBlockByNumber', [
      `0x${h.toString(16)}`,
      false,
    ]);
    await expect
      .poll(async () => (await api('/health')).anchor, { timeout: 20_000 })
      .toEqual({ block: h, hash: forked.hash });
    const health = await api('/health');
    expect([health.ingest.reorgs, health.ingest.lastReorgDepth]).toEqual([before.reorgs + 1, DEPTH]);
    await shot('ops-reorg');
  });

  it('a 503 shows which projection is building, not zeros', async () => {
    // A slow node (every answer 4 s late) and 150 new blocks at once: the index stays more than
    // 64 blocks behind the node for a long while, so its projections are not ready (backfilling or
    // stale) and token routes answer 503 projection_unavailable naming one.
    expected = [
      {
        status: 503,
        path: new RegExp(`^/index/v1/${CHAIN}/tokens/`),
        why: 'the token page asks while projections build',
      },
    ];
    proxy.setLatency(4000);
    // anvil_mine may take a while on a loaded machine: its own generous timeout.
    const mined = await fetch(dev.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x96'] }),
      signal: AbortSignal.timeout(120_000),
    });
    expect(((await mined.json()) as { error?: unknown }).error).toBeUndefined();
    let refusal: any = null;
    await expect
      .poll(
        async () => {
          const r = await idx.get(`/tokens/${subject.token}`);
          if (r.status === 503) refusal = r.body;
          return r.status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(503);
    expect(refusal.error).toBe('projection_unavailable');
    await page.goto(`${base}/#/${CHAIN}/token/${subject.token}`);
    const shown = page.getByTestId('token-identity').getByTestId('unavailable');
    await shown.waitFor({ timeout: 10_000 });
    expect(await shown.getAttribute('data-status')).toBe('503');
    expect(['tokens', 'markets', 'wallets', 'decoded_views']).toContain(
      await shown.getAttribute('data-projection'),
    );
    expect(await shown.textContent()).toContain(
      `Projection “${await shown.getAttribute('data-projection')}”`,
    );
    // No figure instead of the refusal: no holder count, no anchor on that panel.
    expect(await page.getByTestId('holder-count').count()).toBe(0);
    expect(await page.getByTestId('token-identity').getByTestId('anchor').count()).toBe(0);
    // The API still refuses: the page showed the state of the same moment.
    expect((await idx.get(`/tokens/${subject.token}`)).status).toBe(503);
    await shot('token-503');
    // Leave the page: its retries would log their 503s into the next test.
    await page.goto('about:blank');
    proxy.setLatency(null);
  });

  it('a screenshot of every page was written', () => {
    for (const name of [
      'ops',
      'ops-reorg',
      'token',
      'token-live',
      'token-chart-1m',
      'pool',
      'pool-as-of',
      'token-as-of',
      'wallet',
      'search-symbol',
      'search-tx',
      'search-block',
      'token-503',
    ])
      expect(existsSync(join(SHOTS, `${name}.png`)), name).toBe(true);
    expect([...shots.keys()].sort()).toEqual(
      expect.arrayContaining(['ops', 'pool', 'token', 'token-503', 'wallet']),
    );
  });
});
