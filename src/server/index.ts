/**
 * The HTTP server: registers every route of the contract on uWS, authenticates, validates,
 * anchors and dispatches. Handlers are synchronous where they read storage, so every read of a
 * request happens between two committed blocks (R1).
 */
import type { Logger } from 'pino';
import { ApiError } from './errors.js';
import type { Auth } from './auth.js';
import type { ChainContext, Ctx, Reply, Route } from './route.js';
import { compileObject, parseQuery } from './validate.js';
import { type HttpResponse, type us_listen_socket, corkedSend, send, uws } from './uws.js';

export interface ServerOptions {
  routes: Route[];
  chains: Map<string, ChainContext>;
  auth: Auth;
  log: Logger;
}

export interface Server {
  listen(host: string, port: number): Promise<number>;
  close(): void;
  /** uWS path patterns registered, with method, for the contract parity test. */
  registered(): Array<{ method: string; path: string }>;
}

const JSON_HEADERS: Array<[string, string]> = [['content-type', 'application/json; charset=utf-8']];
/** Largest accepted request body, bytes (batch bodies are small; anything larger is hostile). */
export const MAX_BODY_BYTES = 256 * 1024;

export const CHAIN_PREFIX = '/index/v1/{chain}';

/** Converts an OpenAPI path to a uWS pattern and its ordered parameter names. */
function uwsPattern(path: string): { pattern: string; names: string[] } {
  const names: string[] = [];
  const pattern = path.replace(/\{([a-zA-Z_]+)\}/g, (_, n: string) => {
    names.push(n);
    return `:${n}`;
  });
  return { pattern, names };
}

function errorBody(err: ApiError): string {
  return JSON.stringify(err.toJSON());
}

export function createServer(opts: ServerOptions): Server {
  const app = uws.App();
  const registered: Array<{ method: string; path: string }> = [];
  const onlyChain = opts.chains.size === 1 ? [...opts.chains.values()][0] : undefined;
  let listenSocket: us_listen_socket | null = null;

  for (const route of opts.routes) {
    const full = route.root ? route.path : `${CHAIN_PREFIX}${route.path}`;
    const { pattern, names } = uwsPattern(full);
    const params = compileObject(
      Object.fromEntries(Object.entries(route.params ?? {})),
      'path',
    );
    const query = compileObject(route.query, 'query');
    registered.push({ method: route.method, path: full });

    const handle = (res: HttpResponse, req: uws.HttpRequest) => {
      const state = { aborted: false };
      const t0 = performance.now();
      const fail = (err: unknown, late: boolean) => {
        const apiErr =
          err instanceof ApiError ? err : new ApiError('internal', 'unexpected failure; it has been logged', undefined, { cause: err });
        if (!(err instanceof ApiError)) opts.log.error({ route: route.id, err }, 'handler failed');
        const headers = apiErr.status === 429 && apiErr.extra?.retryAfter !== undefined
          ? [...JSON_HEADERS, ['retry-after', String(apiErr.extra.retryAfter)] as [string, string]]
          : JSON_HEADERS;
        (late ? corkedSend : send)(res, apiErr.status, headers, errorBody(apiErr), state);
      };
      try {
        // Read everything from req synchronously: it is invalid after the first await.
        const rawParams: Record<string, string> = {};
        let chainName: string | undefined;
        let pi = 0;
        for (const n of names) {
          const v = decodeURIComponent(req.getParameter(pi++) ?? '');
          if (n === 'chain') chainName = v;
          else rawParams[n] = v;
        }
        const apiKey = req.getHeader('x-api-key') || undefined;
        const lastEventId = req.getHeader('last-event-id') || undefined;
        const rawQuery = req.getQuery() ?? '';
        const chain = route.root ? onlyChain : opts.chains.get(chainName ?? '');
        if (!chain) throw new ApiError('unknown_chain', `chain "${chainName}" is not served here`);
        const scopes = route.scope ? opts.auth.authenticate(apiKey) : null;
        if (route.scope && scopes) opts.auth.authorize(scopes, route.scope);
        const q = query.parse(parseQuery(rawQuery));
        const p = params.parse(rawParams);
        let anchor = chain.store.head();
        if (route.anchored && !anchor) {
          throw new ApiError('not_ready', `nothing indexed yet for chain ${chain.name}; retry shortly`);
        }
        const ctx: Ctx = {
          chain,
          params: p as Record<string, string>,
          query: q,
          anchor: anchor!,
          header: (name) => (name === 'last-event-id' ? lastEventId : name === 'x-api-key' ? undefined : undefined),
          body: undefined,
          scopes: scopes?.scopes ?? new Set(),
        };
        const out = route.handler.call(route, ctx);
        if (out instanceof Promise) {
          res.onAborted(() => {
            state.aborted = true;
          });
          out.then(
            (r: Reply) => corkedSend(res, r.status ?? 200, r.headers ? [...JSON_HEADERS, ...r.headers] : JSON_HEADERS, r.json, state),
            (err) => fail(err, true),
          );
        } else {
          send(res, out.status ?? 200, out.headers ? [...JSON_HEADERS, ...out.headers] : JSON_HEADERS, out.json, state);
        }
        anchor = null;
      } catch (err) {
        fail(err, false);
      }
      void t0;
    };
    if (route.method === 'GET') app.get(pattern, handle);
    else app.post(pattern, handle);
  }

  app.any('/*', (res, req) => {
    const state = { aborted: false };
    const url = req.getUrl();
    send(res, 404, JSON_HEADERS, errorBody(new ApiError('not_found', `no route ${req.getMethod().toUpperCase()} ${url.slice(0, 200)}`)), state);
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
    },
    registered: () => registered,
  };
}
