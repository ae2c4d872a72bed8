/**
 * Scanner API keys end to end, over real HTTP to the real listener, a real RocksDB store and a
 * real SMTP server: key lifecycle (create, 5 active, roll with and without grace, revoke,
 * revoke-all), e-mails, the activity list and its 10-minute de-duplication, one credential per
 * request, keys in URLs, the browser rule, IP allowlists, dashboard sessions; and last, the
 * key-hygiene check over everything the run produced (logs, store files, outbox, e-mails, bodies).
 */
import { rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { restrictUmask } from '@chain-indexer/platform/security';
import { ENDPOINTS, generateKey, runCommand } from '@chain-indexer/scanner/testing';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  createClock,
  filesUnder,
  type ScannerHarness,
  type Smtp,
  secretsIn,
  startScanner,
  startSmtp,
} from '../harness/scanner.js';

const T0 = Date.parse('2026-01-05T09:00:00Z');
const HOUR = 3_600_000;
let smtp: Smtp;
let h: ScannerHarness;
/** A second service without SMTP (outbox) and without trusted proxies (X-Forwarded-For ignored). */
let plain: ScannerHarness;
/** Every secret revealed during the run (create/roll answers, sessions), for the hygiene check. */
const secrets = new Set<string>();

const schemaOf = (id: string) => ENDPOINTS.find((e) => e.spec.id === id)!.publishedResponse;
const expectEnvelope = (a: Answer, status: number, code: string) => {
  expect(a.status, a.text).toBe(status);
  expect(a.body.code).toBe(code);
  expect(typeof a.body.error).toBe('string');
  expect(a.body.requestId).toBe(a.headers['x-request-id']);
  expect(a.body.requestId).toMatch(/^req_/);
};

/** An account with a plan (Scale unless given) and a dashboard session. */
function account(hh: ScannerHarness, email: string, tier: 'scale' | 'enterprise' | 'none' = 'scale') {
  const { accounts } = hh.service.core;
  const a = accounts.createAccount({ email, name: email.split('@')[0] });
  if (tier !== 'none')
    accounts.setPlan(a.id, { tier, status: 'active', periodEnd: hh.clock.now() + 30 * 24 * HOUR });
  const { token } = accounts.createSession(a.id, 30 * 24 * HOUR);
  secrets.add(token);
  return { id: a.id, email, session: token };
}

async function createKey(
  hh: ScannerHarness,
  session: string,
  name: string,
  o: { allowlist?: string[]; ip?: string } = {},
): Promise<{ secret: string; id: string; answer: Answer }> {
  const a = await hh.request('POST', '/v1/account/keys', {
    bearer: session,
    ip: o.ip,
    body: { name, ...(o.allowlist ? { allowlist: o.allowlist } : {}) },
  });
  expect(a.status, a.text).toBe(201);
  secrets.add(a.body.secret);
  return { secret: a.body.secret, id: a.body.key.id, answer: a };
}

const whoami = (hh: ScannerHarness, key: string, ip?: string) => hh.request('GET', '/v1/whoami', { key, ip });
const activity = async (hh: ScannerHarness, session: string) =>
  (await hh.request('GET', '/v1/account/activity', { bearer: session })).body.activity as Array<{
    kind: string;
    keyId: string | null;
    ip: string | null;
    detail: string | null;
  }>;

let previousUmask = 0;
beforeAll(async () => {
  previousUmask = restrictUmask(); // as the services' entry points do (SECURITY.md, "Files")
  smtp = await startSmtp();
  h = await startScanner({ clock: createClock(T0), smtp });
  plain = await startScanner({ clock: createClock(T0), smtp: null, trustLoopbackProxy: false });
});

afterAll(async () => {
  await h?.close();
  await plain?.close();
  await smtp?.close();
  process.umask(previousUmask);
});

