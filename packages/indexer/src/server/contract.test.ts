/**
 * The contract: router/contract parity (the router registers exactly the routes the published
 * contract names, plus /metrics on the loopback metrics listener only; 115 in all), every route's
 * response schema closed (a ratchet: src/server/contract.pending.json lists the routes still open
 * and can only shrink), only index routes batchable, and every status the framework can answer
 * declared with its codes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createAuth } from './auth.js';
import { ERRORS } from './errors.js';
import { createServer } from './index.js';
import { buildOpenApi, declaredErrors, EVENT_STREAM, METRICS_ENTRY } from './openapi.js';
import type { Route } from './route.js';
import { routes } from './routes/index.js';

/**
 * Where a schema leaves a field undescribed: every object must be closed
 * (`additionalProperties: false`) unless it is a raw chain record served as the node sent it
 * (`x-node-record`) or the error envelope (`x-error-envelope`); intersections (allOf) of objects
 * cannot be closed and are refused outright. Returns one line per violation, with its JSON path.
 */
function openObjects(s: TSchema, path = ''): string[] {
  const out: string[] = [];
  const o = s as Record<string, unknown>;
  if (o.type === 'object') {
    const closed =
      o.additionalProperties === false || o['x-node-record'] === true || o['x-error-envelope'] === true;
    if (!closed) out.push(`${path || '/'}: open object`);
  }
  if (Array.isArray(o.allOf)) out.push(`${path || '/'}: intersection (use one closed object)`);
  const sub = (x: unknown, p: string) => {
    if (x && typeof x === 'object') out.push(...openObjects(x as TSchema, p));
  };
  for (const [k, v] of Object.entries((o.properties as Record<string, unknown>) ?? {}))
    sub(v, `${path}/${k}`);
  for (const v of Object.values((o.patternProperties as Record<string, unknown>) ?? {})) sub(v, `${path}/*`);
  if (typeof o.additionalProperties === 'object') sub(o.additionalProperties, `${path}/*`);
  if (Array.isArray(o.items)) for (const [i, v] of o.items.entries()) sub(v, `${path}/${i}`);
  else sub(o.items, `${path}/[]`);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(o[k])) for (const [i, v] of (o[k] as unknown[]).entries()) sub(v, `${path}|${k}${i}`);
  return out;
}

/** Why a route's contract does not yet describe what it returns (empty when it does). */
function contractGaps(r: Route): string[] {
  const gaps = [r.response, ...(r.alternates ?? []).map((a) => a.schema)].flatMap((s) => openObjects(s));
  const events = (r.response as Record<string, unknown>)['x-sse-events'] === true;
  if (r.path.startsWith('/stream/') && (r.mediaType !== EVENT_STREAM || !events))
    gaps.push(`not published as ${EVENT_STREAM} with its events (response: SseEvents([...]))`);
  return gaps;
}

/** Routes still open, migrating domain by domain (issue K): the list can only shrink. */
const PENDING_URL = new URL('./contract.pending.json', import.meta.url);
const PENDING: { openRoutes: string[] } = JSON.parse(readFileSync(PENDING_URL, 'utf8'));

