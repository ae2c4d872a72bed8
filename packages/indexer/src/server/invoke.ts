/**
 * The route invocation core shared by HTTP dispatch and POST /batch: scope check, rate charge,
 * validation (compiled once per route), anchoring, then the handler. Authentication happens
 * before (once per HTTP request).
 */

import { CANON } from '../schema/tables/chain.js';
import type { View } from '../storage/index.js';
import { AS_OF_PARAMS, resolveAsOf } from './as-of.js';
import { asOfReason } from './as-of-reasons.js';
import type { Principal } from './auth.js';
import { ApiError, ServiceError } from './errors.js';
import { requireProjection } from './projections.js';
import type { RateLimiter } from './rate-limit.js';
import { meteredView, type ReadMeter } from './read-meter.js';
import { RecordCache, recordCacheOn } from './record-cache.js';
import { cacheKey, ResponseCache, responseCacheOn } from './response-cache.js';
import type { ChainContext, Ctx, Reply, Route } from './route.js';
import { type CompiledObject, compileObject } from './validate.js';

/** A route with its validators compiled at registration. */
export interface CompiledRoute {
  route: Route;
  /** Path parameter names in path order (without `chain`). */
  paramNames: string[];
  params: CompiledObject;
  query: CompiledObject;
}

export function compileRoute(route: Route): CompiledRoute {
  const paramNames = [...route.path.matchAll(/\{([a-zA-Z_]+)\}/g)]
    .map((m) => m[1])
    .filter((n) => n !== 'chain');
  return {
    route,
    paramNames,
    params: compileObject(route.params, 'path'),
    query: compileObject(route.query, 'query'),
  };
}

export interface InvokeInput {
  chain: ChainContext;
  principal: Principal | null;
  rawParams: Record<string, string>;
  rawQuery: Record<string, string>;
  headers: Record<string, string | undefined>;
  body?: unknown;
  /** Every served chain (root routes). */
  allChains: ReadonlyMap<string, ChainContext>;
  /** View (and with it the anchor) shared by all items of a batch; otherwise one is opened here. */
  view?: View;
  /** Rate limiter; omitted for batch items (the batch charged each item to its class). */
  limiter?: RateLimiter;
  /** Extra values handlers may need (batch: the route table). */
  services?: Record<string, unknown>;
  /** Set by {@link invoke}: the outcome of the route's declared charges (see Route.charges). */
  charged?: ReadonlyArray<ServiceError | null>;
  /** Counts the rows this request reads (read-meter.ts); omitted: not counted. */
  meter?: ReadMeter;
}

/** Each chain's response cache (see response-cache.ts). */
const caches = new WeakMap<ChainContext, ResponseCache>();
/** The response cache of `chain` (hits and misses for metrics and tests). */
export function responseCacheOf(chain: ChainContext): ResponseCache {
  let c = caches.get(chain);
  if (!c) caches.set(chain, (c = new ResponseCache()));
  return c;
}

/** Each chain's record cache (see record-cache.ts). */
const recordCaches = new WeakMap<ChainContext, RecordCache>();
/** The record cache of `chain` (tests). */
export function recordCacheOf(chain: ChainContext): RecordCache {
  let c = recordCaches.get(chain);
  if (!c) recordCaches.set(chain, (c = new RecordCache()));
  return c;
}

/**
 * Runs a compiled route. Returns the handler's reply (sync when the handler is sync) with any
 * rate-limit headers appended.
 * @throws ApiError for every refusal; other errors are the caller's to turn into `internal`.
 */
