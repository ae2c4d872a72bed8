/**
 * One trusted-proxy setting for the indexer and the scanner: Forwarded (RFC 7239) and
 * X-Forwarded-For read from the right past trusted proxies only; a same-host proxy nobody declared
 * never makes its clients look like loopback.
 */
import { describe, expect, it } from 'vitest';
import { formatIp, type IpAddress, parseIp } from './cidr.js';
import {
  clientAddress,
  forwardedFor,
  isProxyHeader,
  PROXY_HEADERS,
  parseNode,
  parseTrustedProxies,
  trustedProxiesFromEnv,
} from './proxy.js';

const ip = (s: string) => parseIp(s)!;
const text = (a: IpAddress | null) => (a ? formatIp(a) : null);
/** clientAddress over a plain header object. */
const client = (peer: string, headers: Record<string, string | string[]>, trusted: string) => {
  const h = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v : [v]]));
  return text(clientAddress(ip(peer), (n) => h.get(n), h.keys(), parseTrustedProxies(trusted)));
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

  it('from a trusted peer: the rightmost hop that is not a trusted proxy, Forwarded first', () => {
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
      ),
    ).toBe('2001:db8::7');
    // Every hop a trusted proxy: the leftmost is the client.
    expect(client('127.0.0.1', { 'x-forwarded-for': '10.9.9.9, 10.1.1.1' }, t)).toBe('10.9.9.9');
    // A trusted peer calling directly.
    expect(client('10.0.0.2', {}, t)).toBe('10.0.0.2');
    // A trusted proxy that wrote junk or `unknown`: not guessed past.
    expect(client('127.0.0.1', { 'x-forwarded-for': '203.0.113.7, garbage' }, t)).toBeNull();
    expect(client('127.0.0.1', { forwarded: 'for=unknown' }, t)).toBeNull();
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
