/**
 * The scanner's one error type and the registry of its codes. Every error response is the envelope
 * `{error, code, requestId}` (plus the extra fields a code declares, e.g. `upgradeUrl`,
 * `retryAfter`): `error` is a human sentence, `code` the stable machine code below, and the
 * `requestId` is also sent as the `x-request-id` header. Whether a code may be retried is decided
 * here, once.
 *
 * The first thirteen codes are the spec's scanner error table, verbatim. The rest cover cases the
 * table does not name (a missing route, a dashboard session, the per-account key ceiling, an
 * unexpected failure); they are documented in docs/scanner.md beside the others.
 */
import { redactDeep, redactKnown } from '@chain-indexer/platform/security';

/** Every machine code the scanner answers, with its HTTP status and a one-line meaning. */
export const SCANNER_ERRORS = {
  API_KEY_IN_URL: { status: 400, meaning: 'a key was sent in the URL (path or query): roll that key' },
  INVALID_INPUT: {
    status: 400,
    meaning: 'more than one credential, or a malformed parameter or body',
  },
  API_KEY_INVALID: { status: 401, meaning: 'no key, a malformed key, or a key that does not exist' },
  API_KEY_REVOKED: { status: 401, meaning: 'the key was revoked, or its rotation grace ended' },
  API_KEY_BROWSER_NOT_ALLOWED: {
    status: 403,
    meaning: 'browser request (Origin with Sec-Fetch-Mode cors/navigate, or any Sec-Fetch-Site)',
  },
  API_KEY_ROUTE_NOT_ALLOWED: {
    status: 403,
    meaning: 'account, billing and admin endpoints are unavailable with a key (use a dashboard session)',
  },
  API_KEY_IP_NOT_ALLOWED: { status: 403, meaning: "the caller's IP is not on the key's allowlist" },
  API_PLAN_REQUIRED: {
    status: 403,
    meaning: "the account's plan lacks API access (none, lapsed); body includes `upgradeUrl`",
  },
  FORBIDDEN: { status: 403, meaning: 'API access is switched off for the account' },
  INSUFFICIENT_CREDITS: { status: 402, meaning: 'not enough scans left for this request' },
  API_KEY_RATE_LIMITED: {
    status: 429,
    meaning: "the key's or the account's per-minute limit is reached; wait `Retry-After` seconds",
  },
  RATE_LIMITED: {
    status: 429,
    meaning: '30 invalid keys per minute from this IP; wait `Retry-After` seconds',
  },
  INTERNAL_ERROR: {
    status: 503,
    meaning: 'key verification briefly unavailable (key directory out of contact); retry',
  },
  // Codes the spec's table does not name.
  SESSION_INVALID: {
    status: 401,
    meaning: 'dashboard endpoint without a valid, unexpired dashboard session token',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'no such endpoint, no such key on this account, or the subject is absent at the anchored block',
  },
  API_KEY_LIMIT_REACHED: {
    status: 409,
    meaning: 'the account already has 5 active keys (keys in their rotation grace do not count)',
  },
  SERVER_ERROR: { status: 500, meaning: 'an unexpected failure; logged, nothing charged' },
  CHAIN_NOT_CONFIGURED: {
    status: 404,
    meaning:
      'the chain this endpoint reads is not configured: no index attached (standalone scanner), or no `rh` chain for the /rh/ family (SCANNER_RH_CHAIN, or DEVNET_CHAINS=2); `missing` names it',
  },
  INDEX_UNAVAILABLE: {
    status: 503,
    meaning:
      'the index cannot vouch for an answer now (nothing indexed yet, a projection building or stale, ingest halted, a replica lagging, a node read failed); `reason` names it; retry with backoff',
  },
} as const;

/** A machine code of {@link SCANNER_ERRORS}. */
export type ScannerErrorCode = keyof typeof SCANNER_ERRORS;

/**
 * A scanner refusal: stable machine `code`, its HTTP `status`, a short human `message` (never a
 * secret: no key, token or raw URL is ever put in it), extra body fields and extra headers.
 */
export class ScannerError extends Error {
  override readonly name = 'ScannerError';
  readonly status: number;
  /** Extra response headers (Retry-After). */
  readonly headers: Array<[string, string]>;
  constructor(
    readonly code: ScannerErrorCode,
    message: string,
    readonly extra?: Record<string, unknown>,
    headers: Array<[string, string]> = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = SCANNER_ERRORS[code].status;
    this.headers = headers;
  }
  /** Only 429 (after Retry-After) and 503 (with backoff and jitter) may be retried as sent. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
  /**
   * The envelope body `{error, code, requestId, ...extra}`. The message and every string of
   * `extra` pass the redaction of the configuration's secrets by value (platform/src/redact.ts
   * `redactKnown`: a refusal relayed from the index may quote a node's error); URLs of the
   * scanner's own (`upgradeUrl`) are kept whole.
   */
  envelope(requestId: string): Record<string, unknown> {
    const extra = this.extra
      ? (redactDeep(this.extra, 0, redactKnown) as Record<string, unknown>)
      : undefined;
    return { error: redactKnown(this.message), code: this.code, requestId, ...extra };
  }
}

/** A 429 with `Retry-After` (whole seconds, at least 1) in the header and the body. */
export function retryLater(
  code: 'API_KEY_RATE_LIMITED' | 'RATE_LIMITED',
  message: string,
  retryAfterMs: number,
): ScannerError {
  const s = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ScannerError(code, message, { retryAfter: s }, [['retry-after', String(s)]]);
}
