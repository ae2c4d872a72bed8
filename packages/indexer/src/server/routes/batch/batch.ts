import { Type } from '@sinclair/typebox';
import { AS_OF_PARAMS } from '../../as-of.js';
import { ApiError, ServiceError } from '../../errors.js';
import { type CompiledRoute, invoke } from '../../invoke.js';
import { MAX_PAGE_BYTES } from '../../page.js';
import { anchorJson, defineRoute, type Reply, type Route, type Scope } from '../../route.js';
import { Anchor, ErrorEnvelope, Obj } from '../../schemas.js';

/** Batch items per request (Limits). */
export const MAX_BATCH_ITEMS = 20;

/** One item of a batch request. */
const Item = Obj({
  id: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Integer()], {
      description: 'echoed in the result; the zero-based position when omitted',
    }),
  ),
  route: Type.String({
    maxLength: 128,
    description:
      "a batchable route's path template (e.g. /tokens/{address}/overview) or its id (operationId)",
    'x-batchable-route': true,
  }),
  params: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      additionalProperties: false,
      description:
        "the item route's path and query parameters by name; an unknown name is 422 invalid_json_body",
    }),
  ),
});

/** The request body `{requests: [...]}`. */
export const BatchRequest = Obj({
  requests: Type.Array(Item, {
    maxItems: MAX_BATCH_ITEMS,
    description: `at most ${MAX_BATCH_ITEMS} items (more: 400 bad_request)`,
  }),
});

const ItemId = Type.Union([Type.String(), Type.Integer()], {
  description: 'the item id, or its zero-based position when the request gave none',
});
const ItemRoute = Type.String({ description: 'the route as the item named it' });

/** An item's 200 body: the item route's own response (published as its schema in the contract). */
const ItemBody = Type.Unknown({
  description: "the item route's 200 body, exactly as that route answers it alone",
  'x-batch-item-body': true,
});

/** One item of a batch, shape-checked, with its route when that is batchable. */
interface BatchItem {
  id: string | number;
  route: string;
  raw: Record<string, string>;
  c: CompiledRoute | undefined;
}

/** Batchable routes by path template and by id, from the server's compiled route table. */
const byNameCache = new WeakMap<Map<Route, CompiledRoute>, Map<string, CompiledRoute>>();
function byNameOf(services: Record<string, unknown> | undefined): Map<string, CompiledRoute> {
  const compiled = (services as { compiled?: Map<Route, CompiledRoute> } | undefined)?.compiled;
  if (!compiled) return new Map();
  let byName = byNameCache.get(compiled);
  if (!byName) {
    byName = new Map();
    for (const c of compiled.values()) {
      if (!c.route.batchable) continue;
      byName.set(c.route.path, c);
      byName.set(c.route.id, c);
    }
    byNameCache.set(compiled, byName);
  }
  return byName;
}

/**
 * The items of a batch body, every one shape-checked first (a malformed item fails the whole
 * request with 422 and nothing runs).
 * @throws ApiError invalid_json_body, bad_request (more than {@link MAX_BATCH_ITEMS}).
 */
function batchItems(bodyIn: unknown, byName: Map<string, CompiledRoute>): BatchItem[] {
  const body = bodyIn as { requests?: unknown } | null;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError('invalid_json_body', 'body must be {requests:[...]}');
  for (const k of Object.keys(body))
    if (k !== 'requests') throw new ApiError('invalid_json_body', `unknown body field "${k}"`);
  const reqs = body.requests;
  if (!Array.isArray(reqs)) throw new ApiError('invalid_json_body', 'requests must be an array');
  if (reqs.length > MAX_BATCH_ITEMS)
    throw new ApiError('bad_request', `at most ${MAX_BATCH_ITEMS} items per batch, got ${reqs.length}`);
  return reqs.map((r, i) => {
    if (!r || typeof r !== 'object' || Array.isArray(r))
      throw new ApiError('invalid_json_body', `requests[${i}] must be an object`);
    for (const k of Object.keys(r))
      if (!['id', 'route', 'params'].includes(k))
        throw new ApiError('invalid_json_body', `requests[${i}]: unknown field "${k}"`);
    const { id, route, params } = r as { id?: unknown; route?: unknown; params?: unknown };
    if (typeof route !== 'string')
      throw new ApiError('invalid_json_body', `requests[${i}].route must be a string`);
    if (id !== undefined && typeof id !== 'string' && !Number.isInteger(id))
      throw new ApiError('invalid_json_body', `requests[${i}].id must be a string or integer`);
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      throw new ApiError('invalid_json_body', `requests[${i}].params must be an object`);
    }
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries((params as Record<string, unknown>) ?? {})) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        throw new ApiError(
          'invalid_json_body',
          `requests[${i}].params.${k} must be a string, number or boolean`,
        );
      }
      raw[k] = String(v);
    }
    const c = byName.get(route);
    if (c) {
      // atBlock / atBlockHash on a route that does not take them is that item's own refusal (400,
      // as the route answers alone), not a malformed batch.
      const known = new Set([...c.paramNames, ...Object.keys(c.route.query ?? {}), ...AS_OF_PARAMS]);
      for (const k of Object.keys(raw)) {
        if (!known.has(k))
          throw new ApiError('invalid_json_body', `requests[${i}].params: unknown field "${k}" for ${route}`);
      }
    }
    return { id: (id as string | number | undefined) ?? i, route, raw, c };
  });
}

