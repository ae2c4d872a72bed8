/**
 * The generic credit mechanism end to end, over real HTTP and a real RocksDB store, through a
 * credit-consuming endpoint registered by the test (test/harness/scanner-charged-endpoint.ts: the
 * scan endpoints that will use the same mechanism need the index and come in phase 2): the charge
 * and its ledger row, cached answers free (same anchor/body, `cached: true`), the cache window,
 * 402 INSUFFICIENT_CREDITS, failed requests refunded, concurrent holds, a client that leaves
 * before its answer is not charged.
 */
import { request } from 'node:http';
import { dayOf } from '@chain-indexer/scanner/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, createClock, type ScannerHarness, startScanner } from '../harness/scanner.js';
import { chargedTestEndpoint } from '../harness/scanner-charged-endpoint.js';

const T0 = Date.parse('2026-03-03T08:00:00Z');
let h: ScannerHarness;
let acc: string;
let key: string;
/** A lower-case address with hex letters (so upper-casing it changes it). */
const addr = (n: number) => `0x${'ab'.repeat(19)}${n.toString(16).padStart(2, '0')}`;
const scan = (body: Record<string, unknown>, k = key) =>
  h.request('POST', '/v1/test/charged', { key: k, body });
const balance = () => h.service.core.ledger.balance(acc);
const expectEnvelope = (a: Answer, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.body).toMatchObject({ code, requestId: a.headers['x-request-id'] });
};

beforeAll(async () => {
  h = await startScanner({ clock: createClock(T0), smtp: null, extraEndpoints: [chargedTestEndpoint] });
  const { accounts, ledger } = h.service.core;
  acc = accounts.createAccount({ email: 'credits@example.com' }).id;
  accounts.setPlan(acc, { tier: 'enterprise', status: 'active', periodEnd: T0 + 90 * 86_400_000 });
  key = accounts.createKey(acc, { name: 'scanner' }, { ip: 'cli' }).secret;
  ledger.grant(acc, 10, 'test', T0);
});
afterAll(async () => {
  await h?.close();
});

