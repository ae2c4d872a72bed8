/**
 * Every request is bounded (SECURITY.md, "Every request bounded"), on real parts: a real anvil
 * devnet with traffic (real Uniswap pools, tokens changing hands every block) and the indexer as a
 * process with a small versioned-walk budget (VERSIONED_WALK_BUDGET).
 *
 * fast-check generates requests over the contract's GET routes with real subjects (tokens, pools,
 * wallets, blocks, transactions of the chain) and random parameters, and collects the cursors
 * they hand out. Many blocks later the cursors are replayed — alone, with other parameters, and
 * twenty at a time in one POST /batch — among new generated requests. Each request must answer
 * 200 or a typed refusal (the envelope with a registry code), and the rows it read, taken from the
 * indexer's own metric (`indexer_http_request_rows_read`, not from time), must stay under the
 * bound: the walk budget plus a page's worth of point reads for the holders walks, a fixed ceiling
 * for everything else. At the end, every file of the data directory is 0600 and every directory
 * 0700.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '@chain-indexer/indexer/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDevnet, type TestDevnet } from '../harness/devnet.js';
import { type IndexerProcess, startIndexer } from '../harness/indexer.js';

/** Rows one request may examine in versioned walks, here (the service's default is 50,000). */
const WALK_BUDGET = 150;
/** Page limit of every generated request at most (the bounds below are per page). */
const MAX_LIMIT = 20;
/** Rows a holders page may read beyond the walk budget: point reads per row and the page's own. */
const HOLDERS_EXTRA = 40 * (MAX_LIMIT + 1) + 200;
/** Rows any other request may read on this devnet (screener, markets, wallets pages of ≤ 20 rows; a run reads a few hundred at most). */
const ROW_CEILING = 10_000;
const RUNS = { first: 250, replay: 250 };

let dev: TestDevnet;
let idx: IndexerProcess;
let metricsPort = 0;

interface Op {
  path: string;
  id: string;
  params: Array<{ name: string; in: string; schema: any }>;
}
let ops: Op[] = [];
const subjects = { token: [] as string[], pool: [] as string[], wallet: [] as string[], tx: [] as string[] };
const cursors: Array<{ path: string; cursor: string; route: string }> = [];
const seen = {
  walkRefusals: 0,
  answered: 0,
  refused: new Map<string, number>(),
  maxRows: new Map<string, number>(),
};

/** Sum and count of the rows-read histogram, per route, from the metrics listener. */
async function rowsRead(): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^indexer_http_request_rows_read_sum\{route="([^"]+)"\} (\d+(?:\.\d+)?)$/gm))
    out.set(m[1], Number(m[2]));
  return out;
}

/** One request; returns its status, body, route id and the rows it read (metric delta). */
async function measured(method: 'GET' | 'POST', path: string, body?: unknown) {
  const before = await rowsRead();
  const r = method === 'GET' ? await idx.get(path) : await idx.post(path, body);
  const after = await rowsRead();
  let rows = 0;
  let route = '';
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0 || !before.has(k)) [route, rows] = [k, rows + d];
  }
  return { ...r, rows, route };
}

/** Answer or typed refusal, within the bound; records what was seen. */
function check(path: string, r: Awaited<ReturnType<typeof measured>>, walkRoute: boolean) {
  if (r.status === 200) seen.answered++;
  else {
    expect(r.body?.error, `${path}: ${r.text.slice(0, 200)}`).toBeTypeOf('string');
    expect(ERRORS, path).toHaveProperty(r.body.error);
    expect(ERRORS[r.body.error as keyof typeof ERRORS].status, path).toBe(r.status);
    seen.refused.set(r.body.error, (seen.refused.get(r.body.error) ?? 0) + 1);
    if (r.body.error === 'walk_budget_exceeded') seen.walkRefusals++;
  }
  expect(r.status, path).not.toBe(500);
  const bound = walkRoute ? WALK_BUDGET + HOLDERS_EXTRA : ROW_CEILING;
  expect(r.rows, `${path} read ${r.rows} rows (bound ${bound})`).toBeLessThanOrEqual(bound);
  seen.maxRows.set(r.route, Math.max(seen.maxRows.get(r.route) ?? 0, r.rows));
}

const isWalk = (p: string) => /\/(holders|top-holders)(\?|$)/.test(p);

