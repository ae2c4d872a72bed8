/**
 * Trusted proxies for the indexer and the scanner: one header, named in configuration
 * (TRUSTED_PROXY_HEADER: X-Forwarded-For by default, or Forwarded, RFC 7239), read from the right
 * past trusted proxies only, the other header never read; a same-host proxy nobody declared never
 * makes its clients look like loopback.
 */
import { describe, expect, it } from 'vitest';
import { formatIp, type IpAddress, parseIp } from './cidr.js';
import {
  clientAddress,
  clientProto,
  forwardedFor,
  isProxyHeader,
  PROXY_HEADERS,
  parseNode,
  parseTrustedProxies,
  type TrustedProxyHeader,
  trustedProxiesFromEnv,
  trustedProxyHeaderFromEnv,
} from './proxy.js';

const ip = (s: string) => parseIp(s)!;
const text = (a: IpAddress | null) => (a ? formatIp(a) : null);
/** clientAddress over a plain header object (X-Forwarded-For mode unless `via` says otherwise). */
const client = (
  peer: string,
  headers: Record<string, string | string[]>,
  trusted: string,
  via: TrustedProxyHeader = 'x-forwarded-for',
) => {
  const h = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v : [v]]));
  return text(clientAddress(ip(peer), (n) => h.get(n), h.keys(), parseTrustedProxies(trusted), via));
};

