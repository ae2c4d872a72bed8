/**
 * Issue G end-to-end: candle selectors mutated on a live multiplexed connection
 * (/stream/subscribe), with the standard `eventsource` client against a real devnet (real
 * Uniswap V2/V4 pools on anvil, traffic generator running; nothing mocked).
 *
 *  - `connected` carries `connectionId` and the candle selection;
 *  - `GET /stream/subscribe?connection=<id>&select=candles:…` replaces the selection and answers
 *    JSON; the stream gets `selection_changed` followed at once by the snapshots (previous and
 *    forming bucket) of the added series, then their updates and closes (equal to REST);
 *  - a removed series sends nothing more while a control connection still receives its frames;
 *  - the blocks topic on the same connection runs on with no gap or duplicate;
 *  - errors are typed: 404 unknown or closed connection, 403 another key, 400 non-candle
 *    selector or bad grammar.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkFrames } from '../harness/contract.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';

const OTHER_KEY = 'other-stream-key';
const READ_KEY = 'read-only-key';

let dev: TestDevnet;
let idx: IndexerProcess;
let pools: any[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Frames that broke the route's published frame schema (checked after every test). */
const violations: string[] = [];
afterEach(() => {
  expect(violations.splice(0), 'stream frames that break the contract').toEqual([]);
});
const url = (path: string) => `http://127.0.0.1:${idx.port}/index/v1/testnet${path}`;

interface Got {
  event: string;
  data: any;
  at: number;
}
const EVENTS = [
  'connected',
  'snapshot',
  'update',
  'close',
  'selection_changed',
  'block',
  'stalled',
  'resumed',
];
/** Opens an SSE stream with the test key; collects every frame in arrival order. */
function open(path: string) {
  const es = new EventSource(url(path), {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), 'x-api-key': TEST_KEY },
      }),
  });
  const got: Got[] = [];
  checkFrames(es, path, EVENTS, violations, (event, data) => got.push({ event, data, at: Date.now() }));
  const until = async (pred: () => boolean, ms = 30_000, what = 'frames') => {
    const t0 = Date.now();
    while (!pred()) {
      if (Date.now() - t0 > ms)
        throw new Error(
          `timeout waiting for ${what}; last frames: ${JSON.stringify(got.slice(-4)).slice(0, 1500)}`,
        );
      await sleep(25);
    }
  };
  return { es, got, until };
}
/** The mutation request. */
const mutate = (id: string, select: string, key: string | null = TEST_KEY, extra = '') =>
  idx.get(`/stream/subscribe?connection=${id}&select=${encodeURIComponent(select)}${extra}`, { key });

const sel = (p: any) => (p.protocol === 'v4' ? `pool:${p.contract}:${p.poolId}:1s` : `pool:${p.address}:1s`);
const restPath = (p: any) =>
  p.protocol === 'v4' ? `/pools/v4/${p.contract}/${p.poolId}` : `/pools/${p.address}`;

/** A candle frame's candle equals the REST candle of the same bucket (null ⇔ no REST row). */
async function equalsRest(p: any, f: any) {
  const r = await idx.get(`${restPath(p)}/ohlcv?frame=1s&from=${f.bucket}&to=${f.bucket}`);
  expect(r.status, r.text).toBe(200);
  if (f.candle === null) {
    expect(r.body.data).toHaveLength(0);
    return;
  }
  expect(r.body.data).toHaveLength(1);
  expect(f.candle).toEqual(r.body.data[0]);
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 500, traffic: true, txPerSecond: 25 });
  const keys = join(dev.stateDir, 'keys.json');
  writeFileSync(
    keys,
    JSON.stringify([
      { name: 'other', key: OTHER_KEY, scopes: ['read', 'stream'] },
      { name: 'reader', key: READ_KEY, scopes: ['read'] },
    ]),
  );
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: {
      ...devnetIndexerEnv(dev, { usdStablecoins: [], quoteAssets: null, launchpad: false }),
      KEYS_FILE: keys,
      TRACES: 'off',
    },
  });
  const r = await fetch(dev.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  const head = Number.parseInt(((await r.json()) as { result: string }).result, 16);
  await idx.waitForHead(head, 120_000);
  const list = await idx.get('/pools/new?limit=1000');
  expect(list.status, list.text).toBe(200);
  pools = list.body.data;
  expect(pools.filter((p) => p.protocol === 'v2').length).toBeGreaterThan(5);
  expect(pools.filter((p) => p.protocol === 'v4').length).toBeGreaterThan(0);
}, 300_000);

afterAll(stopAll(() => [idx, dev]));

