/**
 * Request dispatch: mounts every endpoint on the uWS app and runs the framework steps around its
 * handler (see endpoint.ts for the list): request id, key-in-URL refusal, the gate, validation,
 * credits (cache, hold, settle), the handler, usage, and the response or the error envelope.
 *
 * Ordering that the credit guarantee rests on: a credit-consuming answer is serialised, then
 * settled (one atomic batch: charge + balance + usage + cached body), then sent, all in one
 * synchronous step. Nothing is sent before the batch is durable; a batch is only written with
 * the answer in hand; a client that went away before the answer was ready is charged nothing.
 */
import type { Logger } from 'pino';
import { corkedSend, type HttpRequest, type HttpResponse, send, type TemplatedApp } from '../server/uws.js';
import type { Cidr } from './cidr.js';
import type { Endpoint, HandlerCtx, KeyCaller, Services, SessionCaller } from './endpoint.js';
import { ScannerError } from './errors.js';
import type { Gate } from './gate.js';
import {
  decodeParams,
  parseQuery,
  type RequestInfo,
  type ResState,
  readJsonBody,
  readRequest,
} from './http.js';
import type { IndexPort } from './index-port.js';
import type { Hold, Ledger, Settlement } from './ledger.js';
import { keyInUrl, urlCarriesKey } from './secrets.js';
import type { Admission } from './windows.js';

/** Everything dispatch needs, built once by the service. */
export interface Runtime {
  gate: Gate;
  ledger: Ledger;
  index: IndexPort;
  services: Services;
  log: Logger;
  now: () => number;
  /** Default cache window of credit answers, ms. */
  cacheMs: number;
  trusted: readonly Cidr[];
  requestId: () => string;
  /** False once the service is closing: the store may be closed, so nothing may touch it. */
  isOpen: () => boolean;
}

const CLOSING = new ScannerError('INTERNAL_ERROR', 'the scanner is shutting down; retry shortly');

const BASE_HEADERS: Array<[string, string]> = [
  ['content-type', 'application/json; charset=utf-8'],
  // Answers may carry secrets (a new key) or account data: never stored by a cache on the way.
  ['cache-control', 'no-store'],
];

const toUws = (path: string) => path.replace(/\{([a-zA-Z_]+)\}/g, ':$1');

/** `{…}` + `"cached": flag` (the body is a JSON object by the credit endpoint's definition). */
const withCached = (json: string, cached: boolean) =>
  json === '{}' ? `{"cached":${cached}}` : `${json.slice(0, -1)},"cached":${cached}}`;

/** A writer of one response (sync inside uWS's cork, or corked later). */
function responder(res: HttpResponse, state: ResState, requestId: string) {
  return (status: number, headers: Array<[string, string]>, body: string, late: boolean) =>
    (late ? corkedSend : send)(
      res,
      status,
      [...BASE_HEADERS, ['x-request-id', requestId], ...headers],
      body,
      state,
    );
}

/** Refuses a URL that carries a key (path or query), recording it on the key if it is a real one. */
function checkUrl(rt: Runtime, r: RequestInfo, now: number): void {
  if (!urlCarriesKey(r.path) && !urlCarriesKey(r.rawQuery)) return;
  const secret = keyInUrl(r.path) ?? keyInUrl(r.rawQuery);
  if (secret) rt.gate.noteKeyInUrl(secret, r, now);
  throw new ScannerError(
    'API_KEY_IN_URL',
    'an API key was sent in the URL, where proxies and logs keep it: roll that key, and send keys only in the Authorization or x-api-key header',
  );
}

