/**
 * A rate limit per client address, for routes that run before (or without) a key's own limits:
 * `POST /console/session`. Continuous refill (GCRA, as rate-limit.ts): `perMinute` sustained,
 * `burst` at once, no fixed minute boundary. An IPv4 client counts by its address, an IPv6 client
 * by its /64 (one host holds a whole /64), and requests whose client is unknown (an undeclared
 * proxy on this host: platform/proxy.ts) share one bucket.
 */
import type { IpAddress } from '@chain-indexer/platform/security';
import { gcra, rateLimited } from './rate-limit.js';

/** A limit: `perMinute` requests sustained (per minute), `burst` requests at once. */
export interface AddressLimit {
  perMinute: number;
  burst: number;
}

export interface AddressLimiter {
  /**
   * Charges one request of `client` (null: unknown).
   * @throws ApiError rate_limited (429) with `retryAfter` seconds (body and `Retry-After`) when
   *   the client is over the limit; nothing is charged then.
   */
  charge(client: IpAddress | null, nowMs?: number): void;
}

/** Clients tracked at once; past it the idle ones are dropped, then all (a guard, not a limit). */
const MAX_CLIENTS = 100_000;

/** The bucket of a client: the IPv4 address, the /64 of an IPv6 address, or `unknown`. */
const bucketOf = (c: IpAddress | null): string =>
  c === null ? 'unknown' : c.v === 4 ? `4:${c.n}` : `6:${c.n >> 64n}`;

/**
 * A limiter of `limit` per client address.
 * @param what names what is limited in the refusal's detail (e.g. `console session`).
 */
export function createAddressLimiter(limit: AddressLimit, what: string): AddressLimiter {
  const interval = 60_000 / limit.perMinute;
  const tolerance = interval * (limit.burst - 1);
  // Theoretical arrival time per bucket, ms.
  const tat = new Map<string, number>();
  return {
    charge(client, nowMs = Date.now()) {
      const id = bucketOf(client);
      const { t, retryAfter } = gcra(tat.get(id), tolerance, nowMs);
      if (retryAfter)
        throw rateLimited(
          `${what} rate limit of ${limit.perMinute} per minute (burst ${limit.burst}) per client address reached`,
          retryAfter,
          [['retry-after', String(retryAfter)]],
        );
      if (tat.size >= MAX_CLIENTS && !tat.has(id)) {
        for (const [k, v] of tat) if (v <= nowMs) tat.delete(k);
        if (tat.size >= MAX_CLIENTS) tat.clear();
      }
      tat.set(id, t + interval);
    },
  };
}