describe('mutable candle selectors on /stream/subscribe', () => {
  it('add: selection_changed then the snapshots, then updates; remove: nothing more; blocks run on', async () => {
    const v2 = pools.filter((p) => p.protocol === 'v2');
    const v4 = pools.filter((p) => p.protocol === 'v4');
    const A = v2[0];
    const B = [...v2.slice(1, 7), v4[0]];
    const control = open(`/stream/candles?select=${sel(A)}`);
    const s = open(`/stream/subscribe?select=blocks:all,candles:${sel(A)}`);
    await s.until(
      () => s.got.filter((g) => g.event === 'snapshot').length >= 2,
      30_000,
      'connected and A snapshots',
    );
    const connected = s.got[0];
    expect(connected.event).toBe('connected');
    expect(connected.data.connectionId).toMatch(/^[0-9a-f]{32}$/);
    expect(connected.data.candles).toEqual([sel(A)]);
    const id = connected.data.connectionId;
    await s.until(() => s.got.some((g) => g.event === 'block'), 30_000, 'a block frame');

    // --- add B (A unchanged) -------------------------------------------------------------
    const addSel = [A, ...B].map((p) => `candles:${sel(p)}`).join(',');
    const r1 = await mutate(id, addSel);
    expect(r1.status, r1.text).toBe(200);
    expect(r1.body.anchor.block).toBeGreaterThan(0);
    // The change as the answer and the selection_changed frame both state it.
    const change = { connectionId: id, revision: 1, added: B.map(sel), removed: [], unchanged: [sel(A)] };
    expect(r1.body.data).toEqual({ ...change, candles: [A, ...B].map(sel) });
    await s.until(() => s.got.some((g) => g.event === 'selection_changed'), 10_000, 'selection_changed');
    const i1 = s.got.findIndex((g) => g.event === 'selection_changed');
    await s.until(() => s.got.length >= i1 + 1 + 2 * B.length, 10_000, 'snapshots of the added series');
    expect(s.got[i1].data).toEqual({ topic: 'candles', ...change, selection: [A, ...B].map(sel) });
    // The frames right after selection_changed are the snapshots, previous then forming, per series.
    const snaps = s.got.slice(i1 + 1, i1 + 1 + 2 * B.length);
    snaps.forEach((g, k) => {
      const p = B[Math.floor(k / 2)];
      expect(g.event).toBe('snapshot');
      expect(g.data.series).toBe(sel(p));
      expect(g.data.pool).toBe(p.key);
      expect(g.data.position).toBe(k % 2 === 0 ? 'previous' : 'forming');
      expect(g.data.final).toBe(k % 2 === 0);
    });
    for (let k = 0; k < B.length; k++) {
      expect(snaps[2 * k + 1].data.bucket).toBe(snaps[2 * k].data.bucket + 1);
      await equalsRest(B[k], snaps[2 * k].data); // the previous bucket is final
    }
    // No second snapshot for the unchanged series A.
    expect(s.got.filter((g) => g.event === 'snapshot' && g.data.series === sel(A))).toHaveLength(2);
    // Updates and closes of the added series arrive; closes with a candle equal REST.
    const bSet = new Set(B.map(sel));
    const of = (ev: string) => s.got.slice(i1).filter((g) => g.event === ev && bSet.has(g.data.series));
    await s.until(
      () => of('update').length >= 1 && of('close').filter((g) => g.data.candle).length >= 2,
      45_000,
      'updates and closes of the added series',
    );
    for (const g of of('close')
      .filter((x) => x.data.candle)
      .slice(0, 4)) {
      expect(g.data.final).toBe(true);
      await equalsRest(
        B.find((p) => sel(p) === g.data.series),
        g.data,
      );
    }
    for (const g of of('update')) expect(g.data.final).toBe(false);

    // --- remove A --------------------------------------------------------------------------
    const r2 = await mutate(id, B.map((p) => `candles:${sel(p)}`).join(','));
    expect(r2.status, r2.text).toBe(200);
    expect(r2.body.data).toMatchObject({ revision: 2, added: [], removed: [sel(A)], unchanged: B.map(sel) });
    await s.until(
      () => s.got.filter((g) => g.event === 'selection_changed').length >= 2,
      10_000,
      'second change',
    );
    const i2 = s.got.findLastIndex((g) => g.event === 'selection_changed');
    const removedAt = s.got[i2].at;
    expect(s.got[i2].data).toMatchObject({ revision: 2, removed: [sel(A)], added: [] });
    // 1 s frames close every chain second: a still-selected series would send several frames.
    await sleep(4_000);
    const afterA = s.got.slice(i2 + 1).filter((g) => g.data?.series === sel(A));
    expect(afterA).toEqual([]);
    expect(control.got.filter((g) => g.at > removedAt && g.data.series === sel(A)).length).toBeGreaterThan(2);
    expect(s.got.slice(i2 + 1).filter((g) => bSet.has(g.data?.series)).length).toBeGreaterThan(2);

    // --- empty the selection, then add A back (a fresh snapshot) --------------------------------
    const r3 = await mutate(id, 'candles:none');
    expect(r3.status, r3.text).toBe(200);
    expect(r3.body.data).toMatchObject({ revision: 3, added: [], removed: B.map(sel), candles: [] });
    await s.until(
      () => s.got.filter((g) => g.event === 'selection_changed').length >= 3,
      10_000,
      'third change',
    );
    const i3 = s.got.findLastIndex((g) => g.event === 'selection_changed');
    await sleep(3_000);
    expect(s.got.slice(i3 + 1).filter((g) => ['snapshot', 'update', 'close'].includes(g.event))).toEqual([]);
    const r4 = await mutate(
      id,
      `candles:${sel(A).toUpperCase().replace('POOL:0X', 'pool:0x').replace(':1S', ':1s')}`,
    );
    expect(r4.status, r4.text).toBe(200);
    expect(r4.body.data).toMatchObject({ revision: 4, removed: [], unchanged: [] });
    expect(r4.body.data.added).toHaveLength(1);
    await s.until(
      () => s.got.slice(i3 + 1).filter((g) => g.event === 'snapshot').length >= 2,
      10_000,
      'A again',
    );
    // Series are matched case-insensitively: naming A again in other case keeps it unchanged.
    const r5 = await mutate(id, `candles:${sel(A)}`);
    expect(r5.body.data).toMatchObject({
      revision: 5,
      added: [],
      removed: [],
      unchanged: r4.body.data.added,
    });

    // --- the blocks topic ran on through every change, without a gap or a duplicate ---------------
    const nBlocks = s.got.filter((g) => g.event === 'block').length;
    await s.until(() => s.got.filter((g) => g.event === 'block').length > nBlocks + 1, 15_000, 'blocks');
    const seqs = s.got.filter((g) => g.event === 'block').map((g) => g.data.sequence as number);
    expect(seqs).toEqual(seqs.map((_, k) => seqs[0] + k));
    expect(s.got.filter((g) => g.event === 'block' && g.at > removedAt).length).toBeGreaterThan(2);
    expect(s.got.filter((g) => g.event === 'connected')).toHaveLength(1);
    s.es.close();
    control.es.close();
  }, 150_000);

  it('a connection opened without candles can add them', async () => {
    const p = pools.find((x) => x.protocol === 'v2');
    const s = open('/stream/subscribe?select=blocks:all');
    await s.until(() => s.got.some((g) => g.event === 'connected'), 15_000, 'connected');
    const c = s.got.find((g) => g.event === 'connected')!;
    expect(c.data.candles).toEqual([]);
    const r = await mutate(c.data.connectionId, `candles:${sel(p)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ revision: 1, added: [sel(p)], candles: [sel(p)] });
    await s.until(() => s.got.filter((g) => g.event === 'snapshot').length >= 2, 10_000, 'snapshots');
    await s.until(() => s.got.some((g) => g.event === 'close'), 15_000, 'a close frame');
    s.es.close();
  }, 60_000);

  it('errors are typed and leave the selection unchanged', async () => {
    const v2 = pools.filter((x) => x.protocol === 'v2');
    const s = open(`/stream/subscribe?select=blocks:all,candles:${sel(v2[0])}`);
    await s.until(() => s.got.some((g) => g.event === 'connected'), 15_000, 'connected');
    const id = s.got.find((g) => g.event === 'connected')!.data.connectionId;
    const envelope = (r: { status: number; body: any }, status: number, code: string) => {
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error).toBe(code);
      expect(typeof r.body.detail).toBe('string');
    };
    const good = `candles:${sel(v2[1])}`;
    envelope(await mutate(randomBytes(16).toString('hex'), good), 404, 'not_found');
    envelope(await mutate('not-an-id', good), 400, 'bad_request');
    envelope(await mutate(id, good, OTHER_KEY), 403, 'connection_not_owned');
    envelope(await mutate(id, good, READ_KEY), 403, 'insufficient_scope');
    envelope(await mutate(id, good, null), 401, 'unauthorized');
    envelope(await mutate(id, 'blocks:all'), 400, 'bad_request');
    envelope(await mutate(id, `${good},amm_events:all`), 400, 'bad_request');
    envelope(await mutate(id, 'candles:pool:0x12:1s'), 400, 'bad_request');
    envelope(await mutate(id, `candles:${sel(v2[1]).replace(':1s', ':2s')}`), 400, 'bad_request');
    envelope(await mutate(id, `candles:none,${good}`), 400, 'bad_request');
    envelope(await mutate(id, good, TEST_KEY, '&resume=blocks:v1.x.1'), 400, 'bad_request');
    envelope(await mutate(id, good, TEST_KEY, '&min_leg_magnitude=1'), 400, 'bad_request');
    envelope(await mutate(id, `candles:pool:0x${'ab'.repeat(20)}:1s`), 404, 'not_found');
    // None of the refusals touched the connection.
    await sleep(500);
    expect(s.got.filter((g) => g.event === 'selection_changed')).toEqual([]);
    const ok = await mutate(id, good);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ revision: 1, added: [sel(v2[1])], removed: [sel(v2[0])] });
    // A closed connection is forgotten.
    s.es.close();
    const t0 = Date.now();
    let r = await mutate(id, good);
    while (r.status === 200 && Date.now() - t0 < 10_000) {
      await sleep(100);
      r = await mutate(id, good);
    }
    envelope(r, 404, 'not_found');
  }, 60_000);
});
