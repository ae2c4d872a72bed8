/**
 * The scanner's OpenAPI 3.1 document, generated from the registered endpoint definitions (the
 * same list the router mounts) and the error registry: it lists exactly what is registered.
 * Served at GET /v1/openapi.json without a key.
 */

import { routeParameters, strip } from '@chain-indexer/platform/http';
import { Type } from '@sinclair/typebox';
import type { AuthKind, Endpoint } from './endpoint.js';
import { SCANNER_ERRORS, type ScannerErrorCode } from './errors.js';

/** The error envelope every error answers. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'human-readable explanation' }),
    code: Type.Union(
      Object.keys(SCANNER_ERRORS).map((k) => Type.Literal(k)),
      { description: 'machine code (see the scanner error table)' },
    ),
    requestId: Type.String({ description: 'also sent as the x-request-id header' }),
    upgradeUrl: Type.Optional(Type.String({ description: 'API_PLAN_REQUIRED only: where to renew' })),
    retryAfter: Type.Optional(Type.Integer({ description: '429 only: seconds, as the Retry-After header' })),
    required: Type.Optional(
      Type.Integer({ description: 'INSUFFICIENT_CREDITS only: scans the request costs' }),
    ),
    remaining: Type.Optional(Type.Integer({ description: 'INSUFFICIENT_CREDITS only: scans left' })),
  },
  { additionalProperties: false },
);

/** Codes the framework may answer on an endpoint, by who may call it and whether it costs credits. */
export function frameworkCodes(auth: AuthKind, credits: boolean, hasInput: boolean): ScannerErrorCode[] {
  const codes: ScannerErrorCode[] = ['API_KEY_IN_URL', 'SERVER_ERROR'];
  if (hasInput) codes.push('INVALID_INPUT');
  if (auth === 'key')
    codes.push(
      'INVALID_INPUT',
      'API_KEY_INVALID',
      'API_KEY_REVOKED',
      'API_KEY_BROWSER_NOT_ALLOWED',
      'API_KEY_IP_NOT_ALLOWED',
      'API_PLAN_REQUIRED',
      'FORBIDDEN',
      'API_KEY_RATE_LIMITED',
      'RATE_LIMITED',
      'INTERNAL_ERROR',
    );
  if (auth === 'session') codes.push('API_KEY_ROUTE_NOT_ALLOWED', 'SESSION_INVALID', 'INTERNAL_ERROR');
  if (credits) codes.push('INSUFFICIENT_CREDITS');
  return codes;
}

const parameters = (ep: Endpoint) => routeParameters(ep.spec.params, ep.spec.query);

const SECURITY: Record<AuthKind, unknown[]> = {
  key: [{ bearerKey: [] }, { apiKeyHeader: [] }],
  session: [{ dashboardSession: [] }],
  public: [],
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': {
    description: "the lower of the key's and the account's per-minute limits",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description:
      'requests left in the fuller of the two rolling 60 s windows (an estimate under concurrency)',
    schema: { type: 'integer' },
  },
};

/** Builds the document from the registered endpoints. */
export function buildScannerOpenApi(
  endpoints: readonly Endpoint[],
  version: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const ep of endpoints) {
    const s = ep.spec;
    const credits = !!s.credits;
    const hasInput = !!(s.body || Object.keys(s.params ?? {}).length || Object.keys(s.query ?? {}).length);
    const codes = new Set([...frameworkCodes(s.auth, credits, hasInput), ...(s.errors ?? [])]);
    const byStatus = new Map<number, ScannerErrorCode[]>();
    for (const c of codes)
      byStatus.set(SCANNER_ERRORS[c].status, [...(byStatus.get(SCANNER_ERRORS[c].status) ?? []), c]);
    const responses: Record<string, unknown> = {
      [String(s.status ?? 200)]: {
        description: 'OK',
        headers: s.auth === 'key' ? RATE_HEADERS : undefined,
        content: { 'application/json': { schema: strip(ep.publishedResponse) } },
      },
    };
    for (const [st, list] of [...byStatus].sort((a, b) => a[0] - b[0]))
      responses[String(st)] = {
        description: list.map((c) => `${c}: ${SCANNER_ERRORS[c].meaning}`).join('; '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    paths[s.path] ??= {};
    paths[s.path][s.method.toLowerCase()] = {
      operationId: s.id,
      tags: [s.tag],
      summary: s.summary,
      description: s.description,
      security: SECURITY[s.auth],
      'x-auth': s.auth,
      'x-credits': s.credits ? s.credits.rule : 'free',
      'x-rate-limited': s.auth === 'key',
      parameters: parameters(ep),
      ...(s.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: strip(s.body) } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Scanner API',
      version,
      description:
        'The companion scanner API: its own keys (sk_live_…), plans, rate limits and credits; its keys never authorize the indexer. Errors are `{error, code, requestId}` (requestId also in the x-request-id header). Key endpoints carry X-RateLimit-Limit and X-RateLimit-Remaining on success; 429s carry Retry-After. Account, billing and admin endpoints need a dashboard session (Authorization: Bearer ds_…) and refuse keys.',
    },
    components: {
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_live_ + 43 letters and digits' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        dashboardSession: { type: 'http', scheme: 'bearer', bearerFormat: 'ds_ + 43 letters and digits' },
      },
      schemas: { ErrorEnvelope: strip(ErrorEnvelope) },
    },
    paths,
  };
}
