/**
 * Scanner plans and limits end to end over real HTTP (real listener, real RocksDB, controllable
 * clock): plan states (renewal grace, cancellation, lapse with upgradeUrl, resume), the API
 * access switch, the key and account rolling windows with X-RateLimit-* and Retry-After, 30
 * invalid keys per IP, a key directory out of contact (503), whoami and usage, and the OpenAPI
 * document against the registered endpoints.
 */

import {
  createEmbeddedDirectory,
  ENDPOINTS,
  generateKey,
  type KeyDirectory,
  SCANNER_ERRORS,
} from '@chain-indexer/scanner/testing';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, createClock, type ScannerHarness, startScanner } from '../harness/scanner.js';

const T0 = Date.parse('2026-02-02T10:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let h: ScannerHarness;

const schemaOf = (id: string) => ENDPOINTS.find((e) => e.spec.id === id)!.publishedResponse;
const expectEnvelope = (a: Answer, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.body).toMatchObject({ code, requestId: a.headers['x-request-id'] });
  expect(typeof a.body.error).toBe('string');
};

/** An account on `tier` for 30 days from now, with one key; returns ids and the secret. */
async function accountWithKey(
  hh: ScannerHarness,
  email: string,
  tier: 'scale' | 'enterprise' | 'none' = 'scale',
) {
  const { accounts } = hh.service.core;
  const a = accounts.createAccount({ email });
  if (tier !== 'none')
    accounts.setPlan(a.id, { tier, status: 'active', periodEnd: hh.clock.now() + 30 * DAY });
  const { secret, key } = accounts.createKey(a.id, { name: 'k' }, { ip: 'cli' });
  return { id: a.id, key: secret, keyId: key.id };
}
const whoami = (hh: ScannerHarness, key: string, ip?: string) => hh.request('GET', '/v1/whoami', { key, ip });

beforeAll(async () => {
  h = await startScanner({ clock: createClock(T0), smtp: null });
});
afterAll(async () => {
  await h?.close();
});