/** A value for a path or query parameter: a real subject of the chain, or anything the schema allows. */
function valueFor(name: string, schema: any, head: number): fc.Arbitrary<string> {
  const pick = (xs: string[]) => (xs.length ? fc.constantFrom(...xs) : fc.constant(`0x${'00'.repeat(20)}`));
  if (name === 'limit') return fc.integer({ min: 1, max: MAX_LIMIT }).map(String);
  if (schema?.pattern?.includes('{64}')) return pick(subjects.tx);
  if (schema?.pattern?.includes('{40}') || /address|token|wallet|pool|quote|base/i.test(name))
    return fc.oneof(pick(subjects.token), pick(subjects.pool), pick(subjects.wallet));
  if (schema?.type === 'integer')
    return fc.integer({ min: schema.minimum ?? 0, max: Math.max(schema.minimum ?? 0, head) }).map(String);
  if (schema?.type === 'boolean') return fc.constantFrom('true', 'false');
  if (schema?.enum) return fc.constantFrom(...schema.enum.map(String));
  if (schema?.anyOf?.every((x: any) => 'const' in x))
    return fc.constantFrom(...schema.anyOf.map((x: any) => String(x.const)));
  return fc.constantFrom('1', 'usdc', 'tok');
}

/** Generated GET paths over every operation, with real subjects. */
function requests(head: number): fc.Arbitrary<string> {
  return fc.constantFrom(...ops).chain((o) =>
    fc
      .record({
        path: fc.tuple(
          ...o.params
            .filter((x) => x.in === 'path' && x.name !== 'chain')
            .map((x) => valueFor(x.name, x.schema, head)),
          fc.constant(''),
        ),
        query: fc.tuple(
          ...o.params
            .filter((x) => x.in === 'query' && x.name !== 'cursor')
            .map((x) =>
              fc.option(
                valueFor(x.name, x.schema, head).map((v) => `${x.name}=${encodeURIComponent(v)}`),
                { nil: undefined, freq: 2 },
              ),
            ),
          fc.constant(undefined),
        ),
      })
      .map(({ path, query }) => {
        let i = 0;
        const url = o.path
          .replace('/index/v1/{chain}', '')
          .replace(/\{[a-z_]+\}/gi, () => encodeURIComponent(path[i++] ?? 'x'));
        const withLimit =
          o.params.some((x) => x.name === 'limit') && !query.some((q) => q?.startsWith('limit='));
        const qs = [...query.filter(Boolean), withLimit ? `limit=${MAX_LIMIT}` : undefined]
          .filter(Boolean)
          .join('&');
        return qs ? `${url}?${qs}` : url;
      }),
  );
}

beforeAll(async () => {
  dev = await startTestDevnet({ blockTimeMs: 300, traffic: true, txPerSecond: 30 });
  await dev.traffic?.ready;
  idx = await startIndexer({ rpcUrl: dev.rpcUrl, env: { VERSIONED_WALK_BUDGET: String(WALK_BUDGET) } });
  await idx.waitForHead(40, 180_000);
  metricsPort = Number(/"metricsPort":([1-9]\d*)/.exec(idx.logs())?.[1] ?? 0); // the listener, not the config
  expect(metricsPort).toBeGreaterThan(0);
  const doc = (await idx.get('/index/v1/openapi.json', { key: null })).body as {
    paths: Record<string, Record<string, { operationId: string; parameters?: Op['params'] }>>;
  };
  ops = Object.entries(doc.paths)
    .flatMap(([path, m]) => Object.entries(m).map(([method, op]) => ({ path, method, op })))
    .filter((o) => o.method === 'get' && o.path.startsWith('/index/v1/{chain}/'))
    .filter((o) => !o.path.includes('/stream/') && !o.path.includes('/rpc/'))
    .map((o) => ({ path: o.path, id: o.op.operationId, params: o.op.parameters ?? [] }));
  // Real subjects of the chain: tokens, pools, holders and transactions (once the projections serve).
  for (const t0 = Date.now(); Date.now() - t0 < 120_000; await new Promise((r) => setTimeout(r, 250))) {
    const r = await idx.get('/tokens?limit=20');
    subjects.token = r.status === 200 ? r.body.data.map((t: any) => t.address) : [];
    if (subjects.token.length && (await idx.get('/pools/new?limit=1')).status === 200) break;
  }
  subjects.pool = ((await idx.get('/pools/new?limit=20')).body?.data ?? []).map((p: any) => p.address);
  for (const t of subjects.token.slice(0, 5))
    for (const h of (await idx.get(`/tokens/${t}/holders?limit=10`)).body?.data ?? [])
      subjects.wallet.push(h.wallet);
  const head = (await idx.get('/checkpoints')).body.anchor.block as number;
  for (let b = head; b > head - 10 && subjects.tx.length < 20; b--)
    for (const tx of (await idx.get(`/blocks/${b}/transactions?limit=5`)).body?.data ?? [])
      subjects.tx.push(tx.hash);
  subjects.pool = subjects.pool.filter(Boolean);
  expect(subjects.token.length).toBeGreaterThan(0);
  expect(subjects.wallet.length).toBeGreaterThan(0);
}, 300_000);