/** Mounts one endpoint. */
function mount(app: TemplatedApp, ep: Endpoint, rt: Runtime): void {
  const { spec } = ep;
  const successStatus = spec.status ?? 200;

  const handle = (res: HttpResponse, req: HttpRequest) => {
    const state: ResState = { aborted: false };
    const requestId = rt.requestId();
    const reply = responder(res, state, requestId);
    const now = rt.now();
    let accountId: string | null = null;
    let hold: Hold | null = null;
    if (!rt.isOpen()) return reply(503, [], JSON.stringify(CLOSING.envelope(requestId)), false);

    /** Usage (key endpoints) plus whatever `extra` settles, written before the answer is sent. */
    const settle = (status: number, extra: Partial<Settlement> = {}) => {
      if (accountId === null) return;
      rt.ledger.settle({ accountId, at: rt.now(), endpoint: spec.path, status, requestId, ...extra });
    };
    const fail = (err: unknown, late: boolean) => {
      if (hold) rt.ledger.release(hold);
      hold = null;
      if (state.aborted) return;
      let e: ScannerError;
      if (err instanceof ScannerError) e = err;
      else {
        rt.log.error(
          { requestId, endpoint: spec.id, err: (err as Error)?.stack ?? String(err) },
          'handler failed',
        );
        e = new ScannerError('SERVER_ERROR', 'unexpected failure; it has been logged, nothing was charged');
      }
      try {
        settle(e.status);
      } catch (werr) {
        rt.log.error({ requestId, err: String(werr) }, 'usage write failed');
      }
      reply(e.status, e.headers, JSON.stringify(e.envelope(requestId)), late);
    };

    try {
      const r = readRequest(res, req, ep.paramNames, rt.trusted);
      checkUrl(rt, r, now);
      let caller: KeyCaller | SessionCaller | null = null;
      let admission: Admission | null = null;
      if (spec.auth === 'key') {
        const g = rt.gate.checkKey(r, now);
        if (!g.ok) {
          accountId = g.accountId;
          throw g.error;
        }
        caller = g.caller;
        admission = g.admission;
        accountId = g.caller.account.id;
      } else if (spec.auth === 'session') caller = rt.gate.checkSession(r, now);
      const params = ep.params.parse(decodeParams(r.rawParams));
      const query = ep.query.parse(parseQuery(r.rawQuery));
      const rateHeaders: Array<[string, string]> = admission
        ? [
            ['x-ratelimit-limit', String(admission.limit)],
            ['x-ratelimit-remaining', String(admission.remaining)],
          ]
        : [];

      const run = (body: unknown, late: boolean) => {
        const ctx = {
          params,
          query,
          body,
          requestId,
          now,
          ip: r.ipText,
          index: rt.index,
          services: rt.services,
          caller,
        } as HandlerCtx<'key', {}, {}, undefined>;
        const credits = spec.credits;
        let cost = 0;
        let cacheKey = '';
        if (credits) {
          cost = credits.cost(ctx);
          if (!Number.isSafeInteger(cost) || cost < 0)
            throw new Error(`${spec.id}: cost must be a whole number`);
          if (cost > 0) {
            cacheKey = credits.cacheKey(ctx);
            const hit = rt.ledger.cached(accountId!, spec.path, cacheKey, now);
            if (hit) {
              settle(successStatus);
              const left = String(rt.ledger.balance(accountId!));
              const h: Array<[string, string]> = [
                ...rateHeaders,
                ['x-scans-charged', '0'],
                ['x-scans-remaining', left],
              ];
              return reply(successStatus, h, withCached(hit.body, true), late);
            }
            hold = rt.ledger.reserve(accountId!, cost);
            if (!hold)
              throw new ScannerError(
                'INSUFFICIENT_CREDITS',
                `this request costs ${cost} scan(s); not enough left`,
                {
                  required: cost,
                  remaining: rt.ledger.balance(accountId!),
                },
              );
          }
        }
        const complete = (result: unknown, late2: boolean) => {
          if (state.aborted) {
            // Nothing can be delivered: nothing is charged or counted.
            if (hold) rt.ledger.release(hold);
            hold = null;
            return;
          }
          const json = JSON.stringify(result);
          if (hold) {
            const cacheMs = credits?.cacheMs ?? rt.cacheMs;
            const at = rt.now();
            const charged = hold;
            settle(successStatus, {
              hold: charged,
              cache: cacheMs > 0 ? { key: cacheKey, body: json, exp: at + cacheMs } : undefined,
            });
            hold = null;
            const h: Array<[string, string]> = [
              ...rateHeaders,
              ['x-scans-charged', String(charged.amount)],
              ['x-scans-remaining', String(rt.ledger.balance(accountId!))],
            ];
            return reply(successStatus, h, withCached(json, false), late2);
          }
          settle(successStatus);
          reply(successStatus, rateHeaders, credits ? withCached(json, false) : json, late2);
        };
        const out = spec.handler(ctx as never);
        if (out instanceof Promise) {
          if (!state.hasAbortHandler) {
            state.hasAbortHandler = true;
            res.onAborted(() => {
              state.aborted = true;
            });
          }
          out.then(
            (v) => {
              try {
                complete(v, true);
              } catch (err) {
                fail(err, true);
              }
            },
            (err) => fail(err, true),
          );
        } else complete(out, late);
      };

      if (ep.body) {
        readJsonBody(res, state)
          .then((raw) => run(ep.body!(raw === undefined ? {} : raw), true))
          .catch((err) => {
            if ((err as Error)?.message === 'aborted' && state.aborted) return;
            fail(err, true);
          });
        return;
      }
      run(undefined, false);
    } catch (err) {
      fail(err, false);
    }
  };

  const path = toUws(spec.path);
  if (spec.method === 'GET') app.get(path, handle);
  else if (spec.method === 'POST') app.post(path, handle);
  else if (spec.method === 'PUT') app.put(path, handle);
  else app.patch(path, handle);
}

/** Mounts every endpoint, then the fallback: a key in any URL is still refused and recorded; else 404. */
export function mountEndpoints(app: TemplatedApp, endpoints: readonly Endpoint[], rt: Runtime): void {
  const seen = new Set<string>();
  for (const ep of endpoints) {
    const id = `${ep.spec.method} ${toUws(ep.spec.path).replace(/:[a-zA-Z_]+/g, ':')}`;
    if (seen.has(id)) throw new Error(`two endpoints on ${ep.spec.method} ${ep.spec.path}`);
    seen.add(id);
    mount(app, ep, rt);
  }
  app.any('/*', (res, req) => {
    const state: ResState = { aborted: false };
    const requestId = rt.requestId();
    let e: ScannerError = CLOSING;
    if (rt.isOpen())
      try {
        const r = readRequest(res, req, [], rt.trusted);
        checkUrl(rt, r, rt.now());
        e = new ScannerError('NOT_FOUND', `no endpoint ${r.method} ${r.path.slice(0, 120)}`);
      } catch (err) {
        e = err instanceof ScannerError ? err : new ScannerError('SERVER_ERROR', 'unexpected failure');
      }
    responder(res, state, requestId)(e.status, e.headers, JSON.stringify(e.envelope(requestId)), false);
  });
}
