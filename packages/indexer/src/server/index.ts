/**
 * The HTTP server: registers every route of the contract on uWS, authenticates, validates,
 * anchors and dispatches. Handlers are synchronous where they read storage, so every read of a
 * request happens between two committed blocks (R1).
 */

import type { TrustedProxyHeader } from '@chain-indexer/platform/http';
import {
  corkedSend,
  type HttpRequest,
  type HttpResponse,
  readBody,
  send,
  type us_listen_socket,
  uws,
} from '@chain-indexer/platform/http';
import type { Cidr } from '@chain-indexer/platform/security';
import type { Logger } from 'pino';
import { type Auth, type Principal, STREAM_SESSION_COOKIE } from './auth.js';
import { ApiError, ServiceError } from './errors.js';
import { type CompiledRoute, compileRoute, invoke } from './invoke.js';
import { createRateLimiter } from './rate-limit.js';
import type { ReadMeter } from './read-meter.js';
import type { ChainContext, Reply, Route } from './route.js';
import { openSse } from './sse.js';
import { cookieValue, registerConsole } from './static.js';
import { parseQuery } from './validate.js';

export interface ServerOptions {
  routes: Route[];
  chains: Map<string, ChainContext>;
  auth: Auth;
  log: Logger;
  /** The contract document served at GET /index/v1/openapi.json (no key needed). */
  openapiJson?: string;
  /**
   * Called after each request with route id, HTTP status, seconds and the rows it read through
   * its views (read-meter.ts; the synchronous part of node routes).
   */
  observe?: (routeId: string, status: number, seconds: number, rowsRead: number) => void;
  /**
   * Serves the browser console (src/server/static.ts) at `/`. `devKey`: the embedded devnet's dev
   * key, offered to loopback peers only (null: never offered). `dir`: the built console.
   */
  console?: {
    devKey: string | null;
    dir?: string;
    trustedProxies?: readonly Cidr[];
    trustedProxyHeader?: TrustedProxyHeader;
  };
}

export interface Server {
  listen(host: string, port: number): Promise<number>;
  close(): void;
  /** Method and OpenAPI path of every route registered on the public listener. */
  registered(): Array<{ method: string; path: string }>;
}

const JSON_HEADERS: Array<[string, string]> = [['content-type', 'application/json; charset=utf-8']];
/** Largest accepted request body, bytes: a 20-item batch is a few KiB; anything larger is refused. */
export const MAX_BODY_BYTES = 256 * 1024;
export const CHAIN_PREFIX = '/index/v1/{chain}';

/** Full OpenAPI path of a route. */
export const fullPath = (r: Route): string => (r.root ? r.path : `${CHAIN_PREFIX}${r.path}`);

const toUws = (path: string) => path.replace(/\{([a-zA-Z_]+)\}/g, ':$1');

function errorReply(err: ServiceError): { status: number; headers: Array<[string, string]>; body: string } {
  return {
    status: err.status,
    headers: [...JSON_HEADERS, ...err.headers],
    body: JSON.stringify(err.toJSON()),
  };
}

/**
 * The caller of a keyed route: the `x-api-key` header, or on stream routes only (EventSource
 * cannot set headers) a console stream session from the `ix_stream` cookie.
 * @throws ApiError unauthorized (401).
 */
function authenticate(auth: Auth, route: Route, apiKey: string | undefined, cookie: string): Principal {
  if (apiKey || route.scope !== 'stream' || !cookie) return auth.authenticate(apiKey);
  const token = cookieValue(cookie, STREAM_SESSION_COOKIE);
  if (!token) return auth.authenticate(apiKey);
  const p = auth.streamSession(token);
  if (!p)
    throw new ApiError(
      'unauthorized',
      'stream session unknown or expired; renew it with POST /console/session',
    );
  return p;
}

/**
 * The path parameters of a request, percent-decoded, by the route's parameter `names` (in path
 * order): the `{chain}` segment apart, the others as raw strings for the route's validator.
 * Synchronous: `req` is invalid after the first await.
 * @throws ApiError bad_request (400) on invalid percent-encoding.
 */
function pathParams(
  req: HttpRequest,
  names: readonly string[],
): { chainName: string; rawParams: Record<string, string> } {
  const rawParams: Record<string, string> = {};
  let chainName = '';
  for (let i = 0; i < names.length; i++) {
    let v = req.getParameter(i) ?? '';
    try {
      v = decodeURIComponent(v);
    } catch {
      throw new ApiError('bad_request', `path parameter "${names[i]}" is not valid percent-encoding`);
    }
    if (names[i] === 'chain') chainName = v;
    else rawParams[names[i]] = v;
  }
  return { chainName, rawParams };
}

/** What every route's handler shares: the server's options and its per-server state. */
interface HandlerDeps {
  opts: ServerOptions;
  firstChain: ChainContext | undefined;
  limiter: ReturnType<typeof createRateLimiter>;
  services: { compiled: Map<Route, CompiledRoute> };
}

/**
 * The uWS handler of one route: reads the request synchronously (path parameters, headers,
 * query), authenticates, invokes the compiled route and sends its reply or its typed error.
 */