describe('trusted proxies', () => {
  it('TRUSTED_PROXIES parses CIDRs; the scanner’s old variable and all-covering ranges are refused', () => {
    expect(parseTrustedProxies('10.0.0.0/8, ::1').length).toBe(2);
    expect(parseTrustedProxies(undefined)).toEqual([]);
    expect(() => parseTrustedProxies('0.0.0.0/0')).toThrow(/TRUSTED_PROXIES/);
    expect(() => parseTrustedProxies('::/1')).toThrow(/every IPv4/);
    expect(() => trustedProxiesFromEnv({ SCANNER_TRUSTED_PROXIES: '127.0.0.1' })).toThrow(/TRUSTED_PROXIES/);
    expect(trustedProxiesFromEnv({ TRUSTED_PROXIES: '127.0.0.1' })).toHaveLength(1);
  });

  it('reads Forwarded for= nodes: quoted, bracketed IPv6 with port, several elements and headers', () => {
    expect(
      forwardedFor([
        'for=192.0.2.43, for="[2001:db8:cafe::17]:4711";proto=https',
        'by=203.0.113.60;for=198.51.100.17;host=example.com',
      ]),
    ).toEqual(['192.0.2.43', '"[2001:db8:cafe::17]:4711"', '198.51.100.17']);
    expect(text(parseNode('"[2001:db8:cafe::17]:4711"'))).toBe('2001:db8:cafe::17');
    expect(text(parseNode('192.0.2.43:8080'))).toBe('192.0.2.43');
    expect(parseNode('unknown')).toBeNull();
    expect(parseNode('_hidden')).toBeNull();
  });

  it('without trusted proxies the peer is the client, whatever the headers claim', () => {
    expect(client('203.0.113.5', { 'x-forwarded-for': '10.0.0.1' }, '')).toBe('203.0.113.5');
    expect(client('203.0.113.5', { forwarded: 'for=10.0.0.1' }, '')).toBe('203.0.113.5');
    expect(client('127.0.0.1', {}, '')).toBe('127.0.0.1');
  });

  it('a loopback peer with any proxy header and no declared proxy has an unknown client, never loopback', () => {
    for (const h of [...PROXY_HEADERS, 'x-forwarded-ssl'])
      expect(client('127.0.0.1', { [h]: '203.0.113.9' }, ''), h).toBeNull();
    expect(client('::1', { via: '1.1 nginx' }, '')).toBeNull();
    expect(client('::ffff:127.0.0.1', { 'x-real-ip': '203.0.113.9' }, '')).toBeNull();
  });

  it('from a trusted peer: the rightmost hop of the configured header that is not a trusted proxy', () => {
    const t = '127.0.0.1,10.0.0.0/8';
    // The client prepends a lie; the proxies append what they saw.
    expect(client('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.1.1.1' }, t)).toBe(
      '203.0.113.7',
    );
    expect(client('127.0.0.1', { 'x-forwarded-for': ['6.6.6.6', '203.0.113.7'] }, t)).toBe('203.0.113.7');
    expect(
      client(
        '10.0.0.2',
        { forwarded: 'for=6.6.6.6, for="[2001:db8::7]:443"', 'x-forwarded-for': '198.51.100.1' },
        t,
        'forwarded',
      ),
    ).toBe('2001:db8::7');
    // Every hop a trusted proxy: the leftmost is the client.
    expect(client('127.0.0.1', { 'x-forwarded-for': '10.9.9.9, 10.1.1.1' }, t)).toBe('10.9.9.9');
    expect(client('127.0.0.1', { forwarded: 'for=10.9.9.9, for=10.1.1.1' }, t, 'forwarded')).toBe('10.9.9.9');
    // A trusted peer calling directly.
    expect(client('10.0.0.2', {}, t)).toBe('10.0.0.2');
    expect(client('10.0.0.2', {}, t, 'forwarded')).toBe('10.0.0.2');
    // A trusted proxy that wrote junk or `unknown`: not guessed past.
    expect(client('127.0.0.1', { 'x-forwarded-for': '203.0.113.7, garbage' }, t)).toBeNull();
    expect(client('127.0.0.1', { forwarded: 'for=unknown' }, t, 'forwarded')).toBeNull();
  });

  it('TRUSTED_PROXY_HEADER names one header, x-forwarded-for by default; anything else is refused', () => {
    expect(trustedProxyHeaderFromEnv({})).toBe('x-forwarded-for');
    expect(trustedProxyHeaderFromEnv({ TRUSTED_PROXY_HEADER: '' })).toBe('x-forwarded-for');
    expect(trustedProxyHeaderFromEnv({ TRUSTED_PROXY_HEADER: 'Forwarded' })).toBe('forwarded');
    expect(trustedProxyHeaderFromEnv({ TRUSTED_PROXY_HEADER: 'x-forwarded-for' })).toBe('x-forwarded-for');
    for (const bad of ['x-real-ip', 'both', 'forwarded,x-forwarded-for'])
      expect(() => trustedProxyHeaderFromEnv({ TRUSTED_PROXY_HEADER: bad }), bad).toThrow(
        /TRUSTED_PROXY_HEADER must be one of x-forwarded-for, forwarded/,
      );
  });

  it('X-Forwarded-For mode (nginx, ALB, Envoy, Caddy): a client-sent Forwarded is never read', () => {
    const t = '10.0.0.1';
    // The finding: the proxy appended the real peer to X-Forwarded-For and passed the client's own
    // Forwarded through; the client must be the proxy's word, not its own.
    expect(client('10.0.0.1', { forwarded: 'for=203.0.113.7', 'x-forwarded-for': '198.51.100.9' }, t)).toBe(
      '198.51.100.9',
    );
    // Forwarded alone, from a trusted proxy: not read, the proxy itself is the client.
    expect(client('10.0.0.1', { forwarded: 'for=203.0.113.7' }, t)).toBe('10.0.0.1');
    // Quoted, bracketed, several elements and headers: still never read.
    expect(
      client(
        '10.0.0.1',
        {
          forwarded: ['for="[2001:db8::7]:443", for=203.0.113.7', 'for=6.6.6.6'],
          'x-forwarded-for': '198.51.100.9',
        },
        t,
      ),
    ).toBe('198.51.100.9');
  });

  it('Forwarded mode: a client-sent X-Forwarded-For is never read', () => {
    const t = '10.0.0.1';
    expect(
      client(
        '10.0.0.1',
        { 'x-forwarded-for': '203.0.113.7', forwarded: 'for=198.51.100.9;proto=https' },
        t,
        'forwarded',
      ),
    ).toBe('198.51.100.9');
    expect(client('10.0.0.1', { 'x-forwarded-for': '203.0.113.7' }, t, 'forwarded')).toBe('10.0.0.1');
  });

  it('multiple hops: each trusted proxy is skipped from the right; the client’s own prefix is never read', () => {
    const t = '10.0.0.0/8';
    // client → edge proxy (10.0.0.5) → inner proxy (10.0.0.1) → us; the client sent a lie first.
    expect(client('10.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.9, 10.0.0.5' }, t)).toBe(
      '198.51.100.9',
    );
    expect(
      client('10.0.0.1', { forwarded: 'for=6.6.6.6, for=198.51.100.9, for=10.0.0.5' }, t, 'forwarded'),
    ).toBe('198.51.100.9');
    // The same hops split over repeated headers, in order.
    expect(client('10.0.0.1', { 'x-forwarded-for': ['6.6.6.6', '198.51.100.9', '10.0.0.5'] }, t)).toBe(
      '198.51.100.9',
    );
    // A hop that is not a trusted proxy stops the walk, even when a trusted one lies left of it.
    expect(client('10.0.0.1', { 'x-forwarded-for': '10.0.0.9, 198.51.100.9' }, t)).toBe('198.51.100.9');
  });

  it('an untrusted peer is the client in either mode, whatever both headers claim', () => {
    const headers = { forwarded: 'for=10.0.0.1', 'x-forwarded-for': '10.0.0.1' };
    for (const via of ['x-forwarded-for', 'forwarded'] as const) {
      expect(client('203.0.113.5', headers, '10.0.0.0/8', via)).toBe('203.0.113.5');
      expect(client('203.0.113.5', headers, '', via)).toBe('203.0.113.5');
      // A same-host proxy nobody declared: unknown, in either mode, whichever header it sent.
      expect(client('127.0.0.1', { forwarded: 'for=203.0.113.9' }, '10.0.0.0/8', via)).toBeNull();
      expect(client('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }, '', via)).toBeNull();
    }
  });

  it('TRUSTED_PROXIES ranges that together cover every IPv4 or IPv6 address are refused', () => {
    expect(() => parseTrustedProxies('0.0.0.0/1,128.0.0.0/1')).toThrow(
      /TRUSTED_PROXIES: the ranges 0\.0\.0\.0\/1, 128\.0\.0\.0\/1 together cover every IPv4 address/,
    );
    // Every IPv6 address outside the mapped block (IPv4's, counted there): its 96 sibling ranges.
    const siblings = Array.from({ length: 96 }, (_, i) => {
      const n = ((0xffffn << 32n) ^ (1n << BigInt(127 - i))) & ~((1n << BigInt(127 - i)) - 1n);
      return `${formatIp({ v: 6, n })}/${i + 1}`;
    });
    expect(() => parseTrustedProxies(siblings.join(','))).toThrow(/every IPv6 address/);
    expect(parseTrustedProxies(siblings.slice(1).join(','))).toHaveLength(95);
    expect(() => parseTrustedProxies('10.0.0.1, 0.0.0.0/2, 64.0.0.0/2, 128.0.0.0/2, 192.0.0.0/2')).toThrow(
      /every IPv4 address/,
    );
    // Half of the space, or all of it but one address, is still a list of proxies.
    expect(parseTrustedProxies('0.0.0.0/1')).toHaveLength(1);
    expect(parseTrustedProxies('0.0.0.0/1,128.0.0.0/2,192.0.0.0/3')).toHaveLength(3);
  });

  it('names the proxy headers', () => {
    for (const h of [
      'Forwarded',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'X-Real-IP',
      'Via',
      'x-forwarded-anything',
    ])
      expect(isProxyHeader(h), h).toBe(true);
    for (const h of ['host', 'accept', 'x-api-key', 'cookie']) expect(isProxyHeader(h), h).toBe(false);
  });
});

