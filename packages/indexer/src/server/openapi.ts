/**
 * The published contract: an OpenAPI 3.1 document generated from the route list (the same list
 * the router registers), the error registry and the shared schemas. Nothing is written twice.
 *
 * Each route's 200 body is published once under `components.schemas.<route id>` and referenced
 * from its path (and from the batch result items of the batchable ones); each error status lists
 * the route's codes at that status as an enum over the shared envelope; streams are published as
 * `text/event-stream` with their events as the item schema.
 */

import { routeParameters, strip } from '@chain-indexer/platform/http';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { asOfSupport } from './as-of-reasons.js';
import { ERRORS, type ErrorCode } from './errors.js';
import { fullPath } from './index.js';
import type { Route } from './route.js';
import { Chain, ErrorEnvelope, Obj } from './schemas.js';

/** /metrics is part of the contract but served only by the loopback metrics listener. */
export const METRICS_ENTRY = {
  method: 'GET' as const,
  path: '/metrics',
  summary:
    'Prometheus text exposition; exists only on the loopback metrics listener (METRICS_PORT), never on the public port.',
  group: 'Monitoring',
};

/** The media type of Server-Sent Events streams. */
export const EVENT_STREAM = 'text/event-stream';

/**
 * One Server-Sent Event a stream route may send: its `event:` name, whether it carries a durable
 * `id:` (resumable with after_sequence / Last-Event-ID), and the JSON its `data:` line holds.
 */
export function SseEvent(
  event: string,
  data: TSchema,
  description: string,
  opts: { durableId?: boolean } = {},
): TObject {
  return Obj(
    {
      event: Type.Literal(event),
      id: opts.durableId
        ? Type.String({ description: 'durable id v1.<topicNamespace>.<sequence> (resume point)' })
        : Type.Null({ description: 'control frame: no durable id' }),
      data,
    },
    { description },
  );
}

/**
 * The events of a stream route, as its `response`: the union of its {@link SseEvent}s. A stream
 * route sets `mediaType: 'text/event-stream'` and `response: SseEvents([...])`; the contract
 * publishes the union as the stream's item schema (each event is `event:`, `id:`, `data:` lines,
 * `data` being the JSON text of the event's `data` schema) and keep-alive comments are not events.
 */
export const SseEvents = (events: TObject[], description = 'one Server-Sent Event of this stream') =>
  Type.Union(events, { description, 'x-sse-events': true });

function parameters(r: Route) {
  const out: unknown[] = [];
  if (!r.root) out.push({ name: 'chain', in: 'path', required: true, schema: strip(Chain) });
  out.push(...routeParameters(r.params, r.query));
  if (r.mediaType === EVENT_STREAM)
    out.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema: { type: 'string', maxLength: 256 },
      description:
        'SSE resume point (a durable id) on single-topic streams when after_sequence is absent; an explicit after_sequence wins; longer than 256 characters: 400',
    });
  return out;
}

/**
 * Every error code a route can answer: its own list plus what the framework adds to every route
 * of its kind (authentication and rate limits on keyed routes, input validation everywhere,
 * cursors and the page budget on paged routes, body refusals on POST, the anchor and fail-closed
 * refusals on anchored routes, unknown chain on chain routes, internal everywhere). The contract
 * publishes exactly these; the e2e harness refuses any other.
 */
