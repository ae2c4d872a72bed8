/**
 * Response validation against the published contract: every body an e2e test receives from the
 * indexer is checked against its route's schema (200) or the error envelope with a code the route
 * declares (other statuses). A body that breaks its own contract — a missing field, a field the
 * schema does not name on a closed object, a wrong type, an undeclared error code — fails the test
 * that received it. Batch items are checked against their own route's schema too.
 */

import type { Route } from '@chain-indexer/indexer/server';
import { declaredErrors, fullPath, routes } from '@chain-indexer/indexer/server';
import { type TSchema, Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';

interface Matcher {
  route: Route;
  re: RegExp;
  statics: number;
  check?: TypeCheck<TSchema>;
}

const ERROR_ENVELOPE = TypeCompiler.Compile(
  Type.Object({ error: Type.String(), detail: Type.String() }, { additionalProperties: true }),
);

const matchers: Matcher[] = routes
  .map((route) => {
    const segs = fullPath(route).split('/');
    const re = new RegExp(
      `^${segs.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.]/g, '\\.'))).join('/')}$`,
    );
    return { route, re, statics: segs.filter((s) => s && !s.startsWith('{')).length };
  })
  // Static segments win over parameters (uWS's own precedence): /pools/new before /pools/{address}.
  .sort((a, b) => b.statics - a.statics);

/** The route serving `method path` (path without query), or undefined. */
export function routeOf(method: string, path: string): Route | undefined {
  const m = matchers.find((x) => x.route.method === method && x.re.test(path));
  return m?.route;
}

function checker(m: Matcher): TypeCheck<TSchema> {
  m.check ??= TypeCompiler.Compile(m.route.response);
  return m.check;
}

/** Thrown when a response breaks the contract. */
export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

function describeErrors(check: TypeCheck<TSchema>, body: unknown): string {
  return [...check.Errors(body)]
    .slice(0, 8)
    .map((e) => `  ${e.path || '/'}: ${e.message} (got ${JSON.stringify(e.value)?.slice(0, 120)})`)
    .join('\n');
}

/**
 * Validates one response. `path` may include the query string.
 * @throws ContractViolation naming the route, the status and the first violations.
 */
export function assertContract(
  method: string,
  path: string,
  status: number,
  body: unknown,
  text: string,
): void {
  const p = path.split('?')[0];
  const m = matchers.find((x) => x.route.method === method && x.re.test(p));
  if (!m) {
    // Not a route of the contract (a 404 for an unknown path, the OpenAPI document itself).
    if (status >= 400 && !ERROR_ENVELOPE.Check(body))
      throw new ContractViolation(
        `${method} ${path} → ${status}: not the error envelope: ${text.slice(0, 300)}`,
      );
    return;
  }
  const r = m.route;
  if (status === 200) {
    if (r.mediaType && r.mediaType !== 'application/json') {
      // A stream route may also answer JSON on 200 (a declared alternate, e.g. the candle-selection
      // mutation of /stream/subscribe): a JSON body is validated against it.
      const alt = r.alternates?.find(
        (a) => a.status === 200 && (a.mediaType ?? 'application/json') === 'application/json',
      );
      if (!alt || body === undefined || body === null || typeof body !== 'object') return;
      const ac = TypeCompiler.Compile(alt.schema);
      if (!ac.Check(body))
        throw new ContractViolation(
          `${method} ${path} (${r.id}) → 200 (JSON) breaks its declared JSON answer:\n${describeErrors(ac, body)}`,
        );
      return;
    }
    const check = checker(m);
    if (!check.Check(body))
      throw new ContractViolation(
        `${method} ${path} (${r.id}) → 200 breaks its response schema:\n${describeErrors(check, body)}`,
      );
    if (r.id === 'batch') assertBatchItems(body as BatchBody);
    return;
  }
  const alt = r.alternates?.find((a) => a.status === status);
  if (alt) {
    const check = TypeCompiler.Compile(alt.schema);
    if (check.Check(body)) return;
    if (!ERROR_ENVELOPE.Check(body))
      throw new ContractViolation(
        `${method} ${path} (${r.id}) → ${status} breaks its declared ${status} body:\n${describeErrors(check, body)}`,
      );
  }
  if (!ERROR_ENVELOPE.Check(body))
    throw new ContractViolation(
      `${method} ${path} (${r.id}) → ${status}: not the error envelope: ${text.slice(0, 300)}`,
    );
  const code = (body as { error: string }).error;
  if (!declaredErrors(r).has(code as never))
    throw new ContractViolation(
      `${method} ${path} (${r.id}) → ${status} ${code}: a code the route does not declare (${[...declaredErrors(r)].join(', ')})`,
    );
}

/**
 * Validates one Server-Sent Event a stream route sent: its event name must be one the route
 * declares (SseEvents), a durable event must carry an id and a control event none, and its data
 * must match the event's schema. Routes whose frames are still open (a plain string response,
 * listed in contract.pending.json) are not checked.
 * @throws ContractViolation naming the route, the event and the first violations.
 */
export function assertFrame(path: string, event: string, id: string | null, data: unknown): void {
  const p = path.split('?')[0];
  const m = matchers.find((x) => x.route.method === 'GET' && x.re.test(p));
  if (!m) throw new ContractViolation(`${p}: not a route of the contract`);
  const union = m.route.response as { 'x-sse-events'?: boolean; anyOf?: TSchema[] };
  if (!union['x-sse-events'] || !union.anyOf) return;
  const member = union.anyOf.find(
    (e) => (e as { properties?: { event?: { const?: string } } }).properties?.event?.const === event,
  );
  if (!member)
    throw new ContractViolation(`${p} (${m.route.id}): event "${event}" is not declared by the route`);
  const frame = { event, id: id === '' ? null : id, data };
  const check = TypeCompiler.Compile(member);
  if (!check.Check(frame))
    throw new ContractViolation(
      `${p} (${m.route.id}) event ${event} breaks its frame schema:\n${describeErrors(check, frame)}`,
    );
}

interface BatchBody {
  results: Array<{ route: string; status: number; body?: unknown; error?: unknown }>;
}

function assertBatchItems(b: BatchBody): void {
  for (const item of b.results) {
    const m = matchers.find((x) => x.route.path === item.route || x.route.id === item.route);
    if (!m) continue;
    if (item.status === 200) {
      const check = checker(m);
      if (!check.Check(item.body))
        throw new ContractViolation(
          `batch item ${item.route} (${m.route.id}) → 200 breaks its response schema:\n${describeErrors(check, item.body)}`,
        );
    } else if (!ERROR_ENVELOPE.Check(item.error)) {
      throw new ContractViolation(`batch item ${item.route} → ${item.status}: not the error envelope`);
    }
  }
}

/**
 * Listens for `events` on a stream opened on `/index/v1/testnet<path>`: each frame's data is
 * parsed and checked with {@link assertFrame} (a broken frame's message goes to `violations`, so a
 * suite reports every one at its end), then handed to `take` with the message.
 */
export function checkFrames(
  es: { addEventListener(type: string, listener: (m: MessageEvent) => void): void },
  path: string,
  events: readonly string[],
  violations: string[],
  take: (event: string, data: any, m: MessageEvent) => void,
): void {
  for (const e of events)
    es.addEventListener(e, (m: MessageEvent) => {
      const data = JSON.parse(m.data);
      try {
        assertFrame(`/index/v1/testnet${path}`, e, m.lastEventId || null, data);
      } catch (err) {
        violations.push((err as Error).message);
      }
      take(e, data, m);
    });
}
