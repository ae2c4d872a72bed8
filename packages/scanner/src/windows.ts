/**
 * Rolling 60-second rate windows: the key's and the account's (spec, Limits → Scanner API), and
 * the invalid-key counter per client IP (30 per minute).
 *
 * Each window is an exact sliding log: the instants of the requests it admitted within the last
 * 60 s, in a ring buffer of the limit's size. A request is admitted when fewer than `limit`
 * admitted instants lie in (now − 60 s, now], so no 60-second interval ever holds more than
 * `limit` admissions, and there is no fixed minute boundary. Memory is 8 bytes × limit per
 * active key and account (600 × 8 = 4.8 KiB at the Enterprise default), dropped once idle.
 *
 * Both windows are checked before either is charged: a request one window refuses is charged to
 * neither (spec: keys of one account share the account's number).
 *
 * This embedded implementation serves one process. {@link RateWindows} is the seam a shared
 * implementation (several scanner servers, e.g. NATS JetStream KV) replaces without touching
 * the routes.
 */

/** Length of every window, milliseconds. */
export const WINDOW_MS = 60_000;
/** Invalid keys one IP may present per window before 429 RATE_LIMITED. */
export const INVALID_KEYS_PER_IP = 30;
/** Bound on tracked IPs: an attacker rotating addresses must not grow memory without end. */
const MAX_TRACKED_IPS = 100_000;

/** The outcome of {@link RateWindows.admit}. */
export interface Admission {
  ok: boolean;
  /** The lower of the two windows' limits (they are equal under one plan). */
  limit: number;
  /** Admissions left in the fuller window after this one (0 when refused). */
  remaining: number;
  /** When refused: milliseconds until the refusing window admits again; else 0. */
  retryAfterMs: number;
  /** When refused: which window refused. */
  refusedBy: 'key' | 'account' | null;
}

/** The rate-limit seam: key and account windows, and the invalid-key counter per IP. */
export interface RateWindows {
  /**
   * Admits one request of `keyId` (of `accountId`) at `now` into both windows of `limit`
   * requests per 60 s, or into neither.
   */
  admit(keyId: string, accountId: string, limit: number, now: number): Admission;
  /** Counts one invalid key presented from `ip` at `now`. */
  noteInvalidKey(ip: string, now: number): void;
  /** Milliseconds until `ip` may present a key again (0: not blocked). */
  invalidKeyBlock(ip: string, now: number): number;
  /** Drops idle windows (called periodically). */
  sweep(now: number): void;
}

/** An exact sliding log of admitted instants, capacity = the window's limit. */
export class SlidingLog {
  private ring: Float64Array;
  private head = 0;
  private size = 0;
  constructor(private limit: number) {
    this.ring = new Float64Array(limit);
  }
  /** Drops instants that left the window (at or before now − 60 s). */
  private expire(now: number): void {
    const edge = now - WINDOW_MS;
    while (this.size > 0 && this.ring[this.head] <= edge) {
      this.head = (this.head + 1) % this.ring.length;
      this.size--;
    }
  }
  /** Resizes to a new limit (plan change), keeping the newest instants. */
  setLimit(limit: number): void {
    if (limit === this.limit) return;
    const kept: number[] = [];
    for (let i = Math.max(0, this.size - limit); i < this.size; i++)
      kept.push(this.ring[(this.head + i) % this.ring.length]);
    this.limit = limit;
    this.ring = new Float64Array(limit);
    this.ring.set(kept);
    this.head = 0;
    this.size = kept.length;
  }
  /** Admissions left at `now`. */
  room(now: number): number {
    this.expire(now);
    return this.limit - this.size;
  }
  /** Milliseconds until one more admission fits (0 when it fits now). Call after {@link room}. */
  waitMs(now: number): number {
    if (this.size < this.limit) return 0;
    return Math.max(1, this.ring[this.head] + WINDOW_MS - now);
  }
  /** Records one admission at `now`; the caller has checked {@link room} > 0. */
  add(now: number): void {
    this.ring[(this.head + this.size) % this.ring.length] = now;
    this.size++;
  }
  /** True when nothing admitted lies in the window. */
  idle(now: number): boolean {
    this.expire(now);
    return this.size === 0;
  }
}

/** The embedded, in-process implementation of {@link RateWindows}. */
export function createRateWindows(): RateWindows {
  const keys = new Map<string, SlidingLog>();
  const accounts = new Map<string, SlidingLog>();
  const invalid = new Map<string, SlidingLog>();
  const logOf = (m: Map<string, SlidingLog>, id: string, limit: number) => {
    let l = m.get(id);
    if (!l) m.set(id, (l = new SlidingLog(limit)));
    else l.setLimit(limit);
    return l;
  };
  const sweepMap = (m: Map<string, SlidingLog>, now: number) => {
    for (const [id, l] of m) if (l.idle(now)) m.delete(id);
  };
  return {
    admit(keyId, accountId, limit, now) {
      const k = logOf(keys, keyId, limit);
      const a = logOf(accounts, accountId, limit);
      const kRoom = k.room(now);
      const aRoom = a.room(now);
      if (kRoom <= 0 || aRoom <= 0) {
        const refusedBy = kRoom <= 0 ? 'key' : 'account';
        const retryAfterMs = Math.max(kRoom <= 0 ? k.waitMs(now) : 0, aRoom <= 0 ? a.waitMs(now) : 0);
        return { ok: false, limit, remaining: 0, retryAfterMs, refusedBy };
      }
      k.add(now);
      a.add(now);
      return { ok: true, limit, remaining: Math.min(kRoom, aRoom) - 1, retryAfterMs: 0, refusedBy: null };
    },
    noteInvalidKey(ip, now) {
      if (invalid.size >= MAX_TRACKED_IPS && !invalid.has(ip)) {
        sweepMap(invalid, now);
        // Still full: forget the longest-tracked address (Map keeps insertion order).
        if (invalid.size >= MAX_TRACKED_IPS) invalid.delete(invalid.keys().next().value as string);
      }
      const l = logOf(invalid, ip, INVALID_KEYS_PER_IP);
      if (l.room(now) > 0) l.add(now);
    },
    invalidKeyBlock(ip, now) {
      const l = invalid.get(ip);
      if (!l || l.room(now) > 0) return 0;
      return l.waitMs(now);
    },
    sweep(now) {
      sweepMap(keys, now);
      sweepMap(accounts, now);
      sweepMap(invalid, now);
    },
  };
}