export function invoke(c: CompiledRoute, input: InvokeInput): Reply | Promise<Reply> {
  const { route } = c;
  let rateHeaders: Array<[string, string]> = [];
  let charged: Array<ServiceError | null> | undefined;
  if (route.scope) {
    if (!input.principal) throw new ApiError('unauthorized', 'missing x-api-key header');
    if (!input.principal.scopes.has(route.scope)) {
      throw new ApiError('insufficient_scope', `this route needs scope "${route.scope}"`);
    }
    // Charged here, once, before the run loop below: a run repeated on a new view is not a new request.
    if (input.limiter) ({ rateHeaders, charged } = charge(route, input, input.limiter, input.principal));
  }
  if (!route.asOf) refuseAsOf(route, input.rawQuery);
  const query = c.query.parse(input.rawQuery);
  const params = c.params.parse(input.rawParams);
  if (charged) input = { ...input, charged };
  // A batch item shares the batch's view (the batch checks it and may run every item again), so a
  // route with a side effect cannot be one.
  if (input.view) {
    const out = run(c, input, query, params, input.view);
    if (!(out instanceof Promise) && out.effect)
      throw new ApiError('bad_request', `${route.path} is not batchable`);
    return withHeaders(out, rateHeaders);
  }
  // Otherwise the answer stands only if no write landed while the handler read (see
  // storage/view.ts), else it runs again. Handlers keep their side effects in `Reply.effect`,
  // which runs once, on the run that stands: a dropped run has taken nothing and changed nothing.
  for (let attempt = 1; ; attempt++) {
    const opened = input.chain.store.view();
    const view = input.meter ? meteredView(opened, input.meter) : opened;
    let out: Reply | Promise<Reply>;
    try {
      out = run(c, input, query, params, view);
    } catch (err) {
      if (view.consistent() || attempt >= MAX_VIEW_ATTEMPTS) throw err;
      continue; // the refusal may come from a mixed read: decide again on one state
    } finally {
      view.close();
    }
    // A node route awaits after its synchronous part (which read through the view): that part is
    // what the check covers.
    if (view.consistent() || attempt >= MAX_VIEW_ATTEMPTS)
      return withHeaders(out instanceof Promise ? out.then(settle) : settle(out), rateHeaders);
  }
}

/**
 * Refuses `atBlock` / `atBlockHash` on a route that does not answer as of a block, saying why
 * (its contract's `x-as-of.reason`): never answered at the head instead.
 * @throws ApiError bad_request when either is in `rawQuery`.
 */
function refuseAsOf(route: Route, rawQuery: Record<string, string>): void {
  for (const k of AS_OF_PARAMS) {
    if (!(k in rawQuery)) continue;
    throw new ApiError(
      'bad_request',
      `this route does not answer as of a block: "${k}" is taken only by the routes whose contract lists it (x-as-of); why not here: ${asOfReason(route)}`,
    );
  }
}

/**
 * Runs a standing reply's side effect (once) and answers what it returns (later when the effect
 * answers later). @throws what it throws.
 */
const settle = (r: Reply): Reply | Promise<Reply> => {
  if (!r.effect) return r;
  const next = r.effect();
  return next instanceof Promise ? next.then(settle) : settle(next);
};

/** Appends the rate-limit headers to a reply. */
function withHeaders(
  out: Reply | Promise<Reply>,
  rateHeaders: Array<[string, string]>,
): Reply | Promise<Reply> {
  if (!rateHeaders.length) return out;
  const add = (r: Reply): Reply => ({ ...r, headers: [...(r.headers ?? []), ...rateHeaders] });
  return out instanceof Promise ? out.then(add) : add(out);
}

/**
 * Charges one request to the rate limiter: each class of `route.charges` (default: the route's
 * scope). A route without `charges` is refused whole when over its limit; with `charges`, each
 * refused charge is handed to the handler (`ctx.charged`) and the others stand.
 * @throws ApiError rate_limited (429) for a route without `charges`.
 */
function charge(
  route: Route,
  input: InvokeInput,
  limiter: RateLimiter,
  principal: Principal,
): { rateHeaders: Array<[string, string]>; charged?: Array<ServiceError | null> } {
  if (!route.charges)
    return { rateHeaders: limiter.charge(principal.name, route.scope!, principal.rateLimits).headers };
  const plan = route.charges({ body: input.body, scopes: principal.scopes, services: input.services });
  let rateHeaders: Array<[string, string]> = [];
  const charged = plan.map((scope) => {
    if (!scope) return null;
    try {
      rateHeaders = limiter.charge(principal.name, scope, principal.rateLimits).headers;
      return null;
    } catch (err) {
      if (err instanceof ServiceError) return err;
      throw err;
    }
  });
  return { rateHeaders, charged };
}