describe('contract', () => {
  const doc = buildOpenApi(routes, 'test') as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const contract = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
  );

  it('lists exactly 115 routes', () => {
    expect(contract).toHaveLength(115);
    expect(new Set(contract).size).toBe(115);
  });

  it('router and contract name the same routes', () => {
    const server = createServer({
      routes,
      chains: new Map(),
      auth: createAuth([]),
      log: pino({ level: 'silent' }),
    });
    const registered = server.registered().map((r) => `${r.method} ${r.path}`);
    const onMetricsListener = [`GET ${METRICS_ENTRY.path}`];
    expect([...registered, ...onMetricsListener].sort()).toEqual([...contract].sort());
    expect(registered).not.toContain('GET /metrics');
  });

  it('has the spec group sizes', () => {
    const byGroup = new Map<string, number>();
    for (const r of routes) byGroup.set(r.group, (byGroup.get(r.group) ?? 0) + 1);
    byGroup.set('Monitoring', (byGroup.get('Monitoring') ?? 0) + 1); // /metrics
    expect(Object.fromEntries(byGroup)).toEqual({
      Tokens: 31,
      Pools: 20,
      Wallets: 18,
      Chain: 13,
      Streams: 11,
      'Screener and rankings': 3,
      Cohorts: 4,
      Addresses: 3,
      'Live RPC': 4,
      Contracts: 1,
      Batch: 1,
      Monitoring: 6,
    });
  });

  it('every route declares only registered error codes, and ids are unique', () => {
    const ids = new Set<string>();
    for (const r of routes) {
      for (const e of r.errors) expect(ERRORS).toHaveProperty(e);
      expect(ids.has(r.id)).toBe(false);
      ids.add(r.id);
    }
  });

  it('wallet routes need a wallet scope, live RPC needs rpc, streams need stream', () => {
    for (const r of routes) {
      if (r.path.startsWith('/wallets/')) expect(r.scope).toBe('wallet');
      if (r.path.startsWith('/rpc/')) expect(r.scope).toBe('rpc');
      if (r.path.startsWith('/stream/')) expect(r.scope).toBe('stream');
      if (['/health', '/checkpoints', '/gaps'].includes(r.path)) expect(r.scope).toBe('monitoring');
    }
  });

  it('every response schema is closed, except the routes still listed in contract.pending.json', () => {
    const open = routes
      .filter((r) => contractGaps(r).length > 0)
      .map((r) => r.id)
      .sort();
    if (process.env.CONTRACT_WRITE_PENDING)
      writeFileSync(PENDING_URL, `${JSON.stringify({ openRoutes: open }, null, 2)}\n`);
    const fixed = PENDING.openRoutes.filter((id) => !open.includes(id));
    const regressed = routes
      .filter((r) => open.includes(r.id) && !PENDING.openRoutes.includes(r.id))
      .map((r) => `${r.id}:\n  ${contractGaps(r).slice(0, 8).join('\n  ')}`);
    // A new open route fails; so does a listed route that is closed now (remove it from the list).
    expect(regressed, 'routes with open objects not in contract.pending.json').toEqual([]);
    expect(fixed, 'closed routes still listed in contract.pending.json: remove them').toEqual([]);
  });

  it('the walker finds open objects, intersections and closed ones', () => {
    const closed = { type: 'object', additionalProperties: false, properties: {} };
    expect(openObjects(closed as never)).toEqual([]);
    expect(openObjects({ type: 'object', properties: { a: { type: 'object' } } } as never)).toEqual([
      '/: open object',
      '/a: open object',
    ]);
    expect(openObjects({ type: 'array', items: { anyOf: [closed, { type: 'object' }] } } as never)).toEqual([
      '/[]|anyOf1: open object',
    ]);
    expect(
      openObjects({ type: 'object', additionalProperties: true, 'x-node-record': true } as never),
    ).toEqual([]);
    expect(openObjects({ allOf: [closed, closed] } as never)).toEqual([
      '/: intersection (use one closed object)',
    ]);
  });

  it('only index routes are batchable: GET, synchronous, JSON, chain-scoped', () => {
    const bad = routes
      .filter((r) => r.batchable)
      .filter(
        (r) =>
          r.kind === 'node' ||
          r.method !== 'GET' ||
          r.root ||
          (r.mediaType ?? 'application/json') !== 'application/json',
      )
      .map((r) => r.id);
    expect(bad).toEqual([]);
  });

  it('declares the framework refusals where the server can answer them', () => {
    for (const r of routes) {
      const codes = declaredErrors(r);
      expect(codes.has('bad_request'), r.id).toBe(true);
      expect(codes.has('internal'), r.id).toBe(true);
      expect(codes.has('unknown_chain'), r.id).toBe(!r.root);
      if (r.scope)
        for (const c of ['unauthorized', 'insufficient_scope', 'rate_limited'] as const)
          expect(codes.has(c), r.id).toBe(true);
      if (r.query && 'cursor' in r.query)
        for (const c of ['bad_cursor', 'stale_cursor', 'query_too_broad'] as const)
          expect(codes.has(c), r.id).toBe(true);
      if (r.method === 'POST')
        for (const c of ['payload_too_large', 'invalid_json_body'] as const)
          expect(codes.has(c), r.id).toBe(true);
      if (r.anchored) expect(codes.has('not_ready'), r.id).toBe(true);
      if (r.anchored && r.group !== 'Monitoring')
        for (const c of ['ingest_halted', 'replica_lagging'] as const) expect(codes.has(c), r.id).toBe(true);
      if (r.requires?.length) expect(codes.has('projection_unavailable'), r.id).toBe(true);
    }
  });

  it('publishes each error status with the codes of the route as an enum, and each 200 by reference', () => {
    const full = buildOpenApi(routes, 'test') as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, any> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const byId = new Map(routes.map((r) => [r.id, r]));
    for (const ops of Object.values(full.paths))
      for (const op of Object.values(ops)) {
        const r = byId.get(op.operationId);
        if (!r) continue;
        const published = new Set<string>();
        for (const [status, resp] of Object.entries(op.responses)) {
          if (status === '200') {
            const media = Object.values(resp.content)[0] as {
              schema: { $ref?: string };
              'x-itemSchema'?: { $ref: string };
            };
            const $ref = r.mediaType === EVENT_STREAM ? media['x-itemSchema']?.$ref : media.schema.$ref;
            expect($ref).toBe(`#/components/schemas/${r.id}`);
            expect(full.components.schemas[r.id]).toBeTruthy();
            continue;
          }
          const schema = resp.content['application/json'].schema;
          const envelope = schema.allOf ?? schema.anyOf?.find((x: any) => x.allOf)?.allOf;
          if (!envelope) continue; // a non-error body only (none today)
          for (const c of envelope[1].properties.error.enum as string[]) {
            expect(String(ERRORS[c as keyof typeof ERRORS].status), `${r.id} ${c}`).toBe(status);
            published.add(c);
          }
        }
        expect([...published].sort(), r.id).toEqual([...declaredErrors(r)].sort());
      }
  });

  it('the batch contract names its request and its items: batchable routes only, bodies by reference', () => {
    const full = buildOpenApi(routes, 'test') as any;
    const batch = full.paths['/index/v1/{chain}/batch'].post;
    const item = batch.requestBody.content['application/json'].schema.properties.requests.items;
    const batchable = routes.filter((r) => r.batchable);
    expect(item.additionalProperties).toBe(false);
    expect(item.properties.route.enum).toEqual(batchable.flatMap((r) => [r.path, r.id]));
    const results = full.components.schemas.batch.properties.results.items.anyOf;
    expect(results[0].properties.body.anyOf).toEqual(
      batchable.map((r) => ({ $ref: `#/components/schemas/${r.id}` })),
    );
    expect(results[1].properties.error.additionalProperties).toBe(true);
  });
});
