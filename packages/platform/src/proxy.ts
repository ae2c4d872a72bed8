/**
 * Reverse proxies, understood once for the indexer and the scanner (SECURITY.md, "Proxies").
 *
 * Two settings:
 *  - `TRUSTED_PROXIES`: a comma list of CIDR ranges whose socket peers may say who the client is
 *    (default none). Ranges that cover all of IPv4 or IPv6, alone or together, are refused.
 *  - `TRUSTED_PROXY_HEADER`: the one header those proxies write, `x-forwarded-for` (default) or
 *    `forwarded` (RFC 7239, its `for=` nodes). The other header is never read: nginx, ALB, Envoy
 *    and Caddy append to `X-Forwarded-For` and pass a client's own `Forwarded` through untouched,
 *    so reading whichever is present would let a client name its own address.
 *
 * Each proxy appends the address it received the request from, so the list of the chosen header
 * is read from the right, skipping trusted proxies; the first address that is not a trusted proxy
 * is the client. Everything left of it is the client's own claim and is never read.
 *
 * Defaults keep a same-host proxy from looking like loopback: with no trusted proxies, a request
 * whose socket peer is loopback but which carries any proxy header (`Forwarded`,
 * `X-Forwarded-*`, `X-Real-IP`, `Via`, …) has an unknown client (null), never 127.0.0.1: it was
 * relayed by a proxy on this host that no one declared. Declare it (`TRUSTED_PROXIES=127.0.0.1,::1`)
 * to read the client from its headers.
 */
import { type Cidr, cidrContains, type IpAddress, parseCidr, parseIp, unionRefusal } from './cidr.js';

/** Request headers a proxy may add to say that a request came from elsewhere (lower case). */
export const PROXY_HEADERS: readonly string[] = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'x-forwarded-server',
  'x-real-ip',
  'via',
  'x-client-ip',
  'x-cluster-client-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-original-forwarded-for',
];

/** Whether a header name says the request was relayed: one of {@link PROXY_HEADERS} or any `X-Forwarded-*`. */
export const isProxyHeader = (name: string): boolean => {
  const n = name.toLowerCase();
  return n.startsWith('x-forwarded-') || PROXY_HEADERS.includes(n);
};

/**
 * Parses a TRUSTED_PROXIES value (comma list of addresses or CIDR ranges; empty: none).
 * @throws Error naming the variable and the bad entry; ranges covering all of IPv4 or IPv6 are
 *   refused, one alone (`0.0.0.0/0`) or several together (`0.0.0.0/1,128.0.0.0/1`).
 */
export function parseTrustedProxies(text: string | undefined, name = 'TRUSTED_PROXIES'): Cidr[] {
  const ranges = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const r = parseCidr(s);
      if ('error' in r) throw new Error(`${name}: ${r.error}`);
      return r.cidr;
    });
  const union = unionRefusal(ranges);
  if (union) throw new Error(`${name}: ${union}`);
  return ranges;
}

/** The one header trusted proxies write the client's address in (TRUSTED_PROXY_HEADER). */
export type TrustedProxyHeader = 'x-forwarded-for' | 'forwarded';

/** The values TRUSTED_PROXY_HEADER takes; the first is the default. */
export const TRUSTED_PROXY_HEADERS: readonly TrustedProxyHeader[] = ['x-forwarded-for', 'forwarded'];

/**
 * The trusted proxy header of the process, from `TRUSTED_PROXY_HEADER` (shared by the indexer and
 * the scanner): `x-forwarded-for` (default, also when empty) or `forwarded`, case-insensitive.
 * @throws Error naming the variable on any other value.
 */
export function trustedProxyHeaderFromEnv(env: NodeJS.ProcessEnv): TrustedProxyHeader {
  const raw = (env.TRUSTED_PROXY_HEADER ?? '').trim().toLowerCase();
  if (raw === '') return TRUSTED_PROXY_HEADERS[0];
  if (!(TRUSTED_PROXY_HEADERS as readonly string[]).includes(raw))
    throw new Error(
      `TRUSTED_PROXY_HEADER must be one of ${TRUSTED_PROXY_HEADERS.join(', ')}, got "${env.TRUSTED_PROXY_HEADER?.slice(0, 64)}"`,
    );
  return raw as TrustedProxyHeader;
}

/**
 * The trusted proxies of the process, from `TRUSTED_PROXIES` (shared by the indexer and the
 * scanner). The scanner's former `SCANNER_TRUSTED_PROXIES` is refused with the new name, so a
 * deployment never runs with a setting it believes is in force.
 * @throws Error on a bad entry or the former variable.
 */
