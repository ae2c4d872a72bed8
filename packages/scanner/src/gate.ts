/**
 * The request gate: who is calling, and may they. Every refusal is a {@link ScannerError} of the
 * scanner table; blocked attempts of known keys go to the activity list (de-duplicated by the
 * directory), invalid keys count toward the per-IP limit.
 *
 * Key endpoints, in order (the order decides which code a request with several faults gets):
 *  1. more than one credential (Authorization and x-api-key, or either repeated) → 400 INVALID_INPUT
 *  2. a browser request (Origin with Sec-Fetch-Mode cors/navigate, or any Sec-Fetch-Site)
 *     → 403 API_KEY_BROWSER_NOT_ALLOWED (a server's own Origin alone passes)
 *  3. no credential → 401 API_KEY_INVALID
 *  4. malformed key or bad checksum (no lookup) → 401 API_KEY_INVALID, counted for the IP
 *  5. key directory out of contact > 5 s → 503 INTERNAL_ERROR (never honour a maybe-revoked key)
 *  6. unknown key → 401 API_KEY_INVALID, counted; revoked or grace over → 401 API_KEY_REVOKED,
 *     counted and recorded
 *  7. an invalid key (4, 6) from an IP (an IPv6 client: its /64) that presented 30 invalid keys in
 *     the last 60 s → 429 RATE_LIMITED (Retry-After), not counted. A valid key is never blocked:
 *     behind a proxy, or on a shared /64, one client's junk keys must not lock out the others.
 *  8. IP not on the key's allowlist → 403 API_KEY_IP_NOT_ALLOWED, recorded
 *  9. API access off → 403 FORBIDDEN; plan none or lapsed → 403 API_PLAN_REQUIRED with
 *     `upgradeUrl`; both recorded as `no_api_access`
 * 10. the key's or the account's 60 s window full → 429 API_KEY_RATE_LIMITED (Retry-After)
 *
 * Dashboard endpoints: any key credential → 403 API_KEY_ROUTE_NOT_ALLOWED; then a session token
 * (`Authorization: Bearer ds_…`) that exists, has not expired and was not revoked, else 401
 * SESSION_INVALID.
 */
import { compileAllowlist } from '@chain-indexer/platform/security';
import { type KeyDirectory, MAX_CONTACT_GAP_MS } from './directory.js';
import type { KeyCaller, SessionCaller } from './endpoint.js';
import { retryLater, ScannerError } from './errors.js';
import type { RequestInfo } from './http.js';
import { type ActivityEntry, type KeyRecord, keyState } from './model.js';
import { apiAccess } from './plans.js';
import {
  hashSecret,
  KEY_PREFIX,
  keyWellFormed,
  SESSION_PREFIX,
  sameHash,
  sessionWellFormed,
} from './secrets.js';
import type { Admission, RateWindows } from './windows.js';

/** The outcome of a key check: the caller, or the refusal and (when known) the account to bill usage to. */
export type KeyCheck =
  | { ok: true; caller: KeyCaller; admission: Admission }
  | { ok: false; error: ScannerError; accountId: string | null };

export interface Gate {
  /** Runs the key checks 1–10 on a request at `now`. */
  checkKey(r: RequestInfo, now: number): KeyCheck;
  /** The dashboard session of a request. @throws ScannerError (403 with a key, 401 without a session). */
  checkSession(r: RequestInfo, now: number): SessionCaller;
  /**
   * Records that a URL carried `secret` (a well-formed key): the key's activity list gets a
   * `key_in_url` entry (10-minute de-duplication) so its owner knows to roll it.
   */
  noteKeyInUrl(secret: string, r: RequestInfo, now: number): void;
}

/** The credentials a request carries: Authorization values and x-api-key values. */
function credentials(r: RequestInfo): { auth: string[]; apiKey: string[] } {
  return { auth: r.headers.get('authorization') ?? [], apiKey: r.headers.get('x-api-key') ?? [] };
}

const bearer = (v: string): string | null => {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(v);
  return m ? m[1] : null;
};

/** Spec rule 4 of "Scanner API keys". */
export function isBrowser(r: RequestInfo): boolean {
  if (r.headers.has('sec-fetch-site')) return true;
  if (!r.headers.has('origin')) return false;
  const mode = (r.headers.get('sec-fetch-mode')?.[0] ?? '').toLowerCase();
  return mode === 'cors' || mode === 'navigate';
}

