/**
 * Per-key, per-route-class rate limits with continuous refill (GCRA: the generic cell rate
 * algorithm, equivalent to a token bucket without a timer). No fixed minute boundary.
 * A class with no configured limit for the key is not limited and sends no headers.
 */
import { ApiError } from './errors.js';
import type { Scope } from './route.js';

/** A limit: `perSecond` sustained rate and `burst` requests allowed at once. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface RateDecision {
  headers: Array<[string, string]>;
}

export interface RateLimiter {
  /**
   * Charges one request of `scope` to `key`. Returns the headers to send (none when unlimited).
   * @throws ApiError rate_limited (429) with `retryAfter` seconds when over the limit.
   */
  charge(
    key: string,
    scope: Scope,
    limits: Partial<Record<Scope, RateLimit>> | undefined,
    nowMs?: number,
  ): RateDecision;
}

/** Bound on tracked (key, class) cells: keys are configured, so this only guards misuse. */
const MAX_CELLS = 100_000;

/**
 * One GCRA check of a cell whose theoretical arrival time is `tat` (none yet: undefined), for a
 * request at `nowMs` that may come `tolerance` ms early: `t`, the arrival time it is charged
 * against, and `retryAfter`, whole seconds (at least 1) until it would be allowed, or 0 when it is
 * allowed now.
 */
export function gcra(
  tat: number | undefined,
  tolerance: number,
  nowMs: number,
): { t: number; retryAfter: number } {
  const t = Math.max(tat ?? nowMs, nowMs);
  const allowAt = t - tolerance;
  return { t, retryAfter: nowMs < allowAt ? Math.max(1, Math.ceil((allowAt - nowMs) / 1000)) : 0 };
}

/** The refusal of a request over a rate limit: rate_limited (429) with `retryAfter` and `headers`. */
export function rateLimited(detail: string, retryAfter: number, headers: Array<[string, string]>): ApiError {
  const err = new ApiError('rate_limited', detail, { retryAfter });
  err.headers = headers;
  return err;
}

export function createRateLimiter(): RateLimiter {
  // Theoretical arrival time per (key, class), milliseconds.
  const tat = new Map<string, number>();
  return {
    charge(key, scope, limits, nowMs = Date.now()) {
      const lim = limits?.[scope];
      if (!lim) return { headers: [] };
      const id = `${key}\u0000${scope}`;
      const interval = 1000 / lim.perSecond;
      const tolerance = interval * (lim.burst - 1);
      const { t, retryAfter } = gcra(tat.get(id), tolerance, nowMs);
      if (retryAfter)
        throw rateLimited(
          `rate limit of ${lim.perSecond}/s (burst ${lim.burst}) for "${scope}" reached`,
          retryAfter,
          [
            ['ratelimit-limit', String(lim.burst)],
            ['ratelimit-remaining', '0'],
            ['ratelimit-reset', String(retryAfter)],
            ['retry-after', String(retryAfter)],
          ],
        );
      const next = t + interval;
      if (tat.size >= MAX_CELLS && !tat.has(id)) tat.clear();
      tat.set(id, next);
      const remaining = Math.max(0, Math.floor((nowMs + tolerance - next) / interval) + 1);
      const reset = Math.max(0, Math.ceil((next - nowMs) / 1000));
      return {
        headers: [
          ['ratelimit-limit', String(lim.burst)],
          ['ratelimit-remaining', String(Math.min(remaining, lim.burst))],
          ['ratelimit-reset', String(reset)],
        ],
      };
    },
  };
}