afterAll(async () => {
  await idx?.stop();
  await dev?.stop();
});

describe('every request bounded', () => {
  it('generated requests answer or refuse typed within the bound, and hand out cursors', async () => {
    const head = (await idx.get('/checkpoints')).body.anchor.block as number;
    // Every token's holders walks, by balance and by wallet id, so there are walk cursors to replay.
    const holders = subjects.token.flatMap((t) => [
      `/tokens/${t}/holders?limit=3`,
      `/tokens/${t}/holders?limit=3&sort=wallet_id`,
      `/tokens/${t}/top-holders?limit=3`,
    ]);
    await fc.assert(
      fc.asyncProperty(fc.oneof(requests(head), fc.constantFrom(...holders)), async (path) => {
        const r = await measured('GET', path);
        check(path, r, isWalk(path));
        const next = r.status === 200 ? r.body?.page?.nextCursor : null;
        if (next) cursors.push({ path, cursor: next, route: r.route });
      }),
      { numRuns: RUNS.first, seed: 20261126 },
    );
    expect(cursors.filter((c) => isWalk(c.path)).length).toBeGreaterThan(0);
  });

  it('cursors replayed after many blocks, alone, re-parameterised and batched: an answer or a typed refusal within the bound', async () => {
    const from = (await idx.get('/checkpoints')).body.anchor.block as number;
    await idx.waitForHead(from + 80, 120_000);
    const head = (await idx.get('/checkpoints')).body.anchor.block as number;
    const withCursor = (c: (typeof cursors)[number], limit?: number) => {
      const [base, qs = ''] = c.path.split('?');
      const q = new URLSearchParams(qs);
      q.set('cursor', c.cursor);
      if (limit) q.set('limit', String(limit));
      return `${base}?${q.toString()}`;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...cursors).map((c) => withCursor(c)) },
          {
            weight: 2,
            arbitrary: fc
              .tuple(fc.constantFrom(...cursors), fc.integer({ min: 1, max: MAX_LIMIT }))
              .map(([c, l]) => withCursor(c, l)),
          },
          { weight: 1, arbitrary: requests(head) },
        ),
        async (path) => check(path, await measured('GET', path), isWalk(path)),
      ),
      { numRuns: RUNS.replay, seed: 20261127 },
    );
    // Twenty walk cursors in one batch share one request's budget.
    const walks = cursors.filter((c) => isWalk(c.path));
    for (let round = 0; round < 5; round++) {
      const requests = Array.from({ length: 20 }, (_, i) => {
        const c = walks[(round * 20 + i) % walks.length];
        const [base, qs = ''] = c.path.split('?');
        const address = base.split('/')[2];
        const q = Object.fromEntries(new URLSearchParams(qs));
        return {
          route: base.endsWith('top-holders') ? '/tokens/{address}/top-holders' : '/tokens/{address}/holders',
          params: { address, ...q, cursor: c.cursor },
        };
      });
      const r = await measured('POST', '/batch', { requests });
      expect(r.status).toBe(200);
      expect(r.route).toBe('batch');
      expect(r.rows, `batch read ${r.rows}`).toBeLessThanOrEqual(WALK_BUDGET + 20 * HOLDERS_EXTRA);
      for (const item of r.body.results) {
        if (item.status === 200) continue;
        expect(ERRORS).toHaveProperty(item.error.error);
        if (item.error.error === 'walk_budget_exceeded') seen.walkRefusals++;
      }
    }
    process.stdout.write(
      `bounded: ${seen.answered} answered, refused ${JSON.stringify(Object.fromEntries(seen.refused))}; ` +
        `max rows by route ${JSON.stringify(Object.fromEntries([...seen.maxRows].sort((a, b) => b[1] - a[1]).slice(0, 8)))}\n`,
    );
    // The budget engaged: some walks replayed at an old anchor were refused, with the restart hint.
    expect(seen.walkRefusals).toBeGreaterThan(0);
    expect(seen.answered).toBeGreaterThan(0);
  });

  it('the data directory is private: files 0600, directories 0700', () => {
    const walk = (d: string): void => {
      expect(statSync(d).mode & 0o777, d).toBe(0o700);
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else if (st.isFile()) expect(st.mode & 0o777, p).toBe(0o600);
      }
    };
    walk(idx.dataDir);
  });
});