describe("the scheme a trusted proxy reports (the console cookie's Secure flag)", () => {
  const proto = (peer: string, headers: Record<string, string>, via: TrustedProxyHeader) => {
    const h = new Map(Object.entries(headers).map(([k, v]) => [k, [v]]));
    return clientProto(ip(peer), (n) => h.get(n), parseTrustedProxies('10.0.0.1'), via);
  };
  it('reads only the trusted header family, only from a trusted peer', () => {
    expect(proto('10.0.0.1', { 'x-forwarded-proto': 'https' }, 'x-forwarded-for')).toBe('https');
    // A client's own Forwarded proto behind an X-Forwarded-For proxy is never read, nor the reverse.
    expect(proto('10.0.0.1', { forwarded: 'for=1.2.3.4;proto=https' }, 'x-forwarded-for')).toBeNull();
    expect(proto('10.0.0.1', { 'x-forwarded-proto': 'https' }, 'forwarded')).toBeNull();
    expect(
      proto('10.0.0.1', { forwarded: 'for=1.2.3.4;proto=http, for=5.6.7.8;proto="HTTPS"' }, 'forwarded'),
    ).toBe('https');
    // The nearest proxy's word: the last value.
    expect(proto('10.0.0.1', { 'x-forwarded-proto': 'https, http' }, 'x-forwarded-for')).toBe('http');
    expect(proto('203.0.113.9', { 'x-forwarded-proto': 'https' }, 'x-forwarded-for')).toBeNull();
  });
});
