/**
 * Authentication and scopes on every route of the published contract (GET /index/v1/openapi.json,
 * 115 operations), against a real devnet (anvil + Uniswap V2/V3/V4 + launchpad + traffic).
 *
 * Each operation gets a valid request built from the indexed chain (real block numbers and hashes,
 * transaction hashes, token, pool, wallet, V4 manager and pool id, launchpad, ranking preset,
 * cohort id where one exists). Then, per operation (spec: Authentication, Errors):
 *  - the all-scope key gets 200 on every route (an SSE route: 200 text/event-stream), so the
 *    refusals below are about the key, not the request;
 *  - no key, an unknown key, a key sent as `Authorization: Bearer` instead of `x-api-key`, a
 *    scanner secret `sk_live_…` (also when an operator configured that exact string with every
 *    scope): 401 `unauthorized` envelope;
 *  - a key holding every scope but the route's: 403 `insufficient_scope` envelope, never 429 —
 *    those keys have a rate limit of burst 3 on every scope, so a charged 403 would turn into 429
 *    after three; afterwards each of the key's other scopes still has its full burst (the 403s were
 *    not charged to any bucket);
 *  - public routes (/health/live, /health/ready) answer without a key;
 *  - `/metrics` is a 404 envelope on the public port whatever the key, and served (Prometheus
 *    text) by the loopback metrics listener.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '@chain-indexer/indexer/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptCohort } from '../harness/cohort.js';
import { devnetIndexerEnv, startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer, TEST_KEY } from '../harness/indexer.js';
import { stopAll } from '../harness/lifecycle.js';
import { jsonRpc } from '../harness/rpc.js';
import { SEED, STATS, sleep } from './lib.js';

const SCOPES = ['read', 'wallet', 'rpc', 'monitoring', 'stream'] as const;
type Scope = (typeof SCOPES)[number];
/** A scanner-API secret: `sk_live_` and 43 letters and digits (spec: Scanner API keys 1). */
const SCANNER_KEY = `sk_live_${'Ab3'.repeat(14)}x`;
/** Rate limit of the scope-lacking keys: a charged 403 would exhaust it after BURST requests. */
const BURST = 3;
/** Start of this file's run (the scenario's duration in the report). */
const T0 = Date.now();
const lacking = (s: Scope) => `key-without-${s}-scope`;

let dev: TestDevnet;
let idx: IndexerProcess;
let metricsPort = 0;

interface Op {
  method: 'get' | 'post';
  /** OpenAPI path, e.g. /index/v1/{chain}/blocks/{number}. */
  template: string;
  scope: Scope | null;
  /** Concrete request path (with query) on the test chain. */
  path: string;
  body?: string;
  sse: boolean;
}
let ops: Op[] = [];
/** The scripted cohort: its launch token and its two member wallets (each bought the launch). */
let scripted: { token: string; members: string[] } = { token: '', members: [] };

const rpc = <T = any>(method: string, params: unknown[] = []): Promise<T> =>
  jsonRpc<T>(dev.rpcUrl, method, params);

/**
 * A funding cohort on the devnet (the traffic does not reliably form one): anvil dev account 9
 * (unused by the deployer and the traffic) creates a launch and funds a funder, which funds two
 * fresh wallets that each buy the launch.
 */
