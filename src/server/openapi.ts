/**
 * The published contract: an OpenAPI 3.1 document generated from the route list (the same list
 * the router registers), the error registry and the shared schemas. Nothing is written twice.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from './errors.js';
import { fullPath } from './index.js';
import type { Route } from './route.js';
import { Chain, ErrorEnvelope } from './schemas.js';

/** /metrics is part of the contract but served only by the loopback metrics listener. */
export const METRICS_ENTRY = {
  method: 'GET' as const,
  path: '/metrics',
  summary:
    'Prometheus text exposition; exists only on the loopback metrics listener (METRICS_PORT), never on the public port.',
  group: 'Monitoring',
};

const strip = (s: TSchema): unknown => JSON.parse(JSON.stringify(s));

function parameters(r: Route) {
  const out: unknown[] = [];
  if (!r.root) out.push({ name: 'chain', in: 'path', required: true, schema: strip(Chain) });
  for (const [name, s] of Object.entries(r.params ?? {}))
    out.push({ name, in: 'path', required: true, schema: strip(s) });
  for (const [name, s] of Object.entries(r.query ?? {})) {
    const optional = (s as unknown as Record<symbol, unknown>)[Symbol.for('TypeBox.Optional')] === 'Optional';
    out.push({
      name,
      in: 'query',
      required: !optional,
      schema: strip(s),
      description: (s as { description?: string }).description,
    });
  }
  return out;
}

/**
 * Every error code a route can answer: its own list plus what the framework adds to every route
 * of its kind (authentication and rate limits on keyed routes, input validation where it takes
 * input, the anchor and fail-closed refusals on anchored routes, unknown chain on chain routes,
 * internal everywhere). The contract publishes exactly these; the e2e harness refuses any other.
 */
export function declaredErrors(r: Route): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(r.errors);
  if (r.scope) for (const c of ['unauthorized', 'insufficient_scope', 'rate_limited'] as const) codes.add(c);
  const takesInput =
    Object.keys(r.params ?? {}).length > 0 || Object.keys(r.query ?? {}).length > 0 || r.method === 'POST';
  // Unknown query parameters are refused on every route (spec: "Unknown query parameters answer 400").
  codes.add('bad_request');
  if (takesInput && r.query && 'cursor' in r.query)
    for (const c of ['bad_cursor', 'stale_cursor', 'cursor_history_pruned'] as const) codes.add(c);
  if (r.anchored) {
    codes.add('not_ready');
    if (r.group !== 'Monitoring') {
      codes.add('ingest_halted');
      codes.add('replica_lagging');
    }
  }
  if (r.requires?.length) codes.add('projection_unavailable');
  if (!r.root) codes.add('unknown_chain');
  codes.add('internal');
  return codes;
}

export function buildOpenApi(routes: Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const p = fullPath(r);
    paths[p] ??= {};
    const responses: Record<string, unknown> = {
      '200': { description: 'OK', content: { 'application/json': { schema: strip(r.response) } } },
    };
    const codes = declaredErrors(r);
    const byStatus = new Map<number, string[]>();
    for (const c of codes) {
      const st = ERRORS[c as keyof typeof ERRORS].status;
      byStatus.set(st, [...(byStatus.get(st) ?? []), c]);
    }
    for (const alt of r.alternates ?? [])
      responses[String(alt.status)] = {
        description: alt.description,
        content: { 'application/json': { schema: strip(alt.schema) } },
      };
    for (const [st, list] of byStatus) {
      if (responses[String(st)]) {
        (responses[String(st)] as { description: string }).description +=
          `; or the error envelope: ${list.map((c) => `${c}: ${ERRORS[c as keyof typeof ERRORS].meaning}`).join('; ')}`;
        continue;
      }
      responses[String(st)] = {
        description: list.map((c) => `${c}: ${ERRORS[c as keyof typeof ERRORS].meaning}`).join('; '),
        content: { 'application/json': { schema: strip(ErrorEnvelope) } },
      };
    }
    paths[p][r.method.toLowerCase()] = {
      operationId: r.id,
      tags: [r.group],
      summary: r.summary,
      security: r.scope ? [{ apiKey: [r.scope] }] : [],
      'x-scope': r.scope,
      'x-batchable': r.batchable ?? false,
      parameters: parameters(r),
      ...(r.method === 'POST'
        ? { requestBody: { required: true, content: { 'application/json': { schema: {} } } } }
        : {}),
      responses,
    };
  }
  paths[METRICS_ENTRY.path] = {
    get: {
      operationId: 'monitoring.metrics',
      tags: [METRICS_ENTRY.group],
      summary: METRICS_ENTRY.summary,
      'x-listener': 'metrics (loopback only)',
      security: [],
      responses: {
        '200': {
          description: 'text/plain exposition',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chain indexer API',
      version,
      description:
        'Every response carries `anchor: {block, hash}`, the canonical head its storage snapshot saw (R1). Paged responses carry `page: {order, limit, count, stoppedBy, nextCursor}`. Errors are `{error, detail}`. This document itself (GET /index/v1/openapi.json) is not one of the 115 routes.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        ErrorEnvelope: strip(ErrorEnvelope),
        ErrorCodes: strip(Type.Union(Object.keys(ERRORS).map((k) => Type.Literal(k)))),
      },
    },
    paths,
  };
}