export function trustedProxiesFromEnv(env: NodeJS.ProcessEnv): Cidr[] {
  if (env.SCANNER_TRUSTED_PROXIES !== undefined)
    throw new Error(
      'SCANNER_TRUSTED_PROXIES is now TRUSTED_PROXIES (one setting for the indexer and the scanner); rename it',
    );
  return parseTrustedProxies(env.TRUSTED_PROXIES);
}

/** The node of a `for=` parameter or an X-Forwarded-For hop as an address; null for `unknown`, `_obfuscated` or junk. */
export function parseNode(raw: string): IpAddress | null {
  let s = raw.trim();
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) s = s.slice(1, -1);
  // [2001:db8::1]:4711 or [2001:db8::1]
  const bracket = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(s);
  if (bracket) return parseIp(bracket[1]);
  // 192.0.2.60:8080 (one colon: IPv4 with a port)
  const v4port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(s);
  if (v4port) return parseIp(v4port[1]);
  return parseIp(s);
}

/** The `for=` nodes of `Forwarded` header values (RFC 7239), in order; '' where an element has none. */
export function forwardedFor(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const v of values)
    for (const element of splitOutsideQuotes(v, ',')) {
      let node = '';
      for (const pair of splitOutsideQuotes(element, ';')) {
        const eq = pair.indexOf('=');
        if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === 'for') node = pair.slice(eq + 1).trim();
      }
      out.push(node);
    }
  return out;
}

function splitOutsideQuotes(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '"' && s[i - 1] !== '\\') quoted = !quoted;
    if (ch === sep && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const isLoopback = (ip: IpAddress) => (ip.v === 4 ? ip.n >> 24n === 127n : ip.n === 1n);

/** The hops of the one trusted header, in order (left: farthest from this server). */
function hopsOf(header: (name: string) => readonly string[] | undefined, via: TrustedProxyHeader): string[] {
  if (via === 'forwarded') return forwardedFor(header('forwarded') ?? []);
  return (header('x-forwarded-for') ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The client address of a request.
 * @param peer the socket peer (null when it does not parse).
 * @param header every value of a request header by lower-case name (repeats kept), or undefined.
 * @param headerNames the lower-case names of every header the request carries.
 * @param trusted the trusted proxies ({@link trustedProxiesFromEnv}).
 * @param via the one header the trusted proxies write ({@link trustedProxyHeaderFromEnv}); the
 *   other is never read.
 * @returns the client per the module rules; null when unknown (an unparsable or `unknown` hop
 *   written by a trusted proxy, or an undeclared proxy on this host).
 */
export function clientAddress(
  peer: IpAddress | null,
  header: (name: string) => readonly string[] | undefined,
  headerNames: Iterable<string>,
  trusted: readonly Cidr[],
  via: TrustedProxyHeader,
): IpAddress | null {
  if (!peer) return null;
  const isTrusted = (ip: IpAddress) => trusted.some((c) => cidrContains(c, ip));
  if (!isTrusted(peer)) {
    for (const n of headerNames) if (isProxyHeader(n) && isLoopback(peer)) return null;
    return peer;
  }
  const hops = hopsOf(header, via);
  let client: IpAddress = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = parseNode(hops[i]);
    if (!ip) return null; // written by a trusted proxy, yet not an address: do not guess past it
    client = ip;
    if (!isTrusted(ip)) return ip;
  }
  return client;
}

/**
 * The scheme the client used, as the trusted proxy nearest this server says it in the one trusted
 * header's family: `X-Forwarded-Proto` (its last value) with `x-forwarded-for`, or the `proto=` of
 * the last `Forwarded` element with `forwarded`; the other family is never read. Null when the
 * socket peer is not a trusted proxy, or the header says nothing.
 * @param peer the socket peer; @param header as in {@link clientAddress}.
 */
export function clientProto(
  peer: IpAddress | null,
  header: (name: string) => readonly string[] | undefined,
  trusted: readonly Cidr[],
  via: TrustedProxyHeader,
): string | null {
  if (!peer || !trusted.some((c) => cidrContains(c, peer))) return null;
  if (via === 'x-forwarded-for') {
    const last = (header('x-forwarded-proto') ?? [])
      .flatMap((v) => v.split(','))
      .map((x) => x.trim())
      .filter(Boolean)
      .pop();
    return last ? last.toLowerCase() : null;
  }
  const elements = (header('forwarded') ?? []).flatMap((v) => splitOutsideQuotes(v, ','));
  const lastElement = elements.pop();
  if (!lastElement) return null;
  for (const pair of splitOutsideQuotes(lastElement, ';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === 'proto')
      return pair
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '')
        .toLowerCase();
  }
  return null;
}
