/**
 * The browser console on the public listener: its static files (built by `npm run build` with
 * Vite into dist/console), the loopback-only dev-key offer and the console session that lets
 * `EventSource` open streams (it cannot send `x-api-key`).
 *
 *  - `GET /` → index.html (`no-cache`: it names the hashed bundles of this build);
 *    `GET /assets/*` → hashed bundles (`immutable`, a year), gzip when the client accepts it.
 *    No key is needed for static files; every API route keeps its `x-api-key` check.
 *  - `GET /console/dev-key` → `{key}` only when the process serves the embedded devnet with its dev
 *    key AND the peer is loopback AND the Host header is a loopback literal (`127.x.y.z` or
 *    `[::1]`, any port: no DNS-rebinding page, and no name a proxy may forward under, can read it)
 *    AND the request carries no proxy header of any kind (`Forwarded`, `X-Forwarded-*`,
 *    `X-Real-IP`, `Via`, …: platform/src/proxy.ts); otherwise `404 not_found` like any unknown
 *    path. A proxy on this host (`proxy_pass http://127.0.0.1:8080`) adds at least one of them.
 *  - `POST /console/session` with `x-api-key` → `{chains, scopes, stream}`; when the key holds the
 *    `stream` scope it sets the HttpOnly, SameSite=Strict cookie `ix_stream` (path `/index/v1/`,
 *    10 minutes) that stream routes accept in place of the header. See docs/contract-choices.md.
 *    Rate-limited per client address ({@link CONSOLE_SESSION_LIMIT}, wrong keys included):
 *    `429 rate_limited` with `retryAfter` and `Retry-After`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import {
  clientAddress,
  clientProto,
  type HttpRequest,
  type HttpResponse,
  isProxyHeader,
  remoteAddress,
  send,
  type TemplatedApp,
  type TrustedProxyHeader,
} from '@chain-indexer/platform/http';
import { type Cidr, parseIp } from '@chain-indexer/platform/security';
import { type AddressLimit, createAddressLimiter } from './address-limit.js';
import { type Auth, STREAM_SESSION_COOKIE } from './auth.js';
import { ApiError, ServiceError } from './errors.js';

/**
 * Where `npm run build` puts the console: dist/console at the repository root (this module is
 * packages/indexer/dist/server/static.js, or its source beside it).
 */
export const DEFAULT_CONSOLE_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../dist/console',
);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Security headers of every console document and asset. */
const SECURITY_HEADERS: Array<[string, string]> = [
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
];
const CSP =
  "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

interface Asset {
  type: string;
  body: Buffer;
  /**
   * gzip of `body` when that is smaller (text types); undefined until a client accepting gzip
   * asked for it ({@link gzipLater}); null while it is being made, when it is not smaller, or for
   * a type that is not text. The body is sent as is whenever this is not a Buffer.
   */
  gzip: Buffer | null | undefined;
  cache: string;
}

/**
 * Makes an asset's gzip once, on libuv's pool (level 9), the first time a client accepts it. Not
 * at start-up: level 9 over the console's bundles took ~350 ms of the serving thread before it
 * served, while ingest was starting (bench/results/engine-thread-2026-11-30-thirteenth.md); and
 * not in the request either: the serving thread never compresses. Until it is made, the body is
 * sent as is (`vary: accept-encoding` holds either way).
 */
function gzipLater(a: Asset): void {
  if (a.gzip !== undefined) return; // made, being made, or not text
  a.gzip = null; // in progress; a failure leaves the asset uncompressed
  gzip(a.body, { level: 9 }, (err, z) => {
    if (!err && z.length < a.body.length) a.gzip = z;
  });
}

