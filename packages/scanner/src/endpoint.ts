/**
 * The endpoint-definition API: an endpoint is a file that exports one `defineEndpoint({...})`.
 * It declares its path and method, who may call it (`auth`), its TypeBox schemas (path params,
 * query, body, response), the errors its handler may answer, for credit-consuming endpoints its
 * credit rule (cost and cache-key normaliser), and its handler. The router, the request
 * validators (compiled once here) and the OpenAPI document are all generated from the same
 * definitions, so they cannot drift.
 *
 * What the framework does around a handler (dispatch.ts), so an endpoint never repeats it:
 * - every request: a `requestId` (body and `x-request-id` header); a key in the URL is refused;
 * - `auth: 'key'`: one credential, browser rule, invalid-key limit per IP, key lookup and state,
 *   IP allowlist, plan and API access, the key and account rate windows, `X-RateLimit-*` headers,
 *   and a usage count of the answer;
 * - `auth: 'session'`: a dashboard session token, and 403 API_KEY_ROUTE_NOT_ALLOWED for any key;
 * - `credits`: a cached answer for the same normalised parameters within the cache window is
 *   served for free (`cached: true`); otherwise the cost is held, the handler runs, and the
 *   charge, usage row and cached body are written in one atomic batch before the answer is sent;
 *   a handler that throws is charged nothing;
 * - validation of params, query and body (400 INVALID_INPUT), and the error envelope.
 *
 * Phase 2 adds scan endpoints as new files in endpoints/ written against this API only.
 */
import { type Static, type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Accounts } from './accounts.js';
import type { KeyDirectory } from './directory.js';
import { ScannerError, type ScannerErrorCode } from './errors.js';
import type { IndexPort } from './index-port.js';
import type { Ledger } from './ledger.js';
import type { AccountRecord, KeyRecord, SessionRecord } from './model.js';

/** Who may call an endpoint: an API key, a dashboard session, or anyone. */
export type AuthKind = 'key' | 'session' | 'public';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';

/** The caller of a key endpoint, after every check passed. */
export interface KeyCaller {
  account: AccountRecord;
  key: KeyRecord;
  /** The plan's requests per minute (each of the key's and the account's windows). */
  limitPerMinute: number;
}

/** The caller of a dashboard endpoint. */
export interface SessionCaller {
  account: AccountRecord;
  session: SessionRecord;
}

/** Service parts handlers may use (whoami, usage and the dashboard use them; scans use `index`). */
export interface Services {
  accounts: Accounts;
  directory: KeyDirectory;
  ledger: Ledger;
  /** Where a lapsed account is sent to renew (SCANNER_UPGRADE_URL). */
  upgradeUrl: string;
}

type BodyOf<B> = B extends TSchema ? Static<B> : undefined;

/** The parsed, validated request parts of an endpoint. */
export interface EndpointInput<P extends TProperties, Q extends TProperties, B> {
  params: Static<TObject<P>>;
  query: Static<TObject<Q>>;
  body: BodyOf<B>;
}

/** What a handler receives. `caller` is typed by the endpoint's `auth`. */
export type HandlerCtx<A extends AuthKind, P extends TProperties, Q extends TProperties, B> = EndpointInput<
  P,
  Q,
  B
> & {
  requestId: string;
  /** The service clock at dispatch (ms). */
  now: number;
  /** The client's IP (canonical text), as allowlists see it. */
  ip: string;
  /** The index the answer is read from (the seam phase 2 fills). */
  index: IndexPort;
  services: Services;
  caller: A extends 'key' ? KeyCaller : A extends 'session' ? SessionCaller : null;
};

/**
 * The credit rule of a credit-consuming endpoint (key endpoints only).
 * The response the client sees is the handler's object plus `cached: boolean`, added by the
 * framework (the declared response schema must not have `cached`; the published one does).
 * The handler puts the anchor it read at in its object, so a cached answer repeats that anchor.
 */
export interface CreditRule<I> {
  /**
   * Scans this request costs, a whole number ≥ 0 (0: free, nothing cached). Runs after validation,
   * before the handler; it may read the index (e.g. whether an address is a token or a wallet). A
   * throw refuses the request, charging nothing.
   */
  cost(input: I & { index: IndexPort }): number;
  /**
   * Normalises the parameters that determine the answer (e.g. lower-cased address + depth):
   * requests of one account with the same string within the cache window get the first answer
   * again, free. Must not include volatile inputs (request ids, time).
   */
  cacheKey(input: I): string;
  /** How long an answer is served again for free, ms; default SCANNER_CACHE_SECONDS. */
  cacheMs?: number;
  /** The rule in words, published in the OpenAPI document (`x-credits`), e.g. "quick 1, deep 2". */
  rule: string;
}

/** An endpoint as written in its file. */
export interface EndpointSpec<
  A extends AuthKind,
  P extends TProperties,
  Q extends TProperties,
  B extends TSchema | undefined,
  R extends TSchema,