export function declaredErrors(r: Route): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(r.errors);
  if (r.scope) for (const c of ['unauthorized', 'insufficient_scope', 'rate_limited'] as const) codes.add(c);
  // Unknown query parameters are refused on every route (spec: "Unknown query parameters answer
  // 400"), malformed path parameters too.
  codes.add('bad_request');
  if (r.query && 'cursor' in r.query) {
    // A forged or foreign cursor (400), a cursor of a dropped fork (409), and a single row past
    // the 4 MiB page budget (422, src/server/page.ts).
    for (const c of ['bad_cursor', 'stale_cursor', 'query_too_broad'] as const) codes.add(c);
  }
  if (r.method === 'POST') {
    // A body past MAX_BODY_BYTES (413) or not JSON (422), src/server/index.ts.
    codes.add('payload_too_large');
    codes.add('invalid_json_body');
  }
  if (r.anchored) {
    codes.add('not_ready');
    if (r.group !== 'Monitoring') {
      codes.add('ingest_halted');
      codes.add('replica_lagging');
    }
  }
  if (r.requires?.length) codes.add('projection_unavailable');
  // As-of reads (as-of.ts): below the retained range, above the head, a non-canonical hash.
  if (r.asOf)
    for (const c of ['history_pruned', 'block_not_indexed', 'block_not_canonical'] as const) codes.add(c);
  // …and a cursor whose anchor is older than the retained history (page.ts).
  if (r.asOf && r.query && 'cursor' in r.query) codes.add('cursor_history_pruned');
  if (!r.root) codes.add('unknown_chain');
  codes.add('internal');
  return codes;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const meaning = (c: ErrorCode) => `${c}: ${ERRORS[c].meaning}`;

/** The error response of one status: the envelope with `error` restricted to the route's codes. */
function errorResponse(codes: ErrorCode[]) {
  return {
    description: codes.map(meaning).join('; '),
    content: {
      'application/json': {
        schema: {
          allOf: [
            ref('ErrorEnvelope'),
            { type: 'object', required: ['error'], properties: { error: { enum: codes } } },
          ],
        },
      },
    },
  };
}

/**
 * Replaces the batch placeholders of a stripped schema: the item body becomes "one of the
 * batchable routes' 200 bodies" (by reference), the item route "one of their paths or ids".
 */
function resolveBatch(node: unknown, batchable: Route[]): unknown {
  if (Array.isArray(node)) return node.map((n) => resolveBatch(n, batchable));
  if (!node || typeof node !== 'object') return node;
  const o = node as Record<string, unknown>;
  if (o['x-batch-item-body'])
    return {
      description: o.description,
      anyOf: batchable.map((r) => ref(r.id)),
    };
  if (o['x-batchable-route'])
    return {
      type: 'string',
      description: o.description,
      enum: batchable.flatMap((r) => [r.path, r.id]),
    };
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolveBatch(v, batchable)]));
}

/** The 200 response of a route: JSON by reference, or an event stream with its events. */
function okResponse(r: Route) {
  if (r.mediaType === EVENT_STREAM)
    return {
      description: 'Server-Sent Events stream; each event is described by the item schema',
      content: {
        [EVENT_STREAM]: {
          schema: {
            type: 'string',
            description: 'event: / id: / data: blocks; keep-alive comments on idle streams',
          },
          'x-itemSchema': ref(r.id),
        },
      },
    };
  return { description: 'OK', content: { [r.mediaType ?? 'application/json']: { schema: ref(r.id) } } };
}

/**
 * Whether a route answers as of a block (`atBlock` / `atBlockHash`, src/server/as-of.ts), and if
 * not, why: `{supported: true}` or `{supported: false, reason}` (as-of-reasons.ts).
 */
export const asOfOf = asOfSupport;