/** Reads a built console directory into memory: `index.html` and everything under `assets/`. */
export function loadConsoleAssets(dir: string): Map<string, Asset> | null {
  let index: Buffer;
  try {
    index = readFileSync(join(dir, 'index.html'));
  } catch {
    return null;
  }
  const out = new Map<string, Asset>();
  const add = (urlPath: string, body: Buffer, cache: string) => {
    const type = TYPES[extname(urlPath)] ?? 'application/octet-stream';
    const compressible = /^(text|application\/json|image\/svg)/.test(type);
    out.set(urlPath, { type, body, gzip: compressible ? undefined : null, cache });
  };
  add('/index.html', index, 'no-cache');
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else
        add(
          `/${relative(dir, p).replaceAll('\\', '/')}`,
          readFileSync(p),
          'public, max-age=31536000, immutable',
        );
    }
  };
  walk(join(dir, 'assets'));
  return out;
}

/** Whether a peer address is loopback (IPv4 127/8, `::1` in any spelling, IPv4-mapped 127/8). */
export function isLoopbackAddress(addr: string): boolean {
  const a = addr.toLowerCase();
  if (/^127\.\d+\.\d+\.\d+$/.test(a)) return true;
  if (/^(::ffff:|0000:0000:0000:0000:0000:ffff:)127\.\d+\.\d+\.\d+$/.test(a)) return true;
  if (a === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(a)) return true;
  // uWS spells IPv4-mapped peers in hex: 0000:…:ffff:7f00:0001.
  return /^(0{4}:){5}ffff:7f[0-9a-f]{2}:[0-9a-f]{4}$/.test(a);
}

/**
 * Whether a Host header is a loopback literal: `127.x.y.z` or `[::1]`, with an optional port. A
 * name (`localhost`, or anything a resolver or a proxy could map) is not.
 */
export function isLoopbackHost(host: string): boolean {
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(?::\d{1,5})?$/.exec(host);
  return m !== null && (m[1] === '[::1]' || m[1].split('.').every((o) => Number(o) <= 255));
}

/**
 * The dev-key decision: the key, or null when it must not be offered.
 * @param devKey the embedded devnet's dev key, null when the process does not run one.
 * @param req.headerNames the lower-case names of every header of the request (any proxy header refuses).
 */
export function devKeyFor(
  devKey: string | null,
  req: { remote: string; host: string; headerNames: Iterable<string> },
): string | null {
  if (!devKey) return null;
  for (const n of req.headerNames) if (isProxyHeader(n)) return null;
  return isLoopbackAddress(req.remote) && isLoopbackHost(req.host) ? devKey : null;
}

/** Value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string, name: string): string | null {
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim() || null;
  }
  return null;
}

/**
 * The rate limit of `POST /console/session` per client address (an IPv6 client by its /64):
 * requests per minute sustained, and at once. A console opens one session per tab and renews it
 * when refused (backoff from 2 s); wrong keys count too.
 */
export const CONSOLE_SESSION_LIMIT: AddressLimit = { perMinute: 30, burst: 10 };

export interface ConsoleOptions {
  auth: Auth;
  /** Names of the chains served (the console's chain picker). */
  chains: string[];
  /** The embedded devnet's dev key (offered on loopback), or null. */
  devKey: string | null;
  /** Built console directory (default {@link DEFAULT_CONSOLE_DIR}). */
  dir?: string;
  /**
   * TRUSTED_PROXIES: peers whose X-Forwarded-Proto marks the session cookie Secure, and whose
   * client header names the client the session rate limit counts.
   */
  trustedProxies?: readonly Cidr[];
  /** TRUSTED_PROXY_HEADER: the one header naming the client (default `x-forwarded-for`). */
  trustedProxyHeader?: TrustedProxyHeader;
  /** Turns a refusal into the API's JSON error reply. */
  errorReply(err: ServiceError): { status: number; headers: Array<[string, string]>; body: string };
}

const JSON_NO_STORE: Array<[string, string]> = [
  ['content-type', 'application/json; charset=utf-8'],
  ['cache-control', 'no-store'],
];

