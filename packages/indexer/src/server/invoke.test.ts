/**
 * Rate charging of the invocation core: a request is charged once, before its runs (a run repeated
 * on a new view after a write landed is not charged again), and POST /batch charges each item to
 * its own route's class, an item over its limit failing alone with 429. A dropped run gives back
 * what it reserved (a stream slot).
 */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { View } from '../storage/index.js';
import type { Principal } from './auth.js';
import { type CompiledRoute, compileRoute, invoke } from './invoke.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import type { ChainContext, Reply, Route, Scope } from './route.js';
import { defineRoute } from './route.js';
import { batchRoute } from './routes/batch/batch.js';

/** A view whose consistency fails for the first `dirtyRuns` runs (a write landed during them). */
function fakeChain(dirtyRuns: number): { chain: ChainContext; views: () => number } {
  let opened = 0;
  const view = (): View => {
    const n = ++opened;
    return {
      head: { number: 10, hash: `0x${'11'.repeat(32)}` },
      seq: n,
      consistent: () => n > dirtyRuns,
      close() {},
    } as unknown as View;
  };
  const chain = {
    name: 'test',
    chainId: 1,
    store: { view },
    ingest: { status: () => ({ state: 'following' }) },
    registry: { status: () => undefined },
  } as unknown as ChainContext;
  return { chain, views: () => opened };
}

const itemRoute = (id: string, scope: Scope): Route =>
  defineRoute({
    id,
    method: 'GET',
    path: `/${id}`,
    scope,
    group: 'Test',
    summary: id,
    response: Type.Object({ ok: Type.Boolean() }),
    errors: [],
    batchable: true,
    anchored: true,
    handler: () => ({ json: '{"ok":true}' }),
  });

/** A limiter that records every charge it is asked for. */
function countingLimiter(): { limiter: RateLimiter; charges: Scope[] } {
  const inner = createRateLimiter();
  const charges: Scope[] = [];
  return {
    charges,
    limiter: {
      charge(key, scope, limits, nowMs) {
        charges.push(scope);
        return inner.charge(key, scope, limits, nowMs);
      },
    },
  };
}

const principal: Principal = {
  name: 'k',
  scopes: new Set<Scope>(['read', 'wallet']),
  rateLimits: { wallet: { perSecond: 0.001, burst: 2 } },
  maxStreams: 8,
};

/** A request of {@link principal} on `chain`, no parameters, no limiter. */
const requestOn = (chain: ChainContext, compiled: Map<Route, CompiledRoute>) => ({
  chain,
  allChains: new Map([['test', chain]]),
  principal,
  rawParams: {},
  rawQuery: {},
  headers: {},
  services: { compiled },
});

function setup(dirtyRuns: number) {
  const routes = [batchRoute, itemRoute('w', 'wallet'), itemRoute('r', 'read'), itemRoute('m', 'monitoring')];
  const compiled = new Map<Route, CompiledRoute>(routes.map((r) => [r, compileRoute(r)]));
  const { chain, views } = fakeChain(dirtyRuns);
  const { limiter, charges } = countingLimiter();
  const run = (c: CompiledRoute, body?: unknown) =>
    invoke(c, { ...requestOn(chain, compiled), body, limiter }) as Reply;
  return { compiled, routes, run, charges, views };
}

describe('rate charging', () => {
  it('charges a request once, however many runs a moving store makes it take', () => {
    const { compiled, routes, run, charges, views } = setup(3);
    const out = run(compiled.get(routes[2])!);
    expect(JSON.parse(out.json)).toEqual({ ok: true });
    expect(views()).toBe(4);
    expect(charges).toEqual(['read']);
  });

  it('charges each batch item to its own class, once, even when the batch runs again', () => {
    const { compiled, run, charges, views } = setup(2);
    const body = {
      requests: [
        { route: '/w' },
        { route: '/r' },
        { route: '/w' },
        { route: '/w' },
        { route: '/m' },
        { route: '/nope' },
      ],
    };
    const out = run(compiled.get(batchRoute)!, body);
    expect(views()).toBe(3);
    // wallet ×3, read ×1; the monitoring item (scope not held) and the unknown route are not charged.
    expect(charges).toEqual(['wallet', 'read', 'wallet', 'wallet']);
    const results = JSON.parse(out.json).results as Array<{ status: number; error?: { error: string } }>;
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429, 403, 404]);
    expect(results[3].error?.error).toBe('rate_limited');
  });

  it('a batch with nothing to charge costs one read, and is refused whole when that is over', () => {
    const { compiled } = setup(0);
    const limiter = createRateLimiter();
    const limitedRead: Principal = { ...principal, rateLimits: { read: { perSecond: 0.001, burst: 1 } } };
    const go = () =>
      invoke(compiled.get(batchRoute)!, {
        chain: fakeChain(0).chain,
        allChains: new Map(),
        principal: limitedRead,
        rawParams: {},
        rawQuery: {},
        headers: {},
        body: { requests: [{ route: '/nope' }] },
        limiter,
        services: { compiled },
      });
    expect(() => go()).not.toThrow();
    expect(() => go()).toThrow(/rate_limited/);
  });
});

describe('runs dropped on a moving store', () => {
  /** A route that reads on every run and keeps its side effect (a counter) in `Reply.effect`. */
  const effectRoute = (counter: { reads: number; effects: number }, sse: boolean) =>
    defineRoute({
      id: 'effect',
      method: 'GET',
      path: '/effect',
      scope: 'read',
      group: 'Test',
      summary: 'effect',
      response: Type.String(),
      errors: [],
      anchored: true,
      handler: () => {
        counter.reads++;
        return {
          json: '',
          effect: () => {
            counter.effects++; // what StreamService.reserve or a selection mutation does
            return sse ? { json: '', sse: () => undefined } : { json: `{"n":${counter.effects}}` };
          },
        };
      },
    });

  it('never act: a stream slot is reserved once, however many runs the request took', () => {
    const n = { reads: 0, effects: 0 };
    const route = effectRoute(n, true);
    const c = compileRoute(route);
    const { chain, views } = fakeChain(3);
    const out = invoke(c, requestOn(chain, new Map([[route, c]]))) as Reply;
    expect(views()).toBe(4);
    expect(n).toEqual({ reads: 4, effects: 1 });
    expect(out.sse).toBeDefined();
    expect(out.effect).toBeUndefined();
  });

  it('a mutation applies once and answers what it did (not a revision per dropped run)', () => {
    const n = { reads: 0, effects: 0 };
    const route = effectRoute(n, false);
    const c = compileRoute(route);
    const { chain } = fakeChain(2);
    const out = invoke(c, requestOn(chain, new Map([[route, c]]))) as Reply;
    expect(n).toEqual({ reads: 3, effects: 1 });
    expect(out.json).toBe('{"n":1}');
  });

  it('a route with an effect is refused as a batch item, and its effect never runs', () => {
    const n = { reads: 0, effects: 0 };
    const route = effectRoute(n, false);
    const c = compileRoute(route);
    const { chain } = fakeChain(0);
    const view = chain.store.view();
    expect(() => invoke(c, { ...requestOn(chain, new Map([[route, c]])), view })).toThrow(/not batchable/);
    expect(n.effects).toBe(0);
  });
});