/**
 * Attempts at one consistent view per request: a write landing during each of them means the
 * writer commits faster than the request reads, which would be a bug (a response is then served
 * from the last attempt and counted).
 */
const MAX_VIEW_ATTEMPTS = 8;

/** One attempt of {@link invoke} on `view`. */
function run(
  c: CompiledRoute,
  input: InvokeInput,
  query: Record<string, unknown>,
  params: unknown,
  view: View,
): Reply | Promise<Reply> {
  const { route } = c;
  const chain = input.chain;
  {
    const anchor = view.head;
    if (route.anchored && !anchor) {
      throw new ApiError('not_ready', `nothing indexed yet for chain ${chain.name}; retry shortly`);
    }
    if (route.anchored && route.group !== 'Monitoring') {
      // A halted chain's head may sit on a dropped fork (a reorg deeper than the window): no anchor
      // can be vouched for, so anchored routes refuse; monitoring and live RPC keep serving.
      const s = chain.ingest.status();
      // A storage write failure halts ingest but the committed data is still canonical: reads go on
      // (health says writes are refused); so does a roots mismatch (the bad block was never
      // committed). Only a reorg past the window leaves no anchor to vouch for.
      if (
        s.state === 'halted' &&
        s.haltReason !== 'storage_write_failed' &&
        s.haltReason !== 'roots_mismatch'
      ) {
        throw new ApiError(
          'ingest_halted',
          `ingest for chain ${chain.name} halted (${s.haltReason}); see /gaps and /health`,
          { haltReason: s.haltReason },
        );
      }
    }
    if (route.anchored && route.group !== 'Monitoring' && chain.replica) {
      // A replica never serves a view older than it promised: past its lag it refuses.
      const r = chain.replica.status();
      if (r.lagSeconds > chain.replica.maxLagSeconds || r.state === 'bootstrapping')
        throw new ApiError(
          'replica_lagging',
          `replica of ${chain.name} is ${r.lagSeconds.toFixed(1)} s behind its writer (limit ${chain.replica.maxLagSeconds} s; state ${r.state})`,
          { lagSeconds: r.lagSeconds, lagBlocks: r.lagBlocks, state: r.state },
        );
    }
    for (const name of route.requires ?? []) requireProjection(chain, name, view);
    // An as-of read anchors every read of the request at the block it names (R1; as-of.ts).
    const asOf = route.asOf ? resolveAsOf(view, query, chain.historyRetention ?? null) : undefined;
    const ctx: Ctx & { services?: Record<string, unknown> } = {
      chain,
      params: params as Record<string, string>,
      query,
      anchor: asOf ?? anchor!,
      asOf,
      view,
      readers: chain.readers,
      allChains: input.allChains,
      header: (name) => input.headers[name],
      body: input.body,
      scopes: input.principal?.scopes ?? new Set(),
      principal: input.principal
        ? { name: input.principal.name, maxStreams: input.principal.maxStreams }
        : null,
      charged: input.charged,
      services: input.services,
    };
    // Cacheable answers (batch items excepted: they share the batch's view) are served again
    // until the store's next write, and answers about chain records under a later anchor while
    // their block stays canonical (record-cache.ts); refusals above were decided for this request
    // already.
    const cache = route.cached && responseCacheOn && !input.view ? responseCacheOf(chain) : null;
    if (!cache) return route.handler.call(route, ctx);
    const writes = view.seq;
    const key = cacheKey(route.id, c.paramNames, input.rawParams, input.rawQuery);
    let out = cache.get(writes, key);
    if (out) return out;
    const records = recordCacheOf(chain);
    const hashAt = (n: number) => (n <= ctx.anchor.number ? view.get(CANON, n) : undefined);
    out = route.anchored && recordCacheOn ? records.get(key, ctx.anchor, hashAt) : undefined;
    if (out) cache.noteRecordHit();
    else {
      out = route.handler.call(route, ctx) as Reply;
      if (out instanceof Promise || out.sse || out.effect) return out;
      if (out.record && recordCacheOn) records.set(key, out, hashAt);
    }
    cache.set(writes, key, out);
    return out;
  }
}