/** Registers `/`, `/assets/*`, `/console/dev-key` and `/console/session` on the app. */
export function registerConsole(app: TemplatedApp, o: ConsoleOptions): void {
  const assets = loadConsoleAssets(o.dir ?? DEFAULT_CONSOLE_DIR);
  const fail = (res: HttpResponse, err: ServiceError) => {
    const e = o.errorReply(err);
    send(res, e.status, e.headers, e.body, { aborted: false });
  };
  const serve = (res: HttpResponse, req: HttpRequest, path: string) => {
    const a = assets?.get(path);
    if (!a) {
      const hint = assets ? '' : ' (the console is not built: run `npm run build`)';
      return fail(res, new ApiError('not_found', `no file ${path.slice(0, 200)}${hint}`));
    }
    const accepts = /\bgzip\b/.test(req.getHeader('accept-encoding'));
    if (accepts) gzipLater(a);
    const gz = accepts && a.gzip;
    const headers: Array<[string, string]> = [
      ['content-type', a.type],
      ['cache-control', a.cache],
      ['vary', 'accept-encoding'],
      ...SECURITY_HEADERS,
    ];
    if (path === '/index.html') headers.push(['content-security-policy', CSP]);
    if (gz) headers.push(['content-encoding', 'gzip']);
    send(res, 200, headers, gz ? a.gzip! : a.body, { aborted: false });
  };
  app.get('/', (res, req) => serve(res, req, '/index.html'));
  app.get('/index.html', (res, req) => serve(res, req, '/index.html'));
  app.get('/assets/*', (res, req) => serve(res, req, req.getUrl()));

  app.get('/console/dev-key', (res, req) => {
    const headerNames: string[] = [];
    req.forEach((k) => {
      headerNames.push(k);
    });
    const key = devKeyFor(o.devKey, { remote: remoteAddress(res), host: req.getHeader('host'), headerNames });
    if (!key) return fail(res, new ApiError('not_found', 'no route GET /console/dev-key'));
    send(res, 200, JSON_NO_STORE, JSON.stringify({ key, note: 'embedded devnet dev key, loopback only' }), {
      aborted: false,
    });
  });

  const sessionLimit = createAddressLimiter(CONSOLE_SESSION_LIMIT, 'console session');
  app.post('/console/session', (res, req) => {
    try {
      const peer = parseIp(remoteAddress(res));
      const given = new Map<string, string[]>();
      req.forEach((k, v) => {
        given.set(k, [...(given.get(k) ?? []), v]);
      });
      // Charged before the key is checked: wrong keys count, and no session is issued past it.
      sessionLimit.charge(
        clientAddress(
          peer,
          (name) => given.get(name),
          given.keys(),
          o.trustedProxies ?? [],
          o.trustedProxyHeader ?? 'x-forwarded-for',
        ),
      );
      const p = o.auth.authenticate(req.getHeader('x-api-key') || undefined);
      // The proxy's word that the client used https counts only from a trusted proxy, and only in
      // the one trusted header's family (TRUSTED_PROXY_HEADER).
      const https =
        clientProto(
          peer,
          (name) => given.get(name),
          o.trustedProxies ?? [],
          o.trustedProxyHeader ?? 'x-forwarded-for',
        ) === 'https';
      const headers = [...JSON_NO_STORE];
      let stream: { expiresInSeconds: number } | null = null;
      if (p.scopes.has('stream')) {
        const s = o.auth.issueStreamSession(p);
        stream = { expiresInSeconds: s.expiresInSeconds };
        headers.push([
          'set-cookie',
          `${STREAM_SESSION_COOKIE}=${s.token}; Path=/index/v1/; Max-Age=${s.expiresInSeconds}; HttpOnly; SameSite=Strict${https ? '; Secure' : ''}`,
        ]);
      }
      const body = { chains: o.chains, scopes: [...p.scopes].sort(), stream };
      // The body is not read: uWS needs no onData for a POST whose body is ignored.
      send(res, 200, headers, JSON.stringify(body), { aborted: false });
    } catch (err) {
      fail(res, err instanceof ServiceError ? err : new ApiError('internal', 'unexpected failure'));
    }
  });
}