describe('plans and API access', () => {
  it('no plan: 403 API_PLAN_REQUIRED with upgradeUrl, recorded; keys still viewable and revocable', async () => {
    const a = await accountWithKey(h, 'noplan@example.com', 'none');
    const r = await whoami(h, a.key);
    expectEnvelope(r, 403, 'API_PLAN_REQUIRED');
    expect(r.body.upgradeUrl).toBe('https://billing.example/upgrade');
    const act = h.service.core.directory.activity(a.id, 10);
    expect(act[0]).toMatchObject({ kind: 'no_api_access', keyId: a.keyId, detail: 'API_PLAN_REQUIRED' });
    const { token } = h.service.core.accounts.createSession(a.id, DAY);
    const keys = await h.request('GET', '/v1/account/keys', { bearer: token });
    expect(keys.body.keys).toHaveLength(1);
    const plan = await h.request('GET', '/v1/account/plan', { bearer: token });
    expect(plan.body).toMatchObject({
      plan: { tier: 'none', state: 'none' },
      upgradeUrl: 'https://billing.example/upgrade',
    });
    expect((await h.request('POST', `/v1/account/keys/${a.keyId}/revoke`, { bearer: token })).status).toBe(
      200,
    );
    expectEnvelope(await whoami(h, a.key), 401, 'API_KEY_REVOKED');
  });

  it('an active plan keeps working 3 days past its period end, then lapses; renewing resumes the same keys', async () => {
    const a = await accountWithKey(h, 'renew@example.com');
    const end = h.clock.now() + 30 * DAY;
    h.clock.set(end - 1);
    expect((await whoami(h, a.key)).body.plan.state).toBe('active');
    h.clock.set(end);
    const grace = await whoami(h, a.key);
    expect(grace.status).toBe(200);
    expect(grace.body.plan).toMatchObject({
      state: 'renewal_grace',
      usableUntil: new Date(end + 3 * DAY).toISOString(),
    });
    h.clock.set(end + 3 * DAY - 1);
    expect((await whoami(h, a.key)).status).toBe(200);
    h.clock.set(end + 3 * DAY);
    const lapsed = await whoami(h, a.key);
    expectEnvelope(lapsed, 403, 'API_PLAN_REQUIRED');
    expect(lapsed.body.error).toContain('lapsed');
    h.service.core.accounts.setPlan(a.id, { periodEnd: h.clock.now() + 30 * DAY });
    expect((await whoami(h, a.key)).status).toBe(200);
    h.clock.set(T0);
  });

  it('a cancelled plan works until the paid period ends, with no grace (cancelled from the dashboard)', async () => {
    const a = await accountWithKey(h, 'cancel@example.com');
    const { token } = h.service.core.accounts.createSession(a.id, 30 * DAY);
    const c = await h.request('POST', '/v1/account/plan/cancel', { bearer: token });
    expect(c.status, c.text).toBe(200);
    expect(Value.Check(schemaOf('account.plan.cancel'), c.body)).toBe(true);
    expect(c.body.plan).toMatchObject({ status: 'cancelled', state: 'cancelled_until_period_end' });
    const end = h.clock.now() + 30 * DAY;
    h.clock.set(end - 1);
    expect((await whoami(h, a.key)).status).toBe(200);
    h.clock.set(end);
    expectEnvelope(await whoami(h, a.key), 403, 'API_PLAN_REQUIRED');
    h.clock.set(T0);
  });

  it('API access switched off: 403 FORBIDDEN whatever the plan; on again: 200', async () => {
    const a = await accountWithKey(h, 'switch@example.com', 'enterprise');
    h.service.core.accounts.setApiAccess(a.id, false);
    expectEnvelope(await whoami(h, a.key), 403, 'FORBIDDEN');
    expect(h.service.core.directory.activity(a.id, 1)[0]).toMatchObject({
      kind: 'no_api_access',
      detail: 'FORBIDDEN',
    });
    h.service.core.accounts.setApiAccess(a.id, true);
    expect((await whoami(h, a.key)).status).toBe(200);
  });

  it('Enterprise: 600 per minute by default, the per-account override otherwise', async () => {
    const a = await accountWithKey(h, 'ent@example.com', 'enterprise');
    const w = await whoami(h, a.key);
    expect(w.body.limitPerMinute).toBe(600);
    expect(w.headers['x-ratelimit-limit']).toBe('600');
    h.service.core.accounts.setPlan(a.id, { ratePerMinute: 2400 });
    const w2 = await whoami(h, a.key);
    expect(w2.body).toMatchObject({
      limitPerMinute: 2400,
      plan: { tier: 'enterprise', limitPerMinute: 2400 },
    });
    expect(w2.headers['x-ratelimit-limit']).toBe('2400');
    expect(w2.headers['x-ratelimit-remaining']).toBe('2398');
  });
});

