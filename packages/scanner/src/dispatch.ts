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
import {
  corkedSend,
  type HttpRequest,
  type HttpResponse,
  send,
  type TemplatedApp,
} from '@chain-indexer/platform/http';
import type { Logger } from 'pino';
import type { Endpoint, HandlerCtx, KeyCaller, Services, SessionCaller } from './endpoint.js';
import { ScannerError } from './errors.js';
import type { Gate } from './gate.js';
import {
  decodeParams,
  type ProxyTrust,
  parseQuery,
  type RequestInfo,
  type ResState,
  readJsonBody,
  readRequest,
} from './http.js';
import type { IndexPort } from './index-port.js';
import type { Hold, Ledger, Settlement } from './ledger.js';
import { keyInUrl, urlCarriesKey } from './secrets.js';

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
  /** The trusted proxies and the one header they write (platform/src/proxy.ts). */
  trusted: ProxyTrust;
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

/**
 * One request in flight: its response, id, clock reading, account (once known, for usage) and
 * credit hold, with the two ways it ends — an answer or an error — each settled before it is sent.
 */
class Exchange {
  readonly state: ResState = { aborted: false };
  readonly requestId: string;
  readonly now: number;
  accountId: string | null = null;
  hold: Hold | null = null;
  private readonly reply: ReturnType<typeof responder>;

  constructor(
    private readonly res: HttpResponse,
    private readonly rt: Runtime,
    private readonly endpoint: string,
  ) {
    this.requestId = rt.requestId();
    this.now = rt.now();
    this.reply = responder(res, this.state, this.requestId);
  }

  /** Registers the abort handler before the first await (uWS rule); no-op when already there. */
  watchAbort(): void {
    if (this.state.hasAbortHandler) return;
    this.state.hasAbortHandler = true;
    this.res.onAborted(() => {
      this.state.aborted = true;
    });
  }

  /** Writes usage (key endpoints) plus `extra` (charge, cache) in one batch (a Promise when a shared ledger charges). */
  settle(status: number, extra: Partial<Settlement> = {}): void | Promise<void> {
    if (this.accountId === null) return;
    return this.rt.ledger.settle({
      accountId: this.accountId,
      at: this.rt.now(),
      endpoint: this.endpoint,
      status,
      requestId: this.requestId,
      ...extra,
    });
  }

  /**
   * Settles, then sends a success; a charged answer settles its hold in the same batch. `headers`
   * may be a function, read once the settlement is done (the balance after a shared charge).
   * A shared ledger's charge is asynchronous: the answer is sent when the compare-and-set is
   * acknowledged, or the refusal (402 / 503, nothing charged) is sent instead.
   */
  answer(
    status: number,
    headers: Array<[string, string]> | (() => Array<[string, string]>),
    body: string,
    late: boolean,
    extra?: Partial<Settlement>,
  ) {
    const done = this.settle(status, extra);
    if (extra?.hold) this.hold = null;
    const h = () => (typeof headers === 'function' ? headers() : headers);
    if (!(done instanceof Promise)) return this.reply(status, h(), body, late);
    this.watchAbort();
    done.then(
      () => this.reply(status, h(), body, true),
      (err) => this.fail(err, true),
    );
  }

  /** Gives back a hold without charging it (failure or abandonment). */
  releaseHold(): void {
    if (this.hold) this.rt.ledger.release(this.hold);
    this.hold = null;
  }

  /** Ends with an error envelope: nothing charged, usage counted when the account is known. */
  fail(err: unknown, late: boolean): void {
    this.releaseHold();
    if (this.state.aborted) return;
    let e: ScannerError;
    if (err instanceof ScannerError) e = err;
    else {
      this.rt.log.error(
        { requestId: this.requestId, endpoint: this.endpoint, err: (err as Error)?.stack ?? String(err) },
        'handler failed',
      );
      e = new ScannerError('SERVER_ERROR', 'unexpected failure; it has been logged, nothing was charged');
    }
    try {
      this.settle(e.status);
    } catch (werr) {
      this.rt.log.error({ requestId: this.requestId, err: String(werr) }, 'usage write failed');
    }
    this.reply(e.status, e.headers, JSON.stringify(e.envelope(this.requestId)), late);
  }
}

/** Runs the gate for the endpoint's `auth`; returns the caller and the rate headers of a success. */
function authenticate(ep: Endpoint, rt: Runtime, r: RequestInfo, x: Exchange) {
  if (ep.spec.auth === 'session') return { caller: rt.gate.checkSession(r, x.now), rateHeaders: [] };
  if (ep.spec.auth !== 'key') return { caller: null, rateHeaders: [] };
  const g = rt.gate.checkKey(r, x.now);
  if (!g.ok) {
    x.accountId = g.accountId;
    throw g.error;
  }
  x.accountId = g.caller.account.id;
  const rateHeaders: Array<[string, string]> = [
    ['x-ratelimit-limit', String(g.admission.limit)],
    ['x-ratelimit-remaining', String(g.admission.remaining)],
  ];
  return { caller: g.caller as KeyCaller | SessionCaller, rateHeaders };
}