/**
 * POST /batch: up to 20 reads answered from one snapshot with one shared anchor. Every item runs
 * synchronously in one turn of the event loop, so no block can commit between two items. An item
 * fails alone (unknown route 404, scope 403, past the shared 4 MiB budget 413); a 200 for the
 * batch does not mean every item succeeded. Only index routes are batchable (a node route is
 * batchable: false by type).
 *
 * An item may name a block (`atBlock` / `atBlockHash` among its params, on a route that takes
 * them): it is resolved against the batch's snapshot and answered as of that block, its body
 * anchored there; the batch's own anchor stays the snapshot's head (docs/contract-choices.md,
 * "Batch items as of a block"). The as-of refusals (410 history_pruned, 409 block_not_indexed,
 * 409 block_not_canonical, 400 on a route that does not take the parameters) fail their item alone.
 */
export const batchRoute = defineRoute({
  id: 'batch',
  method: 'POST',
  path: '/batch',
  scope: 'read',
  group: 'Batch',
  summary:
    "Several reads from one snapshot: body {requests:[{id?, route, params}]} (≤ 20). route is a batchable path template or route id; params holds path and query parameters. Response {anchor, results:[{id, route, status, body} | {id, route, status, error}]}; a 200 for the batch does not mean every item succeeded. anchor is the snapshot's head. An item may name a block with atBlock or atBlockHash in its params when its route takes them (x-as-of): it is answered as of that block from the same snapshot and its body carries that anchor; its refusals (410 history_pruned, 409 block_not_indexed, 409 block_not_canonical, 400 when its route does not take them) fail that item alone.",
  body: BatchRequest,
  response: Obj({
    anchor: Anchor,
    results: Type.Array(
      Type.Union([
        Obj(
          { id: ItemId, route: ItemRoute, status: Type.Literal(200), body: ItemBody },
          { description: 'an item that succeeded' },
        ),
        Obj(
          {
            id: ItemId,
            route: ItemRoute,
            status: Type.Integer({ minimum: 400, maximum: 599 }),
            error: ErrorEnvelope,
          },
          {
            description:
              'an item that failed alone: its status and the error envelope (404 unknown route, 403 scope, 413 past the shared 4 MiB budget, or any refusal of the item route, the as-of ones included: 410 history_pruned, 409 block_not_indexed, 409 block_not_canonical, 400 atBlock on a route that does not take it)',
          },
        ),
      ]),
      { description: 'one result per request item, in request order' },
    ),
  }),
  errors: ['bad_request', 'invalid_json_body', 'payload_too_large', 'not_ready'],
  anchored: true,
  // Each item is charged to its own route's class (a key limited on `wallet` pays a wallet item as
  // one wallet request); an item the key may not call, or of no batchable route, is not charged.
  // The last entry is the batch's own: one `read` when no item was charged, else none. invoke.ts
  // charges once, before any run, and hands the outcomes to the handler (ctx.charged).
  charges({ body, scopes, services }) {
    let plan: Array<Scope | null>;
    try {
      plan = batchItems(body, byNameOf(services)).map((it) => {
        const scope = it.c?.route.scope;
        return scope && scopes.has(scope) ? scope : null;
      });
    } catch {
      return ['read']; // a malformed body: answered 422 by the handler
    }
    return [...plan, plan.some((x) => x !== null) ? null : 'read'];
  },
  handler(ctx) {
    const items = batchItems(ctx.body, byNameOf((ctx as { services?: Record<string, unknown> }).services));
    // The batch's own charge (when no item was chargeable) refuses the whole batch.
    const own = ctx.charged?.[items.length];
    if (own) throw own;
    const anchor = ctx.anchor;
    const view = ctx.view;
    const principal = { name: 'batch', scopes: ctx.scopes, maxStreams: 0 };
    const parts: string[] = [];
    let bytes = 0;
    for (const [i, it] of items.entries()) {
      let status: number;
      let payload: string;
      try {
        if (!it.c) throw new ApiError('not_found', `no batchable route "${it.route.slice(0, 128)}"`);
        const refused = ctx.charged?.[i];
        if (refused) throw refused;
        const rawParams: Record<string, string> = {};
        const rawQuery: Record<string, string> = {};
        for (const [k, v] of Object.entries(it.raw))
          (it.c.paramNames.includes(k) ? rawParams : rawQuery)[k] = v;
        const out = invoke(it.c, {
          chain: ctx.chain,
          allChains: ctx.allChains,
          principal,
          rawParams,
          rawQuery,
          headers: {},
          view,
        });
        if (out instanceof Promise) throw new ApiError('bad_request', `${it.route} is not batchable`);
        const r = out as Reply;
        status = r.status ?? 200;
        payload = status < 400 ? `"body":${r.json}` : `"error":${r.json}`;
      } catch (err) {
        const e = err instanceof ServiceError ? err : new ApiError('internal', 'unexpected failure');
        status = e.status;
        payload = `"error":${JSON.stringify(e.toJSON())}`;
      }
      let part = `{"id":${JSON.stringify(it.id)},"route":${JSON.stringify(it.route)},"status":${status},${payload}}`;
      if (bytes + part.length > MAX_PAGE_BYTES - 4096) {
        part = `{"id":${JSON.stringify(it.id)},"route":${JSON.stringify(it.route)},"status":413,"error":{"error":"payload_too_large","detail":"item does not fit the shared 4 MiB response budget"}}`;
      }
      bytes += part.length + 1;
      parts.push(part);
    }
    return { json: `{"anchor":${anchorJson(anchor)},"results":[${parts.join(',')}]}` };
  },
});
