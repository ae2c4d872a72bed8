/**
 * Answers of cacheable routes, kept until the store's next write. A cacheable route's body is a
 * function of the request (route, path parameters, query) and the store's contents only, so two
 * requests between the same two writes get the same bytes: the second is served without running
 * the handler. Market makers poll the same token, pool and wallet many times per block; this is
 * what lets those reads run near the HTTP layer's own ceiling. Refusals (scope, rate limit,
 * validation, a projection not ready, a lagging replica) are decided before the cache is read;
 * the rate limiter charges every request, cached or not.
 *
 * RESPONSE_CACHE=off disables it (the bench measures both).
 */
import type { Reply } from './route.js';

/** Bytes of JSON kept per chain at most (entries beyond it are not cached). */
const MAX_BYTES = Number(process.env.RESPONSE_CACHE_MAX_BYTES ?? 64 * 1024 * 1024);

/**
 * Answers at least this long (characters of JSON) are kept with their UTF-8 bytes too
 * ({@link Reply.bytes}), so a hit writes them without encoding them again.
 */
export const KEEP_BYTES_FROM = 4 * 1024;
const UTF8 = new TextEncoder();

/** Whether the cache is on (RESPONSE_CACHE=off turns it off). */
export const responseCacheOn = process.env.RESPONSE_CACHE !== 'off';

/** One chain's cached answers at one store write count. */
export class ResponseCache {
  private writes = -1;
  private readonly entries = new Map<string, Reply>();
  private bytes = 0;
  hits = 0;
  /** Requests whose handler ran (neither this cache nor the record cache answered). */
  misses = 0;
  /** Requests this cache missed that the record cache answered (record-cache.ts). */
  recordHits = 0;

  /** Counts the last miss as a record cache hit instead. */
  noteRecordHit(): void {
    this.misses--;
    this.recordHits++;
  }

  /** The cached answer of `key` when the store has not been written since it was cached. */
  get(writes: number, key: string): Reply | undefined {
    if (writes !== this.writes) {
      this.reset(writes);
      this.misses++;
      return undefined;
    }
    const r = this.entries.get(key);
    if (r) this.hits++;
    else this.misses++;
    return r;
  }

  /**
   * Keeps `reply` for `key` at store write count `writes` (dropped when over the byte bound). A
   * reply of {@link KEEP_BYTES_FROM} characters or more is given its UTF-8 bytes (counted too).
   */
  set(writes: number, key: string, reply: Reply): void {
    if (writes !== this.writes) this.reset(writes);
    if (reply.json.length >= KEEP_BYTES_FROM) reply.bytes ??= UTF8.encode(reply.json);
    const size = reply.json.length + (reply.bytes?.length ?? 0);
    if (this.bytes + size > MAX_BYTES) return;
    this.entries.set(key, reply);
    this.bytes += size;
  }

  private reset(writes: number): void {
    this.writes = writes;
    this.entries.clear();
    this.bytes = 0;
  }
}

/** The cache key of a request: route id, raw path parameters in path order, sorted raw query. */
export function cacheKey(
  routeId: string,
  paramNames: string[],
  rawParams: Record<string, string>,
  rawQuery: Record<string, string>,
): string {
  let k = routeId;
  for (const n of paramNames) k += `\u0000${rawParams[n]}`;
  const q = Object.keys(rawQuery);
  if (q.length > 1) q.sort();
  for (const n of q) k += `\u0001${n}=${rawQuery[n]}`;
  return k;
}
