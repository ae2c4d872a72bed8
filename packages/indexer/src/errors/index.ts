/**
 * The one error registry of the service (docs/CONTRIBUTING.md habit 3): every machine code with its HTTP
 * status and meaning, and the error base class. Domains raise {@link DomainError} with a code of
 * the registry; the server maps every {@link ServiceError} to the envelope `{error, detail, ...}`
 * by this table, in one place (src/server/index.ts). Whether a failure is retryable is decided
 * here, once: only 429 and 503 are (the registry's shape and the base class are the platform's,
 * packages/platform/src/errors.ts).
 */
import { ServiceError as BaseServiceError } from '@chain-indexer/platform/errors';

/** Every machine code the API answers, with its HTTP status and a one-line meaning. */
export const ERRORS = {
  bad_request: { status: 400, meaning: 'malformed input, unknown query parameter, or a refused combination' },
  bad_cursor: {
    status: 400,
    meaning: 'cursor forged, truncated, or minted for another chain, route or order',
  },
  unauthorized: { status: 401, meaning: 'missing or unknown x-api-key' },
  insufficient_scope: { status: 403, meaning: 'the key lacks the scope of this route class (not charged)' },
  connection_not_owned: {
    status: 403,
    meaning: 'the stream connection named by `connection` was opened with another key',
  },
  quote_ambiguous: {
    status: 400,
    meaning: 'several quotes and none has USD-markable volume: name one (candidates listed)',
  },
  not_found: { status: 404, meaning: 'subject absent at the anchored block, or no such route' },
  unknown_chain: { status: 404, meaning: 'the chain in the path is not served here' },
  method_not_allowed: { status: 405, meaning: 'the route exists for another method' },
  stale_cursor: {
    status: 409,
    meaning: "the cursor's anchor block is no longer canonical: restart from page one",
  },
  cursor_history_pruned: {
    status: 409,
    meaning: 'the cursor is older than retained history: restart from page one',
  },
  block_not_indexed: {
    status: 409,
    meaning:
      'atBlock/atBlockHash names a block above the committed head (the body names headBlock): retry once it is indexed',
  },
  block_not_canonical: {
    status: 409,
    meaning:
      'atBlockHash names a block that is not on the canonical chain the index holds (unknown or reorged out)',
  },
  history_pruned: {
    status: 410,
    meaning:
      'atBlock/atBlockHash names a block older than the retained history (HISTORY_RETENTION); the body names oldestRetainedBlock',
  },
  quote_not_admitted: { status: 409, meaning: 'the named quote is not admissible for this token' },
  walk_budget_exceeded: {
    status: 409,
    meaning:
      "the page would examine more rows than one request may to read as of the cursor's anchor or the atBlock asked for (rows changed since): restart from page one, or ask for a more recent block",
  },
  payload_too_large: { status: 413, meaning: 'request body or batch item past its size budget' },
  invalid_json_body: { status: 422, meaning: 'JSON body of the wrong shape' },
  query_too_broad: { status: 422, meaning: 'a query too broad to serve as asked' },
  rate_limited: { status: 429, meaning: 'rate limit or open-stream ceiling reached' },
  not_ready: { status: 503, meaning: 'nothing indexed yet for this chain' },
  projection_unavailable: {
    status: 503,
    meaning: 'the projection behind this route is building, stale or disabled',
  },
  ingest_halted: {
    status: 503,
    meaning: 'ingest for this chain halted (for example a reorg deeper than the window)',
  },
  replica_lagging: {
    status: 503,
    meaning:
      'this read replica is further behind its writer than its configured lag: retry or use another replica',
  },
  node_unavailable: { status: 503, meaning: 'the bounded node read failed or timed out' },
  internal: { status: 500, meaning: 'an unexpected failure; reported, never a partial answer' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** Codes a domain reader or projection may raise (the rest belong to the HTTP layer). */
export type DomainErrorCode = Exclude<
  ErrorCode,
  | 'unauthorized'
  | 'insufficient_scope'
  | 'connection_not_owned'
  | 'unknown_chain'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'invalid_json_body'
  | 'internal'
>;

/**
 * An error with a stable machine `code` from {@link ERRORS}, a short human `detail` and extra fields
 * (the registry-independent part — status, headers, retryable, the envelope `{error, detail,
 * ...extra}` — is the platform's {@link BaseServiceError}, which the scanner reads).
 */
export class ServiceError extends BaseServiceError<ErrorCode> {
  constructor(code: ErrorCode, detail: string, extra?: Record<string, unknown>, options?: ErrorOptions) {
    super(ERRORS, code, detail, extra, options);
  }
}

/**
 * A refusal raised by a domain (a subject absent at the anchor, a quote rule failing, a cursor of
 * another fork, a projection not ready). It carries no HTTP concern beyond its registry code.
 */
export class DomainError extends ServiceError {
  override readonly name = 'DomainError';
  // biome-ignore lint/complexity/noUselessConstructor: narrows `code` to the domain's codes
  constructor(
    code: DomainErrorCode,
    detail: string,
    extra?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(code, detail, extra, options);
  }
}
