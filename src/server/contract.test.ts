/**
 * Contract/router parity: the router registers exactly the routes the published contract names
 * (plus /metrics, which the contract places on the loopback metrics listener only), and the
 * count is 115.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createAuth } from './auth.js';
import { ERRORS } from './errors.js';
import { createServer } from './index.js';
import { buildOpenApi, METRICS_ENTRY } from './openapi.js';
import { routes } from './routes/index.js';

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
});
