/**
 * The shape of an error registry, shared by the products: a registry maps every machine code to
 * its HTTP status and a one-line meaning ({@link ErrorSpec}), and {@link ServiceError} is the base
 * of the errors raised with a code of one. The indexer's registry (its codes, `ServiceError` bound
 * to them, `DomainError`) lives in the indexer (packages/indexer/src/errors); the scanner reads the
 * indexer's refusals through this base (`instanceof ServiceError`, `code`, `detail`, `extra`).
 * Whether a failure is retryable is decided here, once: only 429 and 503 are.
 */
import { redact, redactDeep } from './redact.js';

/** One code of a registry: its HTTP status and a one-line meaning. */
export interface ErrorSpec {
  readonly status: number;
  readonly meaning: string;
}

/** A registry: every machine code `C` with its {@link ErrorSpec}. */
export type ErrorRegistry<C extends string = string> = { readonly [K in C]: ErrorSpec };

/**
 * An error with a stable machine `code` of `registry`, a short human `detail` and extra fields.
 * A product binds it to its registry in a subclass (the indexer's `ServiceError`).
 */
export class ServiceError<C extends string = string> extends Error {
  override readonly name: string = 'ServiceError';
  readonly status: number;
  /** Extra response headers (Retry-After, RateLimit-*). */
  headers: Array<[string, string]> = [];
  constructor(
    registry: ErrorRegistry<C>,
    readonly code: C,
    readonly detail: string,
    readonly extra?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(`${code}: ${detail}`, options);
    this.status = registry[code].status;
  }
  /** Only 429 and 503 may be retried (429 after Retry-After, 503 with backoff and jitter). */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
  /** The envelope `{error, detail, ...extra}`; the detail and every string of `extra` pass the one redaction (redact.ts). */
  toJSON(): Record<string, unknown> {
    const extra = this.extra ? (redactDeep(this.extra) as Record<string, unknown>) : undefined;
    return { error: this.code, detail: redact(this.detail), ...extra };
  }
}