/**
 * The credit steps and the handler: a fresh cached answer is sent free; otherwise the cost is
 * held (402 when it cannot be), the handler runs, and its answer is settled (charge + usage +
 * cache, one batch) and then sent. @throws ScannerError for a refusal (the caller sends it).
 */
function runHandler(
  ep: Endpoint,
  rt: Runtime,
  x: Exchange,
  ctx: HandlerCtx<'key', {}, {}, undefined>,
  rateHeaders: Array<[string, string]>,
  late: boolean,
): void {
  const { spec } = ep;
  const status = spec.status ?? 200;
  const credits = spec.credits;
  let cacheKey = '';
  if (credits) {
    const cost = credits.cost(ctx);
    if (!Number.isSafeInteger(cost) || cost < 0) throw new Error(`${spec.id}: cost must be a whole number`);
    if (cost > 0) {
      const accountId = x.accountId!;
      cacheKey = credits.cacheKey(ctx);
      const hit = rt.ledger.cached(accountId, spec.path, cacheKey, x.now);
      if (hit) {
        const left = String(rt.ledger.balance(accountId));
        const h: Array<[string, string]> = [
          ...rateHeaders,
          ['x-scans-charged', '0'],
          ['x-scans-remaining', left],
        ];
        x.answer(status, h, withCached(hit.body, true), late);
        return;
      }
      x.hold = rt.ledger.reserve(accountId, cost);
      if (!x.hold)
        throw new ScannerError(
          'INSUFFICIENT_CREDITS',
          `this request costs ${cost} scan(s); not enough left`,
          {
            required: cost,
            remaining: rt.ledger.balance(accountId),
          },
        );
    }
  }
  const complete = (result: unknown, lateAnswer: boolean) => {
    // A client that left can be delivered nothing: nothing is charged or counted.
    if (x.state.aborted) return x.releaseHold();
    const json = JSON.stringify(result);
    const hold = x.hold;
    if (!hold) return x.answer(status, rateHeaders, credits ? withCached(json, false) : json, lateAnswer);
    const cacheMs = credits?.cacheMs ?? rt.cacheMs;
    const cache = cacheMs > 0 ? { key: cacheKey, body: json, exp: rt.now() + cacheMs } : undefined;
    // The balance once this answer's charge is written (read after the settlement).
    const h = (): Array<[string, string]> => [
      ...rateHeaders,
      ['x-scans-charged', String(hold.amount)],
      ['x-scans-remaining', String(rt.ledger.balance(x.accountId!))],
    ];
    x.answer(status, h, withCached(json, false), lateAnswer, { hold, cache });
  };
  const out = spec.handler(ctx as never);
  if (!(out instanceof Promise)) {
    complete(out, late);
    return;
  }
  x.watchAbort();
  out.then(
    (v) => {
      try {
        complete(v, true);
      } catch (err) {
        x.fail(err, true);
      }
    },
    (err) => x.fail(err, true),
  );
}

/** Mounts one endpoint. */
function mount(app: TemplatedApp, ep: Endpoint, rt: Runtime): void {
  const handle = (res: HttpResponse, req: HttpRequest) => {
    const x = new Exchange(res, rt, ep.spec.path);
    if (!rt.isOpen()) return x.fail(CLOSING, false);
    try {
      // Everything is read from `req` first: it is invalid after the first await.
      const r = readRequest(res, req, ep.paramNames, rt.trusted);
      checkUrl(rt, r, x.now);
      const { caller, rateHeaders } = authenticate(ep, rt, r, x);
      const params = ep.params.parse(decodeParams(r.rawParams));
      const query = ep.query.parse(parseQuery(r.rawQuery));
      const ctx = (body: unknown) =>
        ({
          params,
          query,
          body,
          requestId: x.requestId,
          now: x.now,
          ip: r.ipText,
          index: rt.index,
          services: rt.services,
          caller,
        }) as HandlerCtx<'key', {}, {}, undefined>;
      if (!ep.body) return runHandler(ep, rt, x, ctx(undefined), rateHeaders, false);
      readJsonBody(res, x.state)
        .then((raw) => runHandler(ep, rt, x, ctx(ep.body!(raw === undefined ? {} : raw)), rateHeaders, true))
        .catch((err) => {
          if ((err as Error)?.message === 'aborted' && x.state.aborted) return;
          x.fail(err, true);
        });
    } catch (err) {
      x.fail(err, false);
    }
  };
  const path = toUws(ep.spec.path);
  if (ep.spec.method === 'GET') app.get(path, handle);
  else if (ep.spec.method === 'POST') app.post(path, handle);
  else if (ep.spec.method === 'PUT') app.put(path, handle);
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