const scriptAuthCohort = () =>
  scriptCohort(dev, {
    from: '0xa0ee7a142d267c1f36714e4a8f75612f20a79720',
    label: 'Auth Sweep',
    freshBase: 0xa17e000 + SEED * 10,
    members: 2,
  });

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 400, traffic: true, txPerSecond: 25, seed: SEED });
  // Keys through the service's own KEYS_FILE: one key per scope holding every other scope, each
  // scope rate limited (burst BURST, ~no refill); and the scanner secret configured with every
  // scope (an operator mistake the service must still refuse).
  const slow = { perSecond: 0.001, burst: BURST };
  const keysFile = join(dev.stateDir, 'keys.json');
  writeFileSync(
    keysFile,
    JSON.stringify([
      ...SCOPES.map((s) => ({
        name: lacking(s),
        key: lacking(s),
        scopes: SCOPES.filter((x) => x !== s),
        rateLimits: Object.fromEntries(SCOPES.map((x) => [x, slow])),
      })),
      { name: 'scanner-secret-misconfigured', key: SCANNER_KEY, scopes: [...SCOPES] },
    ]),
  );
  scripted = await scriptAuthCohort();
  idx = await startIndexer({
    rpcUrl: dev.rpcUrl,
    env: { ...devnetIndexerEnv(dev), KEYS_FILE: keysFile },
  });
  // The "serving" log line carries the bound ports (the configuration line before it says 0).
  const m = /"metricsPort":(\d+)[^\n]*serving http/.exec(idx.logs());
  metricsPort = m ? Number(m[1]) : 0;
  await idx.waitForHead(
    Math.max(
      dev.deployment.deployedAtBlock + 40,
      Number.parseInt(await rpc<string>('eth_blockNumber', []), 16),
    ),
    120_000,
  );
  // Projections ready (not building) and the traces lane past the deployment, so valid requests
  // read data rather than a typed 503.
  for (const t0 = Date.now(); ; ) {
    const h = (await idx.get('/health')).body;
    if (
      h.projections.every((p: { status: string }) => p.status === 'ready') &&
      (h.traces.checkpoint ?? -1) >= dev.deployment.deployedAtBlock
    )
      break;
    if (Date.now() - t0 > 60_000) throw new Error(`projections not ready: ${JSON.stringify(h.projections)}`);
    await sleep(250);
  }
  ops = await buildOps();
}, 240_000);

afterAll(stopAll(() => [idx, dev]));

