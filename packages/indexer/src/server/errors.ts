/**
 * The HTTP layer's error: {@link ServiceError} with any code of the registry (src/errors), so
 * framework refusals (401, 403, 413, 422, 429) and domain refusals share one envelope and one
 * status table.
 */
import { type ErrorCode, ServiceError } from '../errors/index.js';

export { DomainError, type DomainErrorCode, ERRORS, type ErrorCode, ServiceError } from '../errors/index.js';

/** An API refusal: stable machine `code`, HTTP `status`, short human `detail`, optional extra fields. */
export class ApiError extends ServiceError {
  override readonly name = 'ApiError';
  // biome-ignore lint/complexity/noUselessConstructor: narrows the public signature to ErrorCode
  constructor(code: ErrorCode, detail: string, extra?: Record<string, unknown>, options?: ErrorOptions) {
    super(code, detail, extra, options);
  }
}