describe('charging', () => {
  it('a charged answer: cached false, X-Scans-* and rate headers, one ledger row tied to its requestId', async () => {
    const r = await scan({ subject: addr(1).toUpperCase().replace('0X', '0x'), depth: 'quick' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ subject: addr(1), depth: 'quick', cached: false });
    expect(r.headers['x-scans-charged']).toBe('1');
    expect(r.headers['x-scans-remaining']).toBe('9');
    expect(r.headers['x-ratelimit-limit']).toBe('600');
    expect(balance()).toBe(9);
    const [charge] = h.service.core.ledger.entries(acc, 1);
    expect(charge).toMatchObject({
      reason: 'charge',
      delta: -1,
      balance: 9,
      requestId: r.headers['x-request-id'],
      endpoint: '/v1/test/charged',
    });
  });

  it('the same normalised request within the cache window is the first answer again, free, cached: true', async () => {
    const first = await scan({ subject: addr(2), depth: 'deep' });
    expect(first.headers['x-scans-charged']).toBe('2');
    expect(balance()).toBe(7);
    h.clock.advance(59_999);
    const again = await scan({ subject: addr(2).toUpperCase().replace('0X', '0x'), depth: 'deep' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, cached: true });
    expect(again.headers['x-scans-charged']).toBe('0');
    expect(balance()).toBe(7);
    // Another depth is another request.
    expect((await scan({ subject: addr(2), depth: 'quick' })).body.cached).toBe(false);
    expect(balance()).toBe(6);
    // Past the window the answer is computed and charged again.
    h.clock.advance(1);
    const later = await scan({ subject: addr(2), depth: 'deep' });
    expect(later.body.cached).toBe(false);
    expect(later.body.answer).toBeGreaterThan(first.body.answer);
    expect(balance()).toBe(4);
  });

  it('402 INSUFFICIENT_CREDITS when the cost exceeds what is left, nothing charged; a cached answer stays free', async () => {
    expect(balance()).toBe(4);
    expect((await scan({ subject: addr(3), depth: 'quick' })).status).toBe(200);
    expect((await scan({ subject: addr(4), depth: 'deep' })).status).toBe(200);
    expect(balance()).toBe(1);
    const r = await scan({ subject: addr(5), depth: 'max' });
    expectEnvelope(r, 402, 'INSUFFICIENT_CREDITS');
    expect(r.body).toMatchObject({ required: 4, remaining: 1 });
    expectEnvelope(await scan({ subject: addr(5), depth: 'deep' }), 402, 'INSUFFICIENT_CREDITS');
    // The deep scan of addr(2) answered last test is still in its window: free despite 1 < 2.
    const cached = await scan({ subject: addr(2), depth: 'deep' });
    expect(cached.status).toBe(200);
    expect(cached.body.cached).toBe(true);
    expect((await scan({ subject: addr(5), depth: 'quick' })).headers['x-scans-remaining']).toBe('0');
    expectEnvelope(await scan({ subject: addr(6), depth: 'quick' }), 402, 'INSUFFICIENT_CREDITS');
    expect(balance()).toBe(0);
  });

  it('a failed request is charged nothing (500 SERVER_ERROR or a typed 4xx) and not cached', async () => {
    h.service.core.ledger.grant(acc, 5, 'refill', h.clock.now());
    const boom = await scan({ subject: addr(7), depth: 'deep', fail: 'error' });
    expectEnvelope(boom, 500, 'SERVER_ERROR');
    expect(h.logs.some((l) => l.includes('handler failed') && l.includes(boom.body.requestId))).toBe(true);
    expectEnvelope(await scan({ subject: addr(7), depth: 'deep', fail: 'not_found' }), 404, 'NOT_FOUND');
    expectEnvelope(
      await scan({ subject: addr(7), depth: 'deep', fail: 'error', delayMs: 20 }),
      500,
      'SERVER_ERROR',
    );
    expect(balance()).toBe(5);
    const ok = await scan({ subject: addr(7), depth: 'deep' });
    expect(ok.body.cached).toBe(false);
    expect(balance()).toBe(3);
    // Malformed requests and bad keys never reach the ledger.
    expectEnvelope(await scan({ subject: 'nope', depth: 'deep' }), 400, 'INVALID_INPUT');
    expectEnvelope(await scan({ subject: addr(8), depth: 'deeper' }), 400, 'INVALID_INPUT');
    expectEnvelope(
      await h.request('POST', '/v1/test/charged', { key, headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_INPUT',
    );
    expect(balance()).toBe(3);
    const usage = h.service.core.ledger.usage(acc, dayOf(h.clock.now()), dayOf(h.clock.now()));
    const of = (cls: string) =>
      usage.find((u) => u.endpoint === '/v1/test/charged' && u.statusClass === cls)?.requests;
    expect(of('5xx')).toBe(2);
  });

  it('concurrent requests hold their cost: with 3 scans left, 3 of 5 concurrent quick scans answer, 2 are 402', async () => {
    expect(balance()).toBe(3);
    const all = await Promise.all(
      [10, 11, 12, 13, 14].map((n) => scan({ subject: addr(n), depth: 'quick', delayMs: 200 })),
    );
    expect(all.map((a) => a.status).sort()).toEqual([200, 200, 200, 402, 402]);
    expect(balance()).toBe(0);
    expect(h.service.core.ledger.reserve(acc, 1)).toBeNull();
  });

  it('a client that leaves before its answer is ready is charged nothing, and nothing is cached', async () => {
    h.service.core.ledger.grant(acc, 3, 'refill', h.clock.now());
    const entries = h.service.core.ledger.entries(acc, 1000).length;
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: h.port,
        method: 'POST',
        path: '/v1/test/charged',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ subject: addr(20), depth: 'quick', delayMs: 300 }));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(balance()).toBe(3);
    expect(h.service.core.ledger.entries(acc, 1000)).toHaveLength(entries);
    const again = await scan({ subject: addr(20), depth: 'quick' });
    expect(again.body.cached).toBe(false);
    expect(balance()).toBe(2);
  });

  it('the OpenAPI document publishes the credit rule, the cached flag and 402', async () => {
    const doc = (await h.request('GET', '/v1/openapi.json')).body;
    const op = doc.paths['/v1/test/charged'].post;
    expect(op['x-credits']).toBe('quick 1, deep 2, max 4');
    expect(op.responses['402'].description).toContain('INSUFFICIENT_CREDITS');
    expect(op.responses['200'].content['application/json'].schema.properties.cached.type).toBe('boolean');
  });
});