function routeHandler(
  route: Route,
  c: CompiledRoute,
  names: readonly string[],
  deps: HandlerDeps,
): (res: HttpResponse, req: HttpRequest) => void {
  const { opts, firstChain, limiter, services } = deps;
  return (res: HttpResponse, req: HttpRequest) => {
    const state: { aborted: boolean; hasAbortHandler?: boolean } = { aborted: false };
    const t0 = performance.now();
    const meter: ReadMeter = { rows: 0 };
    const finish = (
      status: number,
      headers: Array<[string, string]>,
      body: string | Uint8Array,
      late: boolean,
    ) => {
      (late ? corkedSend : send)(res, status, headers, body, state);
      opts.observe?.(route.id, status, (performance.now() - t0) / 1000, meter.rows);
    };
    const fail = (err: unknown, late: boolean) => {
      if ((err as Error)?.message === 'aborted' && state.aborted) return;
      const apiErr =
        err instanceof ServiceError
          ? err
          : new ApiError('internal', 'unexpected failure; it has been logged', undefined, { cause: err });
      if (!(err instanceof ServiceError)) opts.log.error({ route: route.id, err }, 'handler failed');
      const e = errorReply(apiErr);
      finish(e.status, e.headers, e.body, late);
    };
    const ok = (r: Reply, late: boolean) => {
      if (r.sse) {
        if (state.aborted) return r.dispose?.(); // the client left first: give back its slot
        const start = () => r.sse!(openSse(res));
        if (late) res.cork(start);
        else start();
        opts.observe?.(route.id, 200, (performance.now() - t0) / 1000, meter.rows);
        return;
      }
      // A cached large reply carries its bytes: written as they are, not encoded per hit.
      finish(
        r.status ?? 200,
        r.headers ? [...JSON_HEADERS, ...r.headers] : JSON_HEADERS,
        r.bytes ?? r.json,
        late,
      );
    };
    try {
      // Everything is read from req synchronously: req is invalid after the first await.
      const { chainName, rawParams } = pathParams(req, names);
      const headers = { 'last-event-id': req.getHeader('last-event-id') || undefined };
      if (headers['last-event-id'] && headers['last-event-id'].length > 256)
        throw new ApiError('bad_request', 'Last-Event-ID too long');
      const apiKey = req.getHeader('x-api-key') || undefined;
      const rawQuery = parseQuery(req.getQuery() ?? '');
      const chain = route.root ? firstChain : opts.chains.get(chainName);
      if (!chain) throw new ApiError('unknown_chain', `chain "${chainName.slice(0, 64)}" is not served here`);
      const principal: Principal | null = route.scope
        ? authenticate(opts.auth, route, apiKey, req.getHeader('cookie'))
        : null;
      const run = (body?: unknown) =>
        invoke(c, {
          chain,
          allChains: opts.chains,
          principal,
          rawParams,
          rawQuery,
          headers,
          body,
          limiter,
          services,
          meter,
        });
      if (route.method === 'POST') {
        readBody(res, state, MAX_BODY_BYTES, (m) => new ApiError('payload_too_large', m))
          .then((buf) => {
            let body: unknown;
            try {
              body = JSON.parse(buf.toString('utf8'));
            } catch {
              throw new ApiError('invalid_json_body', 'request body is not valid JSON');
            }
            return run(body);
          })
          .then(
            (r) => ok(r, true),
            (err) => fail(err, true),
          );
        return;
      }
      const out = run();
      if (out instanceof Promise) {
        res.onAborted(() => {
          state.aborted = true;
        });
        state.hasAbortHandler = true;
        out.then(
          (r) => ok(r, true),
          (err) => fail(err, true),
        );
      } else {
        ok(out, false);
      }
    } catch (err) {
      fail(err, false);
    }
  };
}

export function createServer(opts: ServerOptions): Server {
  const app = uws.App();
  const limiter = createRateLimiter();
  const registered: Array<{ method: string; path: string }> = [];
  // Root routes (/health/live, /health/ready) are not chain-scoped: they run with the first
  // configured chain as ctx.chain and read every chain through ctx.allChains.
  const firstChain = [...opts.chains.values()][0];
  const compiled = new Map<Route, CompiledRoute>();
  let listenSocket: us_listen_socket | null = null;
  const services = { compiled };

  for (const route of opts.routes) {
    const c = compileRoute(route);
    compiled.set(route, c);
    const path = fullPath(route);
    const names = [...path.matchAll(/\{([a-zA-Z_]+)\}/g)].map((m) => m[1]);
    registered.push({ method: route.method, path });

    const handle = routeHandler(route, c, names, { opts, firstChain, limiter, services });
    if (route.method === 'GET') app.get(toUws(path), handle);
    else app.post(toUws(path), handle);
  }

  if (opts.openapiJson) {
    const doc = opts.openapiJson;
    app.get('/index/v1/openapi.json', (res) => send(res, 200, JSON_HEADERS, doc, { aborted: false }));
  }

  if (opts.console)
    registerConsole(app, { auth: opts.auth, chains: [...opts.chains.keys()], errorReply, ...opts.console });

  app.any('/*', (res, req) => {
    const url = req.getUrl();
    const e = errorReply(
      new ApiError('not_found', `no route ${req.getMethod().toUpperCase()} ${url.slice(0, 200)}`),
    );
    send(res, e.status, e.headers, e.body, { aborted: false });
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (sock) => {
          if (!sock) return reject(new Error(`cannot listen on ${host}:${port}`));
          listenSocket = sock;
          resolve(uws.us_socket_local_port(sock));
        });
      });
    },
    close() {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = null;
      // The open connections too (keep-alive clients, streams): no request may reach a store that
      // closes next. Stream clients resume elsewhere with Last-Event-ID.
      (app as unknown as { close(): void }).close();
    },
    registered: () => registered,
  };
}