describe('keys: create, roll, revoke', () => {
  it('create answers 201 with the secret once; afterwards only the prefix; an e-mail names the key, time and IP', async () => {
    const acc = account(h, 'desk-a@example.com');
    const k = await createKey(h, acc.session, 'trading bot', { ip: '192.0.2.10' });
    expect(k.secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(Value.Check(schemaOf('account.keys.create'), k.answer.body)).toBe(true);
    expect(k.answer.body.key).toMatchObject({
      name: 'trading bot',
      prefix: k.secret.slice(0, 12),
      state: 'active',
    });
    const list = await h.request('GET', '/v1/account/keys', { bearer: acc.session });
    expect(list.status).toBe(200);
    expect(Value.Check(schemaOf('account.keys.list'), list.body)).toBe(true);
    expect(list.text).not.toContain(k.secret);
    expect(list.body.keys).toHaveLength(1);
    const w = await whoami(h, k.secret);
    expect(w.status, w.text).toBe(200);
    expect(Value.Check(schemaOf('whoami'), w.body)).toBe(true);
    expect(w.body.key).toEqual({ id: k.id, name: 'trading bot', prefix: k.secret.slice(0, 12) });

    await smtp.waitFor(1);
    const mail = smtp.messages[0];
    expect(mail.to).toEqual(['desk-a@example.com']);
    expect(mail.subject).toBe('API key created: trading bot');
    expect(mail.raw).toContain('"trading bot"');
    expect(mail.raw).toContain(new Date(T0).toISOString());
    expect(mail.raw).toContain('From IP: 192.0.2.10');
    expect(mail.raw).toContain(k.secret.slice(0, 12));
    expect(mail.raw).not.toContain(k.secret);
  });

  it('at most 5 active keys: the 6th is 409 API_KEY_LIMIT_REACHED; a rolled key in its grace does not count', async () => {
    const acc = account(h, 'desk-b@example.com');
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await createKey(h, acc.session, `k${i}`));
    const sixth = await h.request('POST', '/v1/account/keys', { bearer: acc.session, body: { name: 'k5' } });
    expectEnvelope(sixth, 409, 'API_KEY_LIMIT_REACHED');
    // Rolling keeps 5 active (the new one) and puts the old one in grace: still no room.
    const roll = await h.request('POST', `/v1/account/keys/${keys[0].id}/roll`, { bearer: acc.session });
    expect(roll.status, roll.text).toBe(201);
    secrets.add(roll.body.secret);
    expect(
      (await h.request('POST', '/v1/account/keys', { bearer: acc.session, body: { name: 'k5' } })).status,
    ).toBe(409);
    // Revoking one frees a slot; the key in grace is not counted.
    expect(
      (await h.request('POST', `/v1/account/keys/${keys[1].id}/revoke`, { bearer: acc.session })).status,
    ).toBe(200);
    await createKey(h, acc.session, 'k5');
    const acct = await h.request('GET', '/v1/account', { bearer: acc.session });
    expect(Value.Check(schemaOf('account.get'), acct.body)).toBe(true);
    expect(acct.body.keys).toEqual({ active: 5, grace: 1, revoked: 1 });
  });

  it('roll with grace: same name and allowlist, both secrets work for 24 h, then the old one is 401 API_KEY_REVOKED (recorded)', async () => {
    const acc = account(h, 'desk-c@example.com');
    const old = await createKey(h, acc.session, 'feed', { allowlist: ['198.51.100.0/24'] });
    await h.service.core.notifier.flush();
    const mails = smtp.messages.length;
    const roll = await h.request('POST', `/v1/account/keys/${old.id}/roll`, {
      bearer: acc.session,
      ip: '192.0.2.20',
      body: {},
    });
    expect(roll.status, roll.text).toBe(201);
    expect(Value.Check(schemaOf('account.keys.roll'), roll.body)).toBe(true);
    secrets.add(roll.body.secret);
    expect(roll.body.key).toMatchObject({ name: 'feed', allowlist: ['198.51.100.0/24'], state: 'active' });
    expect(roll.body.old).toMatchObject({ state: 'grace', rolledTo: roll.body.key.id });
    expect(roll.body.old.graceUntil).toBe(new Date(h.clock.now() + 24 * HOUR).toISOString());
    expect((await whoami(h, old.secret, '198.51.100.7')).status).toBe(200);
    expect((await whoami(h, roll.body.secret, '198.51.100.7')).status).toBe(200);
    await smtp.waitFor(mails + 1);
    expect(smtp.messages[mails].subject).toBe('API key rolled: feed');
    expect(smtp.messages[mails].raw).toContain('From IP: 192.0.2.20');
    expect(smtp.messages[mails].raw).toContain('keeps working until');

    h.clock.advance(24 * HOUR - 1);
    expect((await whoami(h, old.secret, '198.51.100.7')).status).toBe(200);
    h.clock.advance(1);
    expectEnvelope(await whoami(h, old.secret, '198.51.100.7'), 401, 'API_KEY_REVOKED');
    expect((await whoami(h, roll.body.secret, '198.51.100.7')).status).toBe(200);
    const act = await activity(h, acc.session);
    expect(act[0]).toMatchObject({ kind: 'revoked_key_used', keyId: old.id, ip: '198.51.100.7' });
    expect(act.map((e) => e.kind)).toEqual(['revoked_key_used', 'key_rolled', 'key_created']);
  });

  it('roll with revokeOld: the old secret stops at once', async () => {
    const acc = account(h, 'desk-d@example.com');
    const old = await createKey(h, acc.session, 'x');
    const roll = await h.request('POST', `/v1/account/keys/${old.id}/roll`, {
      bearer: acc.session,
      body: { revokeOld: true },
    });
    expect(roll.status).toBe(201);
    secrets.add(roll.body.secret);
    expect(roll.body.old.state).toBe('revoked');
    expectEnvelope(await whoami(h, old.secret), 401, 'API_KEY_REVOKED');
    expect((await whoami(h, roll.body.secret)).status).toBe(200);
    // A key cannot be rolled twice, nor a revoked one at all.
    expectEnvelope(
      await h.request('POST', `/v1/account/keys/${old.id}/roll`, { bearer: acc.session }),
      400,
      'INVALID_INPUT',
    );
  });

  it('revoke and revoke-all stop keys at once, each sends one e-mail; revoked keys stay listed', async () => {
    const acc = account(h, 'desk-e@example.com');
    const a = await createKey(h, acc.session, 'a');
    const b = await createKey(h, acc.session, 'b');
    const c = await createKey(h, acc.session, 'c');
    await h.service.core.notifier.flush();
    const before = smtp.messages.length;
    const r = await h.request('POST', `/v1/account/keys/${a.id}/revoke`, {
      bearer: acc.session,
      ip: '192.0.2.30',
    });
    expect(r.status).toBe(200);
    expect(Value.Check(schemaOf('account.keys.revoke'), r.body)).toBe(true);
    expectEnvelope(await whoami(h, a.secret), 401, 'API_KEY_REVOKED');
    expect((await whoami(h, b.secret)).status).toBe(200);
    const all = await h.request('POST', '/v1/account/keys/revoke-all', {
      bearer: acc.session,
      ip: '192.0.2.30',
    });
    expect(all.status).toBe(200);
    expect(all.body.revoked.map((k: { name: string }) => k.name)).toEqual(['b', 'c']);
    for (const k of [b, c]) expectEnvelope(await whoami(h, k.secret), 401, 'API_KEY_REVOKED');
    await smtp.waitFor(before + 2);
    const mine = smtp.messages.slice(before).filter((m) => m.to[0] === acc.email);
    expect(mine.map((m) => m.subject)).toEqual(['API key revoked: a', 'All API keys revoked (2)']);
    expect(mine[1].raw).toContain('"b"');
    expect(mine[1].raw).toContain('"c"');
    expect(mine[1].raw).toContain('From IP: 192.0.2.30');
    const list = await h.request('GET', '/v1/account/keys', { bearer: acc.session });
    expect(list.body.keys.map((k: { state: string }) => k.state)).toEqual(['revoked', 'revoked', 'revoked']);
    expectEnvelope(
      await h.request('POST', `/v1/account/keys/${a.id}/revoke`, { bearer: acc.session }),
      400,
      'INVALID_INPUT',
    );
    expectEnvelope(
      await h.request('POST', `/v1/account/keys/key_${'A'.repeat(16)}/revoke`, { bearer: acc.session }),
      404,
      'NOT_FOUND',
    );
  });

  it('renames and allowlist edits are recorded in the activity list and send no e-mail', async () => {
    const acc = account(h, 'desk-f@example.com');
    const k = await createKey(h, acc.session, 'old name');
    await h.service.core.notifier.flush();
    const mails = smtp.messages.length;
    const ren = await h.request('PATCH', `/v1/account/keys/${k.id}`, {
      bearer: acc.session,
      body: { name: 'new name' },
      ip: '192.0.2.40',
    });
    expect(ren.status, ren.text).toBe(200);
    expect(ren.body.key.name).toBe('new name');
    const al = await h.request('PUT', `/v1/account/keys/${k.id}/allowlist`, {
      bearer: acc.session,
      body: { allowlist: ['10.1.2.3/8', '2001:DB8::1', '::ffff:203.0.113.9'] },
    });
    expect(al.status, al.text).toBe(200);
    expect(al.body.key.allowlist).toEqual(['10.0.0.0/8', '2001:db8::1/128', '203.0.113.9/32']);
    const act = await activity(h, acc.session);
    expect(act.slice(0, 2)).toMatchObject([
      { kind: 'allowlist_changed', detail: '3 entries: 10.0.0.0/8, 2001:db8::1/128, 203.0.113.9/32' },
      { kind: 'key_renamed', detail: '"old name" → "new name"', ip: '192.0.2.40' },
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(mails);
    for (const [body, why] of [
      [{ allowlist: ['0.0.0.0/0'] }, '/0'],
      [{ allowlist: ['::/0'] }, '/0'],
      [{ allowlist: ['not an ip'] }, 'not an IPv4'],
      [{ allowlist: Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`) }, '50'],
      [{ allowlist: ['10.0.0.1'], extra: 1 }, 'body'],
    ] as const) {
      const bad = await h.request('PUT', `/v1/account/keys/${k.id}/allowlist`, { bearer: acc.session, body });
      expectEnvelope(bad, 400, 'INVALID_INPUT');
      expect(bad.body.error).toContain(why);
    }
  });

  it('dashboard endpoints refuse keys (403 API_KEY_ROUTE_NOT_ALLOWED) and need a live session (401 SESSION_INVALID)', async () => {
    const acc = account(h, 'desk-g@example.com');
    const k = await createKey(h, acc.session, 'k');
    for (const path of [
      '/v1/account',
      '/v1/account/keys',
      '/v1/account/activity',
      '/v1/account/plan',
      '/v1/account/credits',
    ]) {
      expectEnvelope(await h.request('GET', path, { key: k.secret }), 403, 'API_KEY_ROUTE_NOT_ALLOWED');
      expectEnvelope(await h.request('GET', path, { bearer: k.secret }), 403, 'API_KEY_ROUTE_NOT_ALLOWED');
      expectEnvelope(await h.request('GET', path), 401, 'SESSION_INVALID');
    }
    expectEnvelope(
      await h.request('POST', '/v1/account/keys/revoke-all', { key: k.secret }),
      403,
      'API_KEY_ROUTE_NOT_ALLOWED',
    );
    expect((await whoami(h, k.secret)).status).toBe(200); // nothing was revoked
    expectEnvelope(
      await h.request('GET', '/v1/account', { bearer: `ds_${'x'.repeat(43)}` }),
      401,
      'SESSION_INVALID',
    );
    const short = h.service.core.accounts.createSession(acc.id, HOUR).token;
    secrets.add(short);
    expect((await h.request('GET', '/v1/account', { bearer: short })).status).toBe(200);
    h.clock.advance(HOUR);
    expectEnvelope(await h.request('GET', '/v1/account', { bearer: short }), 401, 'SESSION_INVALID');
  });
});

describe('credentials', () => {
  let key: string;
  let keyId: string;
  let session: string;
  beforeAll(async () => {
    const acc = account(h, 'cred@example.com');
    session = acc.session;
    const k = await createKey(h, session, 'cred');
    key = k.secret;
    keyId = k.id;
  });

  it('exactly one credential: Authorization and x-api-key together, or one of them twice, is 400 INVALID_INPUT', async () => {
    expectEnvelope(await h.request('GET', '/v1/whoami', { key, bearer: key }), 400, 'INVALID_INPUT');
    expectEnvelope(
      await h.request('GET', '/v1/whoami', { headers: { 'x-api-key': [key, key] } }),
      400,
      'INVALID_INPUT',
    );
    expectEnvelope(
      await h.request('GET', '/v1/whoami', {
        headers: { authorization: [`Bearer ${key}`, `Bearer ${key}`] },
      }),
      400,
      'INVALID_INPUT',
    );
    expect((await h.request('GET', '/v1/whoami', { key })).status).toBe(200);
    expect((await h.request('GET', '/v1/whoami', { bearer: key })).status).toBe(200);
  });

  it('no key, a malformed key, a bad checksum, a well-formed unknown key: 401 API_KEY_INVALID', async () => {
    const ip = '198.18.0.1';
    expectEnvelope(await h.request('GET', '/v1/whoami', { ip }), 401, 'API_KEY_INVALID');
    expectEnvelope(
      await h.request('GET', '/v1/whoami', { key: 'sk_live_short', ip }),
      401,
      'API_KEY_INVALID',
    );
    const flipped = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expectEnvelope(await h.request('GET', '/v1/whoami', { key: flipped, ip }), 401, 'API_KEY_INVALID');
    expectEnvelope(
      await h.request('GET', '/v1/whoami', { key: generateKey().secret, ip }),
      401,
      'API_KEY_INVALID',
    );
    expectEnvelope(
      await h.request('GET', '/v1/whoami', { headers: { authorization: `Basic ${key}` }, ip }),
      401,
      'API_KEY_INVALID',
    );
    expectEnvelope(await h.request('GET', '/v1/whoami', { bearer: session, ip }), 401, 'API_KEY_INVALID');
  });

  it('a key in the query or the path is 400 API_KEY_IN_URL, recorded on that key at most once per 10 minutes', async () => {
    expectEnvelope(await h.request('GET', `/v1/whoami?key=${key}`), 400, 'API_KEY_IN_URL');
    expectEnvelope(
      await h.request('GET', `/v1/whoami?k=${encodeURIComponent(key).replace(/_/g, '%5F')}`),
      400,
      'API_KEY_IN_URL',
    );
    expectEnvelope(await h.request('GET', `/v1/scan/${key}`), 400, 'API_KEY_IN_URL');
    expectEnvelope(
      await h.request('GET', `/v1/account?token=${key}`, { bearer: session }),
      400,
      'API_KEY_IN_URL',
    );
    expectEnvelope(
      await h.request('GET', '/v1/whoami?api_key=sk_live_not_even_a_key'),
      400,
      'API_KEY_IN_URL',
    );
    let act = await activity(h, session);
    expect(act.filter((e) => e.kind === 'key_in_url')).toEqual([
      expect.objectContaining({ keyId, detail: 'API_KEY_IN_URL: roll this key' }),
    ]);
    h.clock.advance(10 * 60_000);
    expectEnvelope(await h.request('GET', `/v1/whoami?key=${key}`), 400, 'API_KEY_IN_URL');
    act = await activity(h, session);
    expect(act.filter((e) => e.kind === 'key_in_url')).toHaveLength(2);
  });

  it("browser requests are 403 API_KEY_BROWSER_NOT_ALLOWED; a server's own Origin alone passes", async () => {
    for (const headers of [
      { origin: 'https://app.example', 'sec-fetch-mode': 'cors' },
      { origin: 'https://app.example', 'sec-fetch-mode': 'navigate' },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ] as Record<string, string>[])
      expectEnvelope(
        await h.request('GET', '/v1/whoami', { key, headers }),
        403,
        'API_KEY_BROWSER_NOT_ALLOWED',
      );
    expect(
      (await h.request('GET', '/v1/whoami', { key, headers: { origin: 'https://bot.example' } })).status,
    ).toBe(200);
    expect(
      (
        await h.request('GET', '/v1/whoami', {
          key,
          headers: { origin: 'https://bot.example', 'sec-fetch-mode': 'no-cors' },
        })
      ).status,
    ).toBe(200);
  });

  it('unknown endpoints are 404 NOT_FOUND in the envelope', async () => {
    expectEnvelope(await h.request('GET', '/v1/nothing-here', { key }), 404, 'NOT_FOUND');
    expectEnvelope(await h.request('DELETE', '/v1/whoami', { key }), 404, 'NOT_FOUND');
  });
});

describe('IP allowlists', () => {
  it('only listed addresses pass (IPv4, IPv6, mapped); others are 403 API_KEY_IP_NOT_ALLOWED, recorded once per 10 minutes', async () => {
    const acc = account(h, 'allow@example.com');
    const k = await createKey(h, acc.session, 'ranges', {
      allowlist: ['203.0.113.0/24', '2001:db8:aa::/48'],
    });
    for (const ip of [
      '203.0.113.1',
      '203.0.113.254',
      '::ffff:203.0.113.9',
      '2001:db8:aa::1',
      '2001:db8:aa:ffff::2',
    ])
      expect((await whoami(h, k.secret, ip)).status, ip).toBe(200);
    for (const ip of ['203.0.114.1', '198.51.100.1', '2001:db8:ab::1', '127.0.0.1'])
      expectEnvelope(await whoami(h, k.secret, ip), 403, 'API_KEY_IP_NOT_ALLOWED');
    let act = (await activity(h, acc.session)).filter((e) => e.kind === 'ip_not_allowed');
    expect(act).toHaveLength(1);
    expect(act[0]).toMatchObject({ keyId: k.id, ip: '203.0.114.1' });
    h.clock.advance(10 * 60_000 - 1);
    await whoami(h, k.secret, '198.51.100.2');
    expect((await activity(h, acc.session)).filter((e) => e.kind === 'ip_not_allowed')).toHaveLength(1);
    h.clock.advance(1);
    await whoami(h, k.secret, '198.51.100.2');
    act = (await activity(h, acc.session)).filter((e) => e.kind === 'ip_not_allowed');
    expect(act).toHaveLength(2);
    expect(act[0].ip).toBe('198.51.100.2');
    // Clearing the allowlist lets any IP in again.
    await h.request('PUT', `/v1/account/keys/${k.id}/allowlist`, {
      bearer: acc.session,
      body: { allowlist: [] },
    });
    expect((await whoami(h, k.secret, '198.51.100.1')).status).toBe(200);
  });

  it('without a trusted proxy the socket peer is the IP: X-Forwarded-For cannot walk past an allowlist, and a same-host proxy is not loopback', async () => {
    const acc = account(plain, 'peer@example.com');
    const onlyDoc = await createKey(plain, acc.session, 'doc', { allowlist: ['203.0.113.0/24'] });
    expectEnvelope(await whoami(plain, onlyDoc.secret, '203.0.113.5'), 403, 'API_KEY_IP_NOT_ALLOWED');
    const loop = await createKey(plain, acc.session, 'loopback', { allowlist: ['127.0.0.1'] });
    // A loopback peer that forwards is an undeclared proxy on this host: its client is unknown,
    // never 127.0.0.1, so a loopback allowlist does not let the whole internet in.
    expectEnvelope(await whoami(plain, loop.secret, '203.0.113.5'), 403, 'API_KEY_IP_NOT_ALLOWED');
    expect((await whoami(plain, loop.secret)).status).toBe(200);
  });

  it('behind an X-Forwarded-For proxy (the default TRUSTED_PROXY_HEADER) a client-sent Forwarded does not walk past an allowlist', async () => {
    const acc = account(h, 'spoof@example.com');
    const k = await createKey(h, acc.session, 'spoof', { allowlist: ['203.0.113.0/24'] });
    // nginx/ALB/Envoy/Caddy append the peer they saw to X-Forwarded-For and pass Forwarded through.
    const spoof = { forwarded: 'for=203.0.113.7' };
    expectEnvelope(
      await h.request('GET', '/v1/whoami', { key: k.secret, ip: '198.51.100.9', headers: spoof }),
      403,
      'API_KEY_IP_NOT_ALLOWED',
    );
    const act = (await activity(h, acc.session)).filter((e) => e.kind === 'ip_not_allowed');
    expect(act[0]).toMatchObject({ keyId: k.id, ip: '198.51.100.9' });
    expect((await whoami(h, k.secret, '203.0.113.7')).status).toBe(200);
  });

  it('with TRUSTED_PROXY_HEADER=forwarded a client-sent X-Forwarded-For is not read', async () => {
    const fwd = await startScanner({
      clock: createClock(T0),
      smtp: null,
      env: { TRUSTED_PROXY_HEADER: 'forwarded' },
    });
    try {
      // Not through createKey: the hygiene check below counts the answers of `h` and `plain` only.
      const { accounts } = fwd.service.core;
      const a = accounts.createAccount({ email: 'fwd@example.com', name: 'fwd' });
      accounts.setPlan(a.id, { tier: 'scale', status: 'active', periodEnd: fwd.clock.now() + HOUR });
      const made = await fwd.request('POST', '/v1/account/keys', {
        bearer: accounts.createSession(a.id, HOUR).token,
        body: { name: 'fwd', allowlist: ['203.0.113.0/24'] },
      });
      expect(made.status, made.text).toBe(201);
      const k = { secret: made.body.secret as string };
      const call = (headers: Record<string, string>) =>
        fwd.request('GET', '/v1/whoami', { key: k.secret, headers });
      expect((await call({ forwarded: 'for=203.0.113.7' })).status).toBe(200);
      expectEnvelope(
        await call({ forwarded: 'for=198.51.100.9', 'x-forwarded-for': '203.0.113.7' }),
        403,
        'API_KEY_IP_NOT_ALLOWED',
      );
      // X-Forwarded-For alone: not read, the trusted proxy (loopback) itself is the client.
      expectEnvelope(await call({ 'x-forwarded-for': '203.0.113.7' }), 403, 'API_KEY_IP_NOT_ALLOWED');
    } finally {
      await fwd.close();
    }
  });

  it('an allowlist whose ranges together cover every IPv4 or IPv6 address is refused (400)', async () => {
    const acc = account(h, 'union@example.com');
    const a = await h.request('POST', '/v1/account/keys', {
      bearer: acc.session,
      body: { name: 'everyone', allowlist: ['0.0.0.0/1', '128.0.0.0/1'] },
    });
    expectEnvelope(a, 400, 'INVALID_INPUT');
    expect(a.body.error).toContain('together cover every IPv4 address');
    const k = await createKey(h, acc.session, 'half', { allowlist: ['0.0.0.0/1'] });
    const put = await h.request('PUT', `/v1/account/keys/${k.id}/allowlist`, {
      bearer: acc.session,
      body: { allowlist: ['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/2'] },
    });
    expectEnvelope(put, 400, 'INVALID_INPUT');
  });
});

describe('dashboard sessions', () => {
  const cmd = (command: string, args: Record<string, string | true>) =>
    runCommand({ ...h.service.core, sessionHours: 24 }, command, args) as Record<string, any>;

  it('expiry is capped: a session lasts at most 30 days, whatever --hours says', () => {
    const acc = account(h, 'cap@example.com');
    expect(() => cmd('create-session', { account: acc.id, hours: String(24 * 30 + 1) })).toThrow(/720 hours/);
    expect(() => cmd('create-session', { account: acc.id, hours: '999999999999999' })).toThrow(/720 hours/);
    const ok = cmd('create-session', { account: acc.id, hours: String(24 * 30) });
    secrets.add(ok.session);
    expect(Date.parse(ok.expiresAt) - h.clock.now()).toBe(30 * 24 * HOUR);
  });

  it('revoke-session ends one session (by prefix) or all of them, on the next request', async () => {
    const acc = account(h, 'revoke-sess@example.com');
    const other = cmd('create-session', { account: acc.id, hours: '2' });
    secrets.add(other.session);
    expect((await h.request('GET', '/v1/account', { bearer: acc.session })).status).toBe(200);
    expect((await h.request('GET', '/v1/account', { bearer: other.session })).status).toBe(200);
    const prefix = h.service.core.directory
      .sessionsOf(acc.id)
      .find((s) => other.session.startsWith(s.prefix))!.prefix;
    expect(cmd('revoke-session', { account: acc.id, session: prefix }).revoked).toEqual([prefix]);
    expectEnvelope(await h.request('GET', '/v1/account', { bearer: other.session }), 401, 'SESSION_INVALID');
    expect((await h.request('GET', '/v1/account', { bearer: acc.session })).status).toBe(200);
    expect(() => cmd('revoke-session', { account: acc.id, session: prefix })).toThrow(/no standing session/);
    expect(cmd('revoke-session', { account: acc.id, all: true }).revoked).toHaveLength(1);
    expectEnvelope(await h.request('GET', '/v1/account', { bearer: acc.session }), 401, 'SESSION_INVALID');
    const listed = cmd('list', { account: acc.id }).accounts[0].sessions.map((s: any) => s.state);
    expect(listed.sort()).toEqual(['revoked', 'revoked']);
  });

  it('expired and revoked sessions are pruned a day later, from memory and the store', () => {
    const acc = account(h, 'prune@example.com');
    const short = cmd('create-session', { account: acc.id, hours: '1' });
    secrets.add(short.session);
    const { directory } = h.service.core;
    const before = directory.sessionsOf(acc.id).length;
    expect(before).toBe(2);
    h.clock.advance(HOUR + 24 * HOUR - 1);
    directory.pruneSessions(h.clock.now()); // other tests' revoked sessions may go now
    expect(directory.sessionsOf(acc.id)).toHaveLength(2);
    h.clock.advance(1);
    expect(directory.pruneSessions(h.clock.now())).toBe(1);
    expect(directory.sessionsOf(acc.id)).toHaveLength(1);
    expect(cmd('list', { account: acc.id }).accounts[0].sessions).toHaveLength(1);
  });
});

describe('key hygiene', () => {
  it('after the run, no secret appears in the logs, the store files, the outbox, the e-mails, or any other answer', async () => {
    // Exercise the outbox path too (the plain service has no SMTP server): create, roll, revoke.
    const acc = account(plain, 'outbox@example.com');
    const k = await createKey(plain, acc.session, 'outbox key');
    const r = await plain.request('POST', `/v1/account/keys/${k.id}/roll`, { bearer: acc.session });
    secrets.add(r.body.secret);
    await plain.request('POST', `/v1/account/keys/${r.body.key.id}/revoke`, { bearer: acc.session });
    // Keys sent where they do not belong: in URLs, with a session, twice, from a browser.
    await plain.request('GET', `/v1/whoami?key=${k.secret}`);
    await plain.request('GET', `/v1/whoami/${r.body.secret}`);
    await plain.request('GET', '/v1/account', { key: k.secret });
    await plain.request('GET', '/v1/whoami', { key: k.secret, bearer: k.secret });
    await plain.request('POST', '/v1/account/keys', { bearer: acc.session, body: { name: k.secret } });
    await plain.request('PUT', `/v1/account/keys/${k.id}/allowlist`, {
      bearer: acc.session,
      body: { allowlist: [k.secret] },
    });
    await h.service.core.notifier.flush();
    await plain.service.core.notifier.flush();
    expect(secrets.size).toBeGreaterThan(30);

    const revealedIn = new Map<string, number>();
    for (const body of [...h.bodies, ...plain.bodies])
      for (const s of secretsIn(body)) revealedIn.set(s, (revealedIn.get(s) ?? 0) + 1);
    // Each key secret is in exactly one answer: the create or roll that revealed it.
    for (const s of secrets)
      if (s.startsWith('sk_live_')) expect(revealedIn.get(s) ?? 0, s.slice(0, 12)).toBe(1);
    // No error body carries any secret.
    for (const body of [...h.bodies, ...plain.bodies])
      if (body.includes('"code"')) expect(secretsIn(body)).toEqual([]);

    const logs = [...h.logs, ...plain.logs].join('\n');
    const mails = smtp.messages.map((m) => m.raw).join('\n');
    // The admin socket is the owner's only, and so is every file and directory the services wrote
    // (RocksDB's own files, the outbox's e-mails).
    for (const dir of [h.dataDir, plain.dataDir]) {
      const sock = join(dir, 'admin.sock');
      expect(statSync(sock).isSocket()).toBe(true);
      expect(statSync(sock).mode & 0o777, sock).toBe(0o600);
    }
    await h.close(true);
    await plain.close(true);
    const files = [...filesUnder(h.dataDir), ...filesUnder(plain.dataDir)];
    for (const f of files) expect(statSync(f.path).mode & 0o777, f.path).toBe(0o600);
    const dirs = new Set(files.map((f) => dirname(f.path)));
    for (const d of dirs) expect(statSync(d).mode & 0o777, d).toBe(0o700);
    const eml = files.filter((f) => f.path.endsWith('.eml'));
    expect(eml.length).toBe(5); // peer@: 2 creates; outbox@: create, roll, revoke
    expect(files.some((f) => f.path.endsWith('.log'))).toBe(true); // RocksDB's WAL is searched too
    // Positive control: the stored forms (hash, prefix) are found, so the search does search.
    const allBytes = Buffer.concat(files.map((f) => f.bytes));
    expect(allBytes.includes(Buffer.from(k.secret.slice(0, 12)))).toBe(true);
    for (const s of secrets) {
      const b = Buffer.from(s);
      expect(logs.includes(s), `log holds ${s.slice(0, 12)}`).toBe(false);
      expect(mails.includes(s), `e-mail holds ${s.slice(0, 12)}`).toBe(false);
      for (const f of files) expect(f.bytes.includes(b), `${f.path} holds ${s.slice(0, 12)}`).toBe(false);
    }
    rmSync(h.dataDir, { recursive: true, force: true });
    rmSync(plain.dataDir, { recursive: true, force: true });
    h = null as never;
    plain = null as never;
  });
});