function operation(r: Route, batchable: Route[]) {
  const responses: Record<string, { description: string; content: Record<string, unknown> }> = {
    '200': okResponse(r),
  };
  for (const alt of r.alternates ?? []) {
    const content = { [alt.mediaType ?? 'application/json']: { schema: strip(alt.schema) } };
    const at = responses[String(alt.status)];
    if (at) {
      at.description += `; or ${alt.description}`;
      Object.assign(at.content, content);
    } else responses[String(alt.status)] = { description: alt.description, content };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of declaredErrors(r))
    byStatus.set(ERRORS[c].status, [...(byStatus.get(ERRORS[c].status) ?? []), c]);
  for (const [st, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const at = responses[String(st)];
    if (!at) {
      responses[String(st)] = errorResponse(list);
      continue;
    }
    // A non-error body on the same status (e.g. /health/ready's 503 {ready:false}): both are published.
    const envelope = errorResponse(list);
    at.description += `; or the error envelope: ${envelope.description}`;
    const json = at.content['application/json'] as { schema: unknown } | undefined;
    if (json) json.schema = { anyOf: [json.schema, envelope.content['application/json'].schema] };
    else at.content['application/json'] = envelope.content['application/json'];
  }
  return {
    operationId: r.id,
    tags: [r.group],
    summary: r.summary,
    security: r.scope ? [{ apiKey: [r.scope] }] : [],
    'x-scope': r.scope,
    'x-batchable': r.batchable ?? false,
    'x-reads': r.kind === 'node' ? 'node' : 'index',
    ...(r.requires?.length ? { 'x-requires-projections': r.requires } : {}),
    'x-as-of': asOfOf(r),
    parameters: parameters(r),
    ...(r.method === 'POST'
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: r.body ? resolveBatch(strip(r.body), batchable) : {} } },
          },
        }
      : {}),
    responses,
  };
}

const DESCRIPTION = [
  'Every data response carries `anchor: {block, hash}`: one canonical pair, and every value in the response was read at that block (R1).',
  'On index routes the anchor is the canonical head the storage snapshot saw (a paged walk keeps the anchor of its first page, R2).',
  'On the four live RPC routes (/rpc/…, `x-reads: node`) the anchor is the node block the request observed first (eth_getBlockByNumber latest), at which every read of the answer was made by hash (EIP-1898), and `source: "node"` says so: the pair is the node\'s view, not the index\'s, so it may be ahead of the index anchor of other routes (or on a fork the index has not followed yet); compare it with an index anchor only by hash.',
  '/contracts/{address}/code reads the node too, at a canonical block of the index: its anchor is the index head and `data.observedAt` the block read.',
  'As of a block: an operation with `x-as-of: {supported: true}` takes `atBlock=N` or `atBlockHash=0x…` and answers what the chain held at the end of block N, anchored at (N, canonical hash of N); a cursor minted there stays there (older than the retained range: 409 cursor_history_pruned); outside the retained range (/health `history`) it answers 410 history_pruned (the bound is enforced on reads; stored history is not pruned), above the committed head 409 block_not_indexed, a hash not canonical 409 block_not_canonical. Every other operation says why it does not (`x-as-of.reason`) and refuses the parameters with 400 bad_request.',
  'Paged responses carry `page: {order, limit, count, stoppedBy, nextCursor}`.',
  'Errors are `{error, detail}` plus code-specific context fields; each error status of each operation lists the codes it can answer.',
  'Every object the service owns is closed (`additionalProperties: false`); raw chain records served byte-exact as the node sent them are open and marked `x-node-record` (chains add fields), and name every standard JSON-RPC field.',
  'Streams are `text/event-stream`; their events are published as `x-itemSchema`.',
  'This document itself (GET /index/v1/openapi.json) is not one of the 115 routes.',
].join(' ');

export function buildOpenApi(routes: Route[], version: string): Record<string, unknown> {
  const batchable = routes.filter((r) => r.batchable);
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {
    ErrorEnvelope: strip(ErrorEnvelope),
    ErrorCodes: strip(Type.Union(Object.keys(ERRORS).map((k) => Type.Literal(k)))),
  };
  for (const r of routes) {
    schemas[r.id] = resolveBatch(strip(r.response), batchable);
    const p = fullPath(r);
    paths[p] ??= {};
    paths[p][r.method.toLowerCase()] = operation(r, batchable);
  }
  paths[METRICS_ENTRY.path] = {
    get: {
      operationId: 'monitoring.metrics',
      tags: [METRICS_ENTRY.group],
      summary: METRICS_ENTRY.summary,
      'x-listener': 'metrics (loopback only)',
      'x-as-of': {
        supported: false,
        reason: 'process metrics (Prometheus exposition), not chain state at a block',
      },
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
    info: { title: 'Chain indexer API', version, description: DESCRIPTION },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas,
    },
    paths,
  };
}
