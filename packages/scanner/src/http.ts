/**
 * The scanner's side of the uWS adapter (packages/platform/src/uws.ts keeps the uWS rules: write inside a
 * cork, `onAborted` before any await, backpressure). This module reads everything a request
 * needs synchronously (uWS's request object dies at the first await): method, path, raw query,
 * all header values (repeats kept, to count credentials), the client IP; and reads bodies.
 */
import { randomBytes } from 'node:crypto';
import type { HttpRequest, HttpResponse } from '@chain-indexer/platform/http';
import { clientAddress, readBody, type TrustedProxyHeader } from '@chain-indexer/platform/http';
import { type Cidr, formatCidr, formatIp, type IpAddress, parseIp } from '@chain-indexer/platform/security';
import { ScannerError } from './errors.js';

/** Largest request body accepted, bytes (dashboard bodies are a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;

/** A request as read synchronously from uWS. */
export interface RequestInfo {
  method: string;
  /** The URL path, still percent-encoded. */
  path: string;
  /** The raw query string (no `?`). */
  rawQuery: string;
  /** Raw path parameters by name, in path order. */
  rawParams: Record<string, string>;
  /** Lower-case header name → every value sent, in order. */
  headers: Map<string, string[]>;
  /**
   * The client IP (platform/src/proxy.ts `clientAddress`: the socket peer, or what trusted proxies
   * say), null when unknown.
   */
  ip: IpAddress | null;
  /** Canonical text of {@link ip}, or `unknown`. */
  ipText: string;
  /**
   * The bucket of the invalid-key block: the IPv4 address, the /64 of an IPv6 address (one
   * subscriber's allocation: rotating inside it must not reset the count), or `unknown`.
   */
  blockKey: string;
}

/** Mutable per-response state shared with the uWS adapter's send helpers. */
export interface ResState {
  aborted: boolean;
  hasAbortHandler?: boolean;
}

/** First value of a header, or undefined. */
export const header = (r: RequestInfo, name: string): string | undefined => r.headers.get(name)?.[0];

/** The invalid-key block bucket of a client address (see {@link RequestInfo.blockKey}). */
export function blockKeyOf(ip: IpAddress | null): string {
  if (!ip) return 'unknown';
  if (ip.v === 4) return formatIp(ip);
  return formatCidr({ v: 6, network: (ip.n >> 64n) << 64n, prefix: 64 });
}

/** Who may say who the client is: TRUSTED_PROXIES and TRUSTED_PROXY_HEADER (platform/src/proxy.ts). */
export interface ProxyTrust {
  proxies: readonly Cidr[];
  /** The one header the proxies write; the other is never read. */
  header: TrustedProxyHeader;
}

/** Reads a uWS request synchronously (call before anything async). */
export function readRequest(
  res: HttpResponse,
  req: HttpRequest,
  paramNames: readonly string[],
  trusted: ProxyTrust,
): RequestInfo {
  const headers = new Map<string, string[]>();
  req.forEach((k, v) => {
    const list = headers.get(k);
    if (list) list.push(v);
    else headers.set(k, [v]);
  });
  const rawParams: Record<string, string> = {};
  for (let i = 0; i < paramNames.length; i++) rawParams[paramNames[i]] = req.getParameter(i) ?? '';
  const peer = parseIp(Buffer.from(res.getRemoteAddressAsText()).toString('latin1'));
  const ip = clientAddress(
    peer,
    (name) => headers.get(name),
    headers.keys(),
    trusted.proxies,
    trusted.header,
  );
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    rawQuery: req.getQuery() ?? '',
    rawParams,
    headers,
    ip,
    ipText: ip ? formatIp(ip) : 'unknown',
    blockKey: blockKeyOf(ip),
  };
}

/** Parses a raw query string; a repeated parameter is refused (ambiguous). */
export function parseQuery(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!q) return out;
  for (const [k, v] of new URLSearchParams(q)) {
    if (k in out)
      throw new ScannerError('INVALID_INPUT', `query parameter "${k.slice(0, 64)}" given more than once`);
    out[k] = v;
  }
  return out;
}

/** Percent-decodes path parameters; malformed encoding is 400 INVALID_INPUT. */
export function decodeParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw new ScannerError('INVALID_INPUT', `path parameter "${k}" is not valid percent-encoding`);
    }
  }
  return out;
}

/**
 * Reads a JSON request body (up to {@link MAX_BODY_BYTES}; the platform's body reader). Registers
 * `onAborted` first: the response outlives this call. An empty body is `undefined`.
 * @throws ScannerError INVALID_INPUT for an oversized or non-JSON body; Error('aborted').
 */
export function readJsonBody(res: HttpResponse, state: ResState): Promise<unknown> {
  return readBody(res, state, MAX_BODY_BYTES, (m) => new ScannerError('INVALID_INPUT', m)).then((buf) => {
    const text = buf.toString('utf8');
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new ScannerError('INVALID_INPUT', 'request body is not valid JSON');
    }
  });
}

/** Request ids: a per-process random prefix and a counter (unique, cheap, not guessable across runs). */
export function createRequestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let n = 0;
  return () => `req_${prefix}${(++n).toString(36).padStart(6, '0')}`;
}