describe('rate limits', () => {
  it('the key window: 120 per rolling minute with X-RateLimit-* on each success, then 429 API_KEY_RATE_LIMITED with Retry-After', async () => {
    h.clock.set(T0 + 1000 * DAY);
    const a = await accountWithKey(h, 'rate@example.com');
    for (let i = 0; i < 120; i++) {
      const r = await whoami(h, a.key);
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('120');
      expect(r.headers['x-ratelimit-remaining']).toBe(String(119 - i));
      if (i === 59) h.clock.advance(30_000); // the second half half a minute later
    }
    const over = await whoami(h, a.key);
    expectEnvelope(over, 429, 'API_KEY_RATE_LIMITED');
    expect(over.headers['retry-after']).toBe('30'); // the first 60 leave the window 30 s from now
    expect(over.body.retryAfter).toBe(30);
    h.clock.advance(30_000 - 1);
    expectEnvelope(await whoami(h, a.key), 429, 'API_KEY_RATE_LIMITED');
    h.clock.advance(1);
    const back = await whoami(h, a.key);
    expect(back.status).toBe(200);
    expect(back.headers['x-ratelimit-remaining']).toBe('59');
  });

  it("the account window: a second key of the account shares the plan's number; /usage counts too", async () => {
    h.clock.set(T0 + 2000 * DAY);
    const a = await accountWithKey(h, 'shared@example.com');
    const second = h.service.core.accounts.createKey(a.id, { name: 'k2' }, { ip: 'cli' }).secret;
    for (let i = 0; i < 100; i++) expect((await whoami(h, a.key)).status).toBe(200);
    for (let i = 0; i < 20; i++)
      expect((await h.request('GET', '/v1/usage?days=1', { key: second })).status).toBe(200);
    const r = await whoami(h, second);
    expectEnvelope(r, 429, 'API_KEY_RATE_LIMITED');
    expect(r.body.error).toContain("account's");
    expect(r.headers['retry-after']).toBe('60');
    h.clock.advance(60_000);
    expect((await whoami(h, second)).status).toBe(200);
    // Usage counted every answer, the 429 included, by endpoint and status class.
    const u = await h.request('GET', '/v1/usage?days=1', { key: second });
    expect(u.status).toBe(200);
    expect(Value.Check(schemaOf('usage'), u.body)).toBe(true);
    expect(u.body.daily).toHaveLength(1);
    const counts = Object.fromEntries(
      u.body.daily[0].requests.map((x: { endpoint: string; statusClass: string; count: number }) => [
        `${x.endpoint} ${x.statusClass}`,
        x.count,
      ]),
    );
    expect(counts).toEqual({ '/v1/whoami 2xx': 101, '/v1/whoami 4xx': 1, '/v1/usage 2xx': 20 });
  });

  it('30 invalid keys per minute from one IP: then 429 RATE_LIMITED with Retry-After for invalid keys; a valid key is never blocked; other IPs unaffected', async () => {
    h.clock.set(T0 + 3000 * DAY);
    const a = await accountWithKey(h, 'ipban@example.com');
    const ip = '198.51.100.99';
    for (let i = 0; i < 30; i++) {
      expectEnvelope(await whoami(h, generateKey().secret, ip), 401, 'API_KEY_INVALID');
      h.clock.advance(1000);
    }
    const blocked = await whoami(h, generateKey().secret, ip);
    expectEnvelope(blocked, 429, 'RATE_LIMITED');
    expect(blocked.headers['retry-after']).toBe('30');
    expectEnvelope(await whoami(h, 'not-a-key', ip), 429, 'RATE_LIMITED');
    // Behind one proxy address, or one NAT, other clients' valid keys still pass.
    expect((await whoami(h, a.key, ip)).status).toBe(200);
    expect((await whoami(h, a.key, '198.51.100.100')).status).toBe(200);
    expectEnvelope(await whoami(h, generateKey().secret, '198.51.100.100'), 401, 'API_KEY_INVALID');
    h.clock.advance(30_000);
    expectEnvelope(await whoami(h, generateKey().secret, ip), 401, 'API_KEY_INVALID');
  });

  it('an IPv6 client is counted by its /64: rotating addresses inside it does not reset the count', async () => {
    h.clock.set(T0 + 3500 * DAY);
    const a = await accountWithKey(h, 'ipv6ban@example.com');
    for (let i = 0; i < 30; i++) {
      const ip = `2001:db8:1:2:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`;
      expectEnvelope(await whoami(h, generateKey().secret, ip), 401, 'API_KEY_INVALID');
      h.clock.advance(500);
    }
    const blocked = await whoami(h, generateKey().secret, '2001:db8:1:2:ffff:ffff:ffff:fffe');
    expectEnvelope(blocked, 429, 'RATE_LIMITED');
    expect(blocked.body.error).toMatch(/\/64/);
    // The next /64 is another subscriber; a valid key inside the blocked /64 still passes.
    expectEnvelope(await whoami(h, generateKey().secret, '2001:db8:1:3::1'), 401, 'API_KEY_INVALID');
    expect((await whoami(h, a.key, '2001:db8:1:2::99')).status).toBe(200);
  });

  it('a revoked key counts as an invalid key for its IP', async () => {
    h.clock.set(T0 + 4000 * DAY);
    const a = await accountWithKey(h, 'revokedflood@example.com');
    h.service.core.accounts.revokeKey(a.id, a.keyId, { ip: 'cli' });
    for (let i = 0; i < 30; i++) expectEnvelope(await whoami(h, a.key, '192.0.2.77'), 401, 'API_KEY_REVOKED');
    expectEnvelope(await whoami(h, a.key, '192.0.2.77'), 429, 'RATE_LIMITED');
    // The activity list holds one revoked_key_used entry, not 30 (10-minute de-duplication).
    expect(
      h.service.core.directory.activity(a.id, 50).filter((e) => e.kind === 'revoked_key_used'),
    ).toHaveLength(1);
  });
});

