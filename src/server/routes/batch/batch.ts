import { Type } from '@sinclair/typebox';
import { ApiError, ServiceError } from '../../errors.js';
import { type CompiledRoute, invoke } from '../../invoke.js';
import { MAX_PAGE_BYTES } from '../../page.js';
import { anchorJson, defineRoute, type Reply, type Route } from '../../route.js';
import { Anchor } from '../../schemas.js';

/** Batch items per request (Limits). */
export const MAX_BATCH_ITEMS = 20;

const _Item = Type.Object({
  id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
  route: Type.String({
    maxLength: 128,
    description: "a batchable route's path template (e.g. /tokens/{address}/overview) or id",
  }),
  params: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  ),
});

/**
 * POST /batch: up to 20 reads answered from one snapshot with one shared anchor. Every item runs
 * synchronously in one turn of the event loop, so no block can commit between two items. An item
 * fails alone (unknown route 404, scope 403, past the shared 4 MiB budget 413); a 200 for the
 * batch does not mean every item succeeded.
 */
export const batchRoute = defineRoute({
  id: 'batch',
  method: 'POST',
  path: '/batch',
  scope: 'read',
  group: 'Batch',
  summary:
    'Several reads from one snapshot: body {requests:[{id?, route, params}]} (≤ 20). route is a batchable path template or route id; params holds path and query parameters. Response {anchor, results:[{id, status, body} | {id, status, error}]}.',
  response: Type.Object({
    anchor: Anchor,
    results: Type.Array(
      Type.Object({
        id: Type.Union([Type.String(), Type.Integer()]),
        route: Type.String(),
        status: Type.Integer(),
        body: Type.Optional(Type.Unknown()),
        error: Type.Optional(Type.Object({ error: Type.String(), detail: Type.String() })),
      }),
    ),
  }),
  errors: ['bad_request', 'invalid_json_body', 'payload_too_large', 'not_ready'],
  anchored: true,
  handler(ctx) {
    const body = ctx.body as { requests?: unknown } | null;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new ApiError('invalid_json_body', 'body must be {requests:[...]}');
    for (const k of Object.keys(body))
      if (k !== 'requests') throw new ApiError('invalid_json_body', `unknown body field "${k}"`);
    const reqs = body.requests;
    if (!Array.isArray(reqs)) throw new ApiError('invalid_json_body', 'requests must be an array');
    if (reqs.length > MAX_BATCH_ITEMS)
      throw new ApiError('bad_request', `at most ${MAX_BATCH_ITEMS} items per batch, got ${reqs.length}`);
    const compiled = (ctx as unknown as { services: { compiled: Map<Route, CompiledRoute> } }).services
      .compiled;
    const byName = new Map<string, CompiledRoute>();
    for (const c of compiled.values()) {
      if (!c.route.batchable) continue;
      byName.set(c.route.path, c);
      byName.set(c.route.id, c);
    }
    // Shape check first: a malformed item fails the whole request with 422 (nothing ran).
    const items = reqs.map((r, i) => {
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
        const known = new Set([...c.paramNames, ...Object.keys(c.route.query ?? {})]);
        for (const k of Object.keys(raw)) {
          if (!known.has(k))
            throw new ApiError(
              'invalid_json_body',
              `requests[${i}].params: unknown field "${k}" for ${route}`,
            );
        }
      }
      return { id: (id as string | number | undefined) ?? i, route, raw, c };
    });
    const anchor = ctx.anchor;
    const view = ctx.view;
    const principal = { name: 'batch', scopes: ctx.scopes, maxStreams: 0 };
    const parts: string[] = [];
    let bytes = 0;
    for (const it of items) {
      let status: number;
      let payload: string;
      try {
        if (!it.c) throw new ApiError('not_found', `no batchable route "${it.route.slice(0, 128)}"`);
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
