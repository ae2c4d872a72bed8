import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROXY_HEADERS, parseTrustedProxies } from '@chain-indexer/platform/http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuth, hashKey, MAX_STREAM_SESSIONS_PER_KEY } from './auth.js';
import { createServer, type Server } from './index.js';
import {
  CONSOLE_SESSION_LIMIT,
  cookieValue,
  devKeyFor,
  isLoopbackAddress,
  isLoopbackHost,
} from './static.js';

describe('console: loopback and cookie rules', () => {
  it('recognises loopback peers in every spelling uWS and the OS use, and nothing else', () => {
    for (const a of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '0000:0000:0000:0000:0000:0000:0000:0001',
      '::ffff:127.0.0.1',
      '0000:0000:0000:0000:0000:ffff:7f00:0001',
    ])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of [
      '10.0.0.1',
      '192.168.1.1',
      '::2',
      '0000:0000:0000:0000:0000:ffff:0a00:0001',
      '128.0.0.1',
      '',
    ])
      expect(isLoopbackAddress(a), a).toBe(false);
    for (const h of ['127.0.0.1', '127.0.0.1:8080', '127.9.8.7:1', '[::1]', '[::1]:8080'])
      expect(isLoopbackHost(h), h).toBe(true);
    // Names are not literals: a resolver, a hosts file or a proxy can map them anywhere.
    for (const h of [
      'localhost',
      'localhost:8080',
      'LOCALHOST',
      'evil.example',
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      '127.0.0.1:8080@evil.example',
      '127.0.0.256',
      '[::2]:8080',
      '10.0.0.1:8080',
      '',
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('offers the dev key only to a loopback peer naming a loopback literal, with no proxy header, when there is one', () => {
    const ok = { remote: '127.0.0.1', host: '127.0.0.1:8080', headerNames: ['host', 'accept', 'user-agent'] };
    expect(devKeyFor('k', ok)).toBe('k');
    expect(devKeyFor(null, ok)).toBeNull();
    expect(devKeyFor('k', { ...ok, remote: '10.1.1.1' })).toBeNull();
    expect(devKeyFor('k', { ...ok, host: 'rebound.example:8080' })).toBeNull();
    expect(devKeyFor('k', { ...ok, host: 'localhost:8080' })).toBeNull();
    for (const h of PROXY_HEADERS)
      expect(devKeyFor('k', { ...ok, headerNames: [...ok.headerNames, h] }), h).toBeNull();
    expect(devKeyFor('k', { ...ok, headerNames: [...ok.headerNames, 'x-forwarded-anything'] })).toBeNull();
  });

  it('reads one cookie out of a Cookie header', () => {
    expect(cookieValue('a=1; ix_stream=tok; b=2', 'ix_stream')).toBe('tok');
    expect(cookieValue('xix_stream=tok', 'ix_stream')).toBeNull();
    expect(cookieValue('', 'ix_stream')).toBeNull();
  });
});

describe('console: served by the uWS server', () => {
  let dir: string;
  let server: Server;
  let base = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-static-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/app-abc123.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
    writeFileSync(join(dir, 'assets', 'app-abc123.css'), 'body{color:red}');
    server = createServer({
      routes: [],
      chains: new Map(),
      auth: createAuth([
        { name: 'all', sha256: hashKey('key-all'), scopes: ['read', 'stream'] },
        { name: 'ro', sha256: hashKey('key-read'), scopes: ['read'] },
      ]),
      log: pino({ level: 'silent' }),
      console: { devKey: 'the-dev-key', dir },
    });
    base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves / and hashed assets with types, cache headers and gzip, without a key', async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await index.text()).toContain('/assets/app-abc123.js');
    // The first request that accepts gzip is answered as is while the gzip is made off the
    // serving thread; a later one gets the gzip.
    const getJs = () => fetch(`${base}/assets/app-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    const first = await getJs();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-encoding')).toBeNull();
    const plain = await first.text();
    expect(plain.length).toBeGreaterThan(5000);
    let js = await getJs();
    for (let i = 0; i < 100 && js.headers.get('content-encoding') !== 'gzip'; i++) {
      await js.arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
      js = await getJs();
    }
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('vary')).toBe('accept-encoding');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(Number(js.headers.get('content-length'))).toBeLessThan(plain.length);
    expect(await js.text()).toBe(plain); // fetch decoded it
    const css = await fetch(`${base}/assets/app-abc123.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${base}/assets/../index.html`)).status).not.toBe(500);
  });

  it('offers the dev key to loopback naming a loopback host; refuses a foreign Host or a proxied request', async () => {
    const r = await fetch(`${base}/console/dev-key`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { key: string }).key).toBe('the-dev-key');
    expect(r.headers.get('cache-control')).toBe('no-store');
    // fetch cannot forge Host; a raw request can.
    const raw = async (headers: string) => {
      const net = await import('node:net');
      const port = Number(new URL(base).port);
      return new Promise<string>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () =>
          s.write(`GET /console/dev-key HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`),
        );
        let out = '';
        s.on('data', (d) => {
          out += d.toString();
        });
        s.on('end', () => resolve(out));
      });
    };
    expect(await raw('Host: 127.0.0.1\r\n')).toMatch(/^HTTP\/1\.1 200/);
    expect(await raw('Host: [::1]:8080\r\n')).toMatch(/^HTTP\/1\.1 200/);
    expect(await raw('Host: rebound.example\r\n')).toMatch(/^HTTP\/1\.1 404/);
    expect(await raw('Host: localhost\r\n')).toMatch(/^HTTP\/1\.1 404/);
    expect(await raw('')).not.toMatch(/^HTTP\/1\.1 200/); // no Host at all (uWS closes)
    // Each proxy header alone (as a bare `proxy_pass http://127.0.0.1:8080` on this host adds one).
    for (const [name, value] of [
      ['Forwarded', 'for=203.0.113.9'],
      ['X-Forwarded-For', '203.0.113.9'],
      ['X-Forwarded-Host', 'console.example'],
      ['X-Forwarded-Proto', 'https'],
      ['X-Forwarded-Port', '443'],
      ['X-Real-IP', '203.0.113.9'],
      ['Via', '1.1 nginx'],
    ])
      expect(await raw(`Host: 127.0.0.1\r\n${name}: ${value}\r\n`), name).toMatch(/^HTTP\/1\.1 404/);
  });

  it('opens a console session: chains, scopes and an HttpOnly stream cookie for stream-scoped keys only', async () => {
    expect((await fetch(`${base}/console/session`, { method: 'POST' })).status).toBe(401);
    expect(
      (await fetch(`${base}/console/session`, { method: 'POST', headers: { 'x-api-key': 'nope' } })).status,
    ).toBe(401);
    const s = await fetch(`${base}/console/session`, { method: 'POST', headers: { 'x-api-key': 'key-all' } });
    expect(s.status).toBe(200);
    expect(await s.json()).toEqual({
      chains: [],
      scopes: ['read', 'stream'],
      stream: { expiresInSeconds: 600 },
    });
    const cookie = s.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^ix_stream=[A-Za-z0-9_-]{43}; Path=\/index\/v1\/; Max-Age=600; HttpOnly; SameSite=Strict$/,
    );
    const ro = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'x-api-key': 'key-read' },
    });
    expect(await ro.json()).toMatchObject({ scopes: ['read'], stream: null });
    expect(ro.headers.get('set-cookie')).toBeNull();
  });
});