/** Creates the gate over a directory, the rate windows and the upgrade URL of API_PLAN_REQUIRED. */
export function createGate(o: { directory: KeyDirectory; windows: RateWindows; upgradeUrl: string }): Gate {
  const { directory: dir, windows } = o;
  const allowlists = new WeakMap<KeyRecord, ReturnType<typeof compileAllowlist>>();
  const allowlistOf = (k: KeyRecord) => {
    let a = allowlists.get(k);
    if (!a) allowlists.set(k, (a = compileAllowlist(k.allowlist)));
    return a;
  };
  const blocked = (k: KeyRecord, kind: ActivityEntry['kind'], r: RequestInfo, now: number, detail: string) =>
    dir.noteBlocked(k.accountId, k.id, {
      at: now,
      kind,
      keyId: k.id,
      keyName: k.name,
      keyPrefix: k.prefix,
      ip: r.ipText,
      detail,
    });
  const refuse = (error: ScannerError, accountId: string | null = null): KeyCheck => ({
    ok: false,
    error,
    accountId,
  });
  /** An invalid key: refused 429 while its IP block holds, else counted toward it and refused with `error`. */
  const invalidKey = (r: RequestInfo, now: number, error: ScannerError, accountId: string | null = null) => {
    const blockMs = windows.invalidKeyBlock(r.blockKey, now);
    if (blockMs > 0)
      return refuse(
        retryLater(
          'RATE_LIMITED',
          `too many invalid keys from this ${r.blockKey.includes('/') ? 'network (/64)' : 'IP'} (30 per minute)`,
          blockMs,
        ),
        accountId,
      );
    windows.noteInvalidKey(r.blockKey, now);
    return refuse(error, accountId);
  };
  const noSuchKey = (r: RequestInfo, now: number, message: string) =>
    invalidKey(r, now, new ScannerError('API_KEY_INVALID', message));

  return {
    checkKey(r, now) {
      const { auth, apiKey } = credentials(r);
      if (auth.length + apiKey.length > 1)
        return refuse(
          new ScannerError(
            'INVALID_INPUT',
            'more than one credential: send exactly one of Authorization: Bearer <key> or x-api-key: <key>',
          ),
        );
      if (isBrowser(r))
        return refuse(
          new ScannerError(
            'API_KEY_BROWSER_NOT_ALLOWED',
            'secret keys are for servers; browser requests are refused so a key never ships in web code',
          ),
        );
      if (auth.length + apiKey.length === 0)
        return refuse(
          new ScannerError(
            'API_KEY_INVALID',
            'no API key: send Authorization: Bearer <key> or x-api-key: <key>',
          ),
        );
      const secret = apiKey.length ? apiKey[0].trim() : bearer(auth[0]);
      if (secret === null) return noSuchKey(r, now, 'the Authorization header must be "Bearer <key>"');
      if (!keyWellFormed(secret))
        return noSuchKey(r, now, `not a valid key (a key is ${KEY_PREFIX} and 43 letters and digits)`);
      if (now - dir.lastContact() > MAX_CONTACT_GAP_MS)
        return refuse(
          new ScannerError('INTERNAL_ERROR', 'key verification is briefly unavailable; retry shortly'),
        );
      const hash = hashSecret(secret);
      const k = dir.keyByHash(hash);
      if (!k || !sameHash(Buffer.from(k.hash, 'hex'), hash)) return noSuchKey(r, now, 'no such key');
      const account = dir.account(k.accountId);
      if (!account) return noSuchKey(r, now, 'no such key');
      if (keyState(k, now) === 'revoked') {
        blocked(k, 'revoked_key_used', r, now, 'API_KEY_REVOKED');
        const why =
          k.revokedAt !== null ? 'the key was revoked' : 'the key was rolled and its 24-hour grace has ended';
        return invalidKey(r, now, new ScannerError('API_KEY_REVOKED', why), k.accountId);
      }
      if (!allowlistOf(k).allows(r.ip)) {
        blocked(k, 'ip_not_allowed', r, now, 'API_KEY_IP_NOT_ALLOWED');
        return refuse(
          new ScannerError('API_KEY_IP_NOT_ALLOWED', `this IP (${r.ipText}) is not on the key's allowlist`),
          k.accountId,
        );
      }
      const access = apiAccess(account, now);
      if (!access.ok) {
        blocked(k, 'no_api_access', r, now, access.code);
        const extra = access.code === 'API_PLAN_REQUIRED' ? { upgradeUrl: o.upgradeUrl } : undefined;
        return refuse(new ScannerError(access.code, access.reason, extra), k.accountId);
      }
      const admission = windows.admit(k.id, k.accountId, access.limitPerMinute, now);
      if (!admission.ok) {
        const err = retryLater(
          'API_KEY_RATE_LIMITED',
          `the ${admission.refusedBy === 'key' ? "key's" : "account's"} limit of ${admission.limit} requests per minute is reached`,
          admission.retryAfterMs,
        );
        err.headers.push(['x-ratelimit-limit', String(admission.limit)], ['x-ratelimit-remaining', '0']);
        return refuse(err, k.accountId);
      }
      return { ok: true, caller: { account, key: k, limitPerMinute: access.limitPerMinute }, admission };
    },

    checkSession(r, now) {
      const { auth, apiKey } = credentials(r);
      if (apiKey.length > 0 || auth.some((v) => bearer(v)?.startsWith(KEY_PREFIX)))
        throw new ScannerError(
          'API_KEY_ROUTE_NOT_ALLOWED',
          'account, billing and admin endpoints are unavailable with an API key; use a dashboard session',
        );
      if (auth.length !== 1)
        throw new ScannerError(
          'SESSION_INVALID',
          `send exactly one Authorization: Bearer ${SESSION_PREFIX}… header`,
        );
      const token = bearer(auth[0]);
      if (!token || !sessionWellFormed(token))
        throw new ScannerError('SESSION_INVALID', 'not a dashboard session token');
      if (now - dir.lastContact() > MAX_CONTACT_GAP_MS)
        throw new ScannerError(
          'INTERNAL_ERROR',
          'session verification is briefly unavailable; retry shortly',
        );
      const hash = hashSecret(token);
      const s = dir.session(hash);
      if (!s || !sameHash(Buffer.from(s.hash, 'hex'), hash) || s.expiresAt <= now || s.revokedAt)
        throw new ScannerError('SESSION_INVALID', 'the session does not exist, has expired or was revoked');
      const account = dir.account(s.accountId);
      if (!account) throw new ScannerError('SESSION_INVALID', 'the session does not exist or has expired');
      return { account, session: s };
    },

    noteKeyInUrl(secret, r, now) {
      const k = dir.keyByHash(hashSecret(secret));
      if (k) blocked(k, 'key_in_url', r, now, 'API_KEY_IN_URL: roll this key');
    },
  };
}