describe('key directory contact', () => {
  it('a server whose key directory is out of contact for more than 5 s answers 503 INTERNAL_ERROR instead of honouring keys', async () => {
    // The seam a shared directory implements: here the embedded one with a settable last contact.
    let contact = T0;
    const clock = createClock(T0);
    const s = await startScanner({
      clock,
      smtp: null,
      seams: {
        directory: (store, now): KeyDirectory => ({
          ...createEmbeddedDirectory(store, now),
          lastContact: () => contact,
        }),
      },
    });
    try {
      const a = await accountWithKey(s, 'contact@example.com');
      const { token } = s.service.core.accounts.createSession(a.id, DAY);
      clock.set(T0 + 5000);
      expect((await whoami(s, a.key)).status).toBe(200);
      clock.set(T0 + 5001);
      expectEnvelope(await whoami(s, a.key), 503, 'INTERNAL_ERROR');
      expectEnvelope(await s.request('GET', '/v1/account', { bearer: token }), 503, 'INTERNAL_ERROR');
      contact = T0 + 5001;
      expect((await whoami(s, a.key)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('whoami, usage, OpenAPI', () => {
  it('whoami answers the account, key, plan and effective limit; usage validates days', async () => {
    h.clock.set(T0);
    const a = await accountWithKey(h, 'who@example.com');
    const w = await whoami(h, a.key);
    expect(w.body).toEqual({
      account: { id: a.id, name: 'who@example.com' },
      key: { id: a.keyId, name: 'k', prefix: a.key.slice(0, 12) },
      plan: {
        tier: 'scale',
        status: 'active',
        state: 'active',
        periodEnd: new Date(T0 + 30 * DAY).toISOString(),
        usableUntil: new Date(T0 + 33 * DAY).toISOString(),
        limitPerMinute: 120,
      },
      limitPerMinute: 120,
    });
    const u = await h.request('GET', '/v1/usage', { key: a.key });
    expect(u.body.daily).toHaveLength(30);
    expect(u.body.to).toBe(new Date(T0).toISOString().slice(0, 10));
    expect(u.body.remainingScans).toBe(0);
    h.service.core.ledger.grant(a.id, 250, 'test', T0);
    expect((await h.request('GET', '/v1/usage?days=90', { key: a.key })).body).toMatchObject({
      remainingScans: 250,
    });
    for (const q of ['days=0', 'days=91', 'days=abc', 'days=1.5', 'days=1&days=2', 'other=1'])
      expectEnvelope(await h.request('GET', `/v1/usage?${q}`, { key: a.key }), 400, 'INVALID_INPUT');
  });

  it('the OpenAPI document lists exactly the registered endpoints, each with its errors, and needs no key', async () => {
    const r = await h.request('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const documented = Object.entries(r.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    const registered = h.service
      .registered()
      .map((e) => `${e.method} ${e.path}`)
      .sort();
    expect(documented).toEqual(registered);
    expect(registered).toContain('GET /v1/whoami');
    expect(registered).toContain('GET /v1/usage');
    const who = r.body.paths['/v1/whoami'].get;
    expect(who['x-credits']).toBe('free');
    expect(Object.keys(who.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    const codes = Object.values(who.responses as Record<string, { description: string }>)
      .map((x) => x.description)
      .join(' ');
    for (const c of [
      'API_KEY_INVALID',
      'API_KEY_REVOKED',
      'API_KEY_IP_NOT_ALLOWED',
      'API_PLAN_REQUIRED',
      'RATE_LIMITED',
    ])
      expect(codes).toContain(c);
    const acct = r.body.paths['/v1/account'].get;
    expect(acct.security).toEqual([{ dashboardSession: [] }]);
    expect(JSON.stringify(acct.responses['403'])).toContain('API_KEY_ROUTE_NOT_ALLOWED');
    expect(r.body.components.schemas.ErrorEnvelope.properties.code.anyOf).toHaveLength(
      Object.keys(SCANNER_ERRORS).length,
    );
    const health = await h.request('GET', '/v1/health');
    expect(health.body).toEqual({ status: 'ok', chains: [] });
  });
});