/** Valid sample values for every path and required query parameter, read from the indexed devnet. */
async function buildOps(): Promise<Op[]> {
  const d = dev.deployment;
  const tok = (key: string) => d.tokens.find((t) => t.key === key)?.address.toLowerCase();
  const weth = d.tokens.find((t) => t.kind === 'weth')!.address.toLowerCase();
  const token = (tok('LINK') ?? d.tokens.find((t) => t.kind === 'standard')!.address).toLowerCase();
  const v2 = d.pools.find((p) => p.protocol === 'uniswap-v2' && [p.token0, p.token1].includes(weth as never));
  const v2pool = (v2 ?? d.pools.find((p) => p.protocol === 'uniswap-v2')!).address.toLowerCase();
  const v4 = d.pools.find((p) => p.protocol === 'uniswap-v4')!;
  const wallet = scripted.members[0];
  // A block with transactions, its first transaction, and its timestamp; at or below the traces
  // lane's checkpoint (the lane follows the blocks lane; call-tree routes answer 503 above it).
  const health = (await idx.get('/health')).body;
  const top = Math.min(health.anchor.block, health.traces.checkpoint ?? 0);
  let number = top;
  let txHash = '';
  for (let n = top; n > 0 && !txHash; n--) {
    const t = await idx.get(`/blocks/${n}/transactions?limit=1`);
    if (t.body?.data?.length) [number, txHash] = [n, t.body.data[0].hash];
  }
  expect(txHash, 'a block with transactions').not.toBe('');
  const block = (await idx.get(`/blocks/${number}`)).body.data;
  const ts = Number(block.timestamp);
  // A ranking preset from the catalogue.
  const preset: string = (await idx.get('/rankings')).body.data[0].name;
  // The scripted cohort (its launch token's cohorts list it).
  const cohorts = (await idx.get(`/cohorts?token=${scripted.token}`)).body?.data ?? [];
  expect(cohorts.length, 'the scripted cohort is indexed').toBeGreaterThan(0);
  const cohort: string = cohorts[0].id;
  const frameTo = Math.floor(ts / 60) * 60;
  const values: Record<string, string> = {
    address: token,
    wallet,
    pad: 'devnet-pad',
    currency: weth,
    manager: v4.address.toLowerCase(),
    pool_id: v4.poolId!.toLowerCase(),
    token,
    hash: txHash,
    number: String(number),
    preset,
    id: cohort,
  };
  const queries: Record<string, string> = {
    q: 'L',
    frame: '1m',
    from: String(frameTo - 3600),
    to: String(frameTo),
    rule: 'trade',
    size: '1',
    timestamp: String(ts),
    quote: weth,
    token,
  };
  const doc = (await idx.get('/index/v1/openapi.json', { key: null })).body as {
    paths: Record<string, Record<string, any>>;
  };
  const out: Op[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params: Array<{ name: string; in: string; required: boolean }> = op.parameters ?? [];
      let path = template.replace('{chain}', 'testnet');
      for (const p of params.filter((x) => x.in === 'path' && x.name !== 'chain')) {
        // `address` means a token, except on pool, wallet and launch routes.
        let v = values[p.name];
        if (p.name === 'address' && template.includes('/pools/{address}')) v = v2pool;
        if (p.name === 'address' && template.includes('/wallets/{address}')) v = wallet;
        if (p.name === 'address' && template.endsWith('/tokens/{address}/launch')) v = scripted.token;
        if (p.name === 'token' && template.includes('/wallets/{address}/pnl/')) v = scripted.token;
        if (!v) throw new Error(`no sample for path parameter ${p.name} of ${template}`);
        path = path.replace(`{${p.name}}`, v);
      }
      if (template.includes('/blocks/by-hash/')) path = path.replace(txHash, block.hash);
      const q = new URLSearchParams();
      for (const p of params.filter((x) => x.in === 'query' && x.required)) {
        if (p.name === 'select')
          q.set('select', template.endsWith('/candles') ? `pool:${v2pool}:1m` : 'blocks:all');
        else if (queries[p.name]) q.set(p.name, queries[p.name]);
        else throw new Error(`no sample for query parameter ${p.name} of ${template}`);
      }
      // Quote-denominated routes: name the quote (several may exist: spec's quote rule answers 400).
      if (!q.has('quote') && params.some((x) => x.in === 'query' && x.name === 'quote')) q.set('quote', weth);
      // Topic streams with selectors need at least one (spec Events 7): `all=true`.
      if (template.includes('/stream/') && params.some((x) => x.name === 'all')) q.set('all', 'true');
      const qs = q.toString();
      out.push({
        method: method as 'get' | 'post',
        template,
        scope: (op['x-scope'] ?? null) as Scope | null,
        path: qs ? `${path}?${qs}` : path,
        body:
          method === 'post'
            ? JSON.stringify({ requests: [{ route: '/blocks/{number}', params: { number } }] })
            : undefined,
        sse: template.includes('/stream/'),
      });
    }
  }
  return out;
}

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** One request on `port`; an SSE answer is read up to its headers and the first bytes, then aborted. */
async function request(op: Op, headers: Record<string, string>, port = idx.port): Promise<Answer> {
  const ac = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}${op.path}`, {
    method: op.method.toUpperCase(),
    headers: { ...headers, ...(op.body ? { 'content-type': 'application/json' } : {}) },
    body: op.body,
    signal: ac.signal,
  });
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const reader = res.body!.getReader();
    const first = await reader.read();
    ac.abort();
    await reader.cancel().catch(() => {});
    return {
      status: res.status,
      body: null,
      text: Buffer.from(first.value ?? []).toString(),
      headers: res.headers,
    };
  }
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, text, headers: res.headers };
}

const isEnvelope = (b: any, code: string) =>
  typeof b?.error === 'string' && typeof b?.detail === 'string' && b.error === code && code in ERRORS;

const tally = { requests: 0, routes: 0, refused401: 0, refused403: 0 };
const count = <T>(p: Promise<T>) => {
  tally.requests++;
  return p;
};

describe('auth on every route of the contract', () => {
  it('the contract lists 115 operations, each with a scope matching its class', () => {
    expect(ops).toHaveLength(115);
    tally.routes = ops.length;
    for (const o of ops) {
      if (o.template.includes('/wallets/')) expect(o.scope, o.template).toBe('wallet');
      if (o.template.includes('/rpc/')) expect(o.scope, o.template).toBe('rpc');
      if (o.template.includes('/stream/')) expect(o.scope, o.template).toBe('stream');
      if (/\/(health|checkpoints|gaps)$/.test(o.template) && o.template.startsWith('/index/'))
        expect(o.scope, o.template).toBe('monitoring');
      if (o.scope === null)
        expect(['/health/live', '/health/ready', '/metrics'], o.template).toContain(o.template);
    }
  });

  it('the all-scope key gets a real answer on every route (sample requests are valid)', async () => {
    const statuses: Record<string, string[]> = {};
    const bad: string[] = [];
    for (const o of ops.filter((x) => x.template !== '/metrics')) {
      const r = await count(request(o, { 'x-api-key': TEST_KEY }));
      (statuses[r.status] ??= []).push(r.status === 200 ? o.template : `${o.path} ${r.text.slice(0, 160)}`);
      if (o.sse) {
        expect({ t: o.template, status: r.status, ct: r.headers.get('content-type') }).toEqual({
          t: o.template,
          status: 200,
          ct: 'text/event-stream; charset=utf-8',
        });
        // Aborted streams release their slot: let the server see the abort before the next one.
        await sleep(30);
        continue;
      }
      if (r.status !== 200) bad.push(`${o.path}: ${r.status} ${r.text.slice(0, 300)}`);
    }
    expect(bad.join('\n')).toBe('');
    console.log(
      JSON.stringify(
        Object.fromEntries(Object.entries(statuses).map(([s, l]) => [s, s === '200' ? l.length : l])),
      ),
    );
    // Every route reads real data on the devnet (the samples name things that exist).
    expect(statuses['200']?.length ?? 0).toBe(ops.length - 1);
  });

  it('no key, unknown key, Bearer instead of x-api-key, scanner sk_live_ keys: 401 on every scoped route', async () => {
    const creds: Array<[string, Record<string, string>]> = [
      ['no key', {}],
      ['unknown key', { 'x-api-key': 'not-a-configured-key' }],
      ['near miss of a real key', { 'x-api-key': `${TEST_KEY}x` }],
      ['Authorization: Bearer', { authorization: `Bearer ${TEST_KEY}` }],
      ['unconfigured sk_live_', { 'x-api-key': `sk_live_${'Zz9'.repeat(14)}q` }],
      ['sk_live_ configured with every scope', { 'x-api-key': SCANNER_KEY }],
    ];
    for (const o of ops.filter((x) => x.scope !== null)) {
      for (const [name, h] of creds) {
        const r = await count(request(o, h));
        tally.refused401++;
        expect({
          route: o.template,
          cred: name,
          status: r.status,
          envelope: isEnvelope(r.body, 'unauthorized'),
        }).toEqual({ route: o.template, cred: name, status: 401, envelope: true });
      }
    }
  });

  it('a key lacking the route scope: 403 insufficient_scope, never charged', async () => {
    for (const s of SCOPES) {
      const key = lacking(s);
      const mine = ops.filter((o) => o.scope === s);
      expect(mine.length, s).toBeGreaterThan(0);
      // Twice over every route of the class: ≥ 2 × routes > BURST refusals against that key.
      for (let round = 0; round < 2; round++) {
        for (const o of mine) {
          const r = await count(request(o, { 'x-api-key': key }));
          tally.refused403++;
          expect({
            route: o.template,
            key,
            status: r.status,
            envelope: isEnvelope(r.body, 'insufficient_scope'),
            rateHeaders: r.headers.get('ratelimit-remaining'),
          }).toEqual({ route: o.template, key, status: 403, envelope: true, rateHeaders: null });
        }
      }
      // Every other class of this key still has its whole burst: the first request reports
      // BURST - 1 remaining (an SSE class is checked through the ceiling instead: it connects).
      for (const other of SCOPES.filter((x) => x !== s && x !== 'stream')) {
        const o = ops.find((x) => x.scope === other && !x.sse && x.method === 'get')!;
        const r = await count(request(o, { 'x-api-key': key }));
        expect({ route: o.template, key, status: r.status }).toEqual({ route: o.template, key, status: 200 });
        expect(r.headers.get('ratelimit-limit')).toBe(String(BURST));
        expect(r.headers.get('ratelimit-remaining'), `${key} on ${other}`).toBe(String(BURST - 1));
      }
    }
  });

  it('batch: a wallet item on a key without wallet scope fails alone with 403; the batch is one read charge', async () => {
    const key = lacking('wallet');
    const res = await count(
      fetch(`http://127.0.0.1:${idx.port}/index/v1/testnet/batch`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({
          requests: [
            { id: 'b', route: '/blocks/{number}', params: { number: 1 } },
            { id: 'w', route: '/wallets/{address}/overview', params: { address: dev.deployment.deployer } },
          ],
        }),
      }),
    );
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.results.map((x: any) => [x.id, x.status])).toEqual([
      ['b', 200],
      ['w', 403],
    ]);
    expect(isEnvelope(body.results[1].error, 'insufficient_scope')).toBe(true);
    // The read class had one request earlier (previous test) and one for this batch.
    expect(res.headers.get('ratelimit-remaining')).toBe(String(BURST - 2));
  });

  it('public routes answer without a key (and ignore any key)', async () => {
    for (const o of ops.filter((x) => x.scope === null && x.template !== '/metrics')) {
      for (const h of [{}, { 'x-api-key': 'nope' }, { 'x-api-key': SCANNER_KEY }] as Record<
        string,
        string
      >[]) {
        const r = await count(request(o, h));
        expect({ route: o.template, status: r.status }).toEqual({ route: o.template, status: 200 });
      }
    }
  });

  it('/metrics: 404 envelope on the public port whatever the key; served by the loopback listener', async () => {
    const o = ops.find((x) => x.template === '/metrics')!;
    expect(o).toBeDefined();
    for (const h of [{}, { 'x-api-key': TEST_KEY }, { 'x-api-key': SCANNER_KEY }] as Record<
      string,
      string
    >[]) {
      const r = await count(request(o, h));
      expect({ status: r.status, envelope: isEnvelope(r.body, 'not_found') }).toEqual({
        status: 404,
        envelope: true,
      });
      expect(r.text).not.toMatch(/indexer_/);
    }
    expect(metricsPort).toBeGreaterThan(0);
    expect(metricsPort).not.toBe(idx.port);
    const m = await count(request(o, {}, metricsPort));
    expect(m.status).toBe(200);
    expect(m.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(m.text).toMatch(/^indexer_ingest_head_block\{chain="[a-z0-9-]+"\} /m);
    expect(m.text).toMatch(/indexer_http_request_duration_seconds_bucket/);
    // The loopback listener serves nothing else.
    const other = await count(fetch(`http://127.0.0.1:${metricsPort}/index/v1/testnet/blocks/1`));
    expect(other.status).toBe(404);
    await other.text();
  });

  it('the server is healthy after the sweep', async () => {
    expect((await idx.get('/health/live', { key: null })).status).toBe(200);
    expect(idx.logs()).not.toMatch(/handler failed|"level":60/);
    const stats = {
      scenario: 'auth-every-route',
      seed: SEED,
      ok: true,
      apiRequests: tally.requests,
      restarts: 0,
      rowsLost: { blocks: 0, txs: 0, logs: 0 },
      seconds: Math.round((Date.now() - T0) / 1000),
      notes:
        `${tally.routes} contract operations: every one 200 with the all-scope key; ${tally.refused401} requests with ` +
        `no/unknown/near-miss/Bearer/sk_live_ credentials → 401; ${tally.refused403} with a scope-lacking key → 403, ` +
        `never charged (burst ${BURST} per class intact); /metrics 404 on the public port, served on loopback`,
    };
    if (STATS) appendFileSync(STATS, `${JSON.stringify(stats)}\n`);
    console.log(JSON.stringify(stats));
  });
});