> {
  /** Stable id: the OpenAPI operationId (e.g. `whoami`, `account.keys.create`). */
  id: string;
  method: Method;
  /** Absolute OpenAPI-style path under `/v1`, parameters as `{name}`. */
  path: string;
  auth: A;
  /** OpenAPI tag (group). */
  tag: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Success status (default 200). */
  status?: 200 | 201;
  response: R;
  /** Codes the handler itself may throw (the framework's codes are added from `auth`/`credits`). */
  errors?: readonly ScannerErrorCode[];
  credits?: A extends 'key' ? CreditRule<EndpointInput<P, Q, B>> : never;
  handler(ctx: HandlerCtx<A, P, Q, B>): Static<R> | Promise<Static<R>>;
}

/** Parses string-valued inputs (path or query) by their schema; throws 400 INVALID_INPUT. */
export interface CompiledStrings {
  parse(raw: Record<string, string>): Record<string, unknown>;
}

/** A registered endpoint: its spec (type-erased) and its validators, compiled once. */
export interface Endpoint {
  spec: EndpointSpec<AuthKind, TProperties, TProperties, TSchema | undefined, TSchema>;
  /** Path parameter names in path order. */
  paramNames: string[];
  params: CompiledStrings;
  query: CompiledStrings;
  /** Validates a parsed JSON body; null when the endpoint takes none. */
  body: ((v: unknown) => unknown) | null;
  /** The response schema as published (with `cached` for credit endpoints). */
  publishedResponse: TSchema;
}

const INT_RE = /^-?(0|[1-9][0-9]{0,15})$/;

function compileStrings(props: TProperties | undefined, what: 'path' | 'query'): CompiledStrings {
  const schema: TObject = Type.Object(props ?? {}, { additionalProperties: false });
  const check = TypeCompiler.Compile(schema);
  const names = Object.keys(schema.properties);
  return {
    parse(raw) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(raw)) {
        const s = schema.properties[k] as { type?: string } | undefined;
        if (!s) throw new ScannerError('INVALID_INPUT', `unknown ${what} parameter "${k.slice(0, 64)}"`);
        const v = raw[k];
        out[k] =
          s.type === 'integer' || s.type === 'number'
            ? INT_RE.test(v)
              ? Number(v)
              : v
            : s.type === 'boolean'
              ? v === 'true'
                ? true
                : v === 'false'
                  ? false
                  : v
              : v;
      }
      if (!check.Check(out)) {
        const e = check.Errors(out).First();
        const name = e?.path.replace(/^\//, '') || '';
        throw new ScannerError(
          'INVALID_INPUT',
          `invalid ${what} parameter "${name}": ${e?.message ?? 'invalid'}`,
        );
      }
      for (const k of names) {
        const d = (schema.properties[k] as { default?: unknown }).default;
        if (out[k] === undefined && d !== undefined) out[k] = d;
      }
      return out;
    },
  };
}

function compileBody(schema: TSchema): (v: unknown) => unknown {
  const check = TypeCompiler.Compile(schema);
  return (v) => {
    if (!check.Check(v)) {
      const e = check.Errors(v).First();
      throw new ScannerError(
        'INVALID_INPUT',
        `invalid body${e?.path ? ` at "${e.path}"` : ''}: ${e?.message ?? 'does not match the schema'}`,
      );
    }
    return v;
  };
}

/**
 * Defines an endpoint: checks the definition and compiles its validators once.
 * @throws Error on a definition mistake (path outside /v1, credits on a non-key endpoint, a
 *   credit endpoint whose response is not an object or already has `cached`).
 */
export function defineEndpoint<
  A extends AuthKind,
  P extends TProperties = {},
  Q extends TProperties = {},
  B extends TSchema | undefined = undefined,
  R extends TSchema = TSchema,
>(spec: EndpointSpec<A, P, Q, B, R>): Endpoint {
  if (!/^\/v1\/[a-z0-9\-/{}A-Za-z._]*$/.test(spec.path))
    throw new Error(`${spec.id}: path must be under /v1/`);
  const paramNames = [...spec.path.matchAll(/\{([a-zA-Z_]+)\}/g)].map((m) => m[1]);
  const declared = Object.keys(spec.params ?? {});
  if (paramNames.join() !== declared.join())
    throw new Error(`${spec.id}: path parameters ${paramNames} differ from declared params ${declared}`);
  let publishedResponse: TSchema = spec.response;
  if (spec.credits) {
    if (spec.auth !== 'key') throw new Error(`${spec.id}: only key endpoints consume credits`);
    const r = spec.response as unknown as TObject;
    if (r.type !== 'object' || !r.properties)
      throw new Error(`${spec.id}: a credit endpoint answers an object`);
    if ('cached' in r.properties) throw new Error(`${spec.id}: "cached" is added by the framework`);
    publishedResponse = Type.Object(
      {
        ...r.properties,
        cached: Type.Boolean({
          description: 'true when this is an earlier answer to the same normalised request, served free',
        }),
      },
      { description: r.description },
    );
  }
  return {
    spec: spec as unknown as Endpoint['spec'],
    paramNames,
    params: compileStrings(spec.params, 'path'),
    query: compileStrings(spec.query, 'query'),
    body: spec.body ? compileBody(spec.body) : null,
    publishedResponse,
  };
}