describe('console sessions: rate-limited per client address', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer({
      routes: [],
      chains: new Map(),
      auth: createAuth([{ name: 'all', sha256: hashKey('key-all'), scopes: ['read', 'stream'] }]),
      log: pino({ level: 'silent' }),
      // This test is the proxy: X-Forwarded-For names each request's client.
      console: { devKey: null, trustedProxies: parseTrustedProxies('127.0.0.1/32') },
    });
    base = `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => server.close());
  const open = (client: string, key = 'key-all') =>
    fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'x-forwarded-for': client },
    });

  it('answers a typed 429 with Retry-After past the burst; wrong keys count; other clients are unaffected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < CONSOLE_SESSION_LIMIT.burst; i++)
      statuses.push((await open('203.0.113.5', i % 2 ? 'key-all' : 'wrong')).status);
    expect(statuses).toEqual(
      Array.from({ length: CONSOLE_SESSION_LIMIT.burst }, (_, i) => (i % 2 ? 200 : 401)),
    );
    const over = await open('203.0.113.5');
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('set-cookie')).toBeNull();
    const body = (await over.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      error: 'rate_limited',
      retryAfter: Number(over.headers.get('retry-after')),
    });
    expect(String(body.detail)).toMatch(/console session/);
    // Another client address, and the same one's IPv6 neighbour outside its /64, are not charged.
    expect((await open('203.0.113.6')).status).toBe(200);
    expect((await open('2001:db8:0:1::1')).status).toBe(200);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < CONSOLE_SESSION_LIMIT.burst; i++)
      expect((await open(`2001:db8:0:2::${(i + 1).toString(16)}`)).status).toBe(200);
    expect((await open('2001:db8:0:2:ffff::1')).status).toBe(429);
  });
});

describe('stream sessions (auth)', () => {
  it("are capped per key: one key's sessions never evict another key's", () => {
    const auth = createAuth([
      { name: 'quiet', sha256: hashKey('k1'), scopes: ['stream'] },
      { name: 'flood', sha256: hashKey('k2'), scopes: ['stream'] },
    ]);
    const quiet = auth.issueStreamSession(auth.authenticate('k1'));
    const flooder = auth.authenticate('k2');
    const tokens: string[] = [];
    // More than the process-wide bound (10,000) and far more than the per-key one.
    for (let i = 0; i < 10_050; i++) tokens.push(auth.issueStreamSession(flooder).token);
    expect(auth.streamSession(quiet.token)?.name).toBe('quiet');
    // The flooding key keeps its newest MAX_STREAM_SESSIONS_PER_KEY, oldest dropped first.
    const live = tokens.filter((t) => auth.streamSession(t) !== null);
    expect(live).toEqual(tokens.slice(-MAX_STREAM_SESSIONS_PER_KEY));
  });

  it('resolve to the issuing principal until they expire; need the stream scope', () => {
    const auth = createAuth([
      { name: 'all', sha256: hashKey('k1'), scopes: ['stream'] },
      { name: 'ro', sha256: hashKey('k2'), scopes: ['read'] },
    ]);
    const p = auth.authenticate('k1');
    const s = auth.issueStreamSession(p);
    expect(auth.streamSession(s.token)).toBe(p);
    expect(auth.streamSession(`${s.token}x`)).toBeNull();
    expect(auth.streamSession('')).toBeNull();
    expect(() => auth.issueStreamSession(auth.authenticate('k2'))).toThrow(/stream/);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const t = auth.issueStreamSession(p);
      vi.setSystemTime(Date.now() + 599_000);
      expect(auth.streamSession(t.token)).toBe(p);
      vi.setSystemTime(Date.now() + 2_000);
      expect(auth.streamSession(t.token)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
