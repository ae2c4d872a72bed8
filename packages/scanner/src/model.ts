/**
 * The scanner's durable records (accounts, keys, sessions, activity, ledger, usage, cached
 * results) and the pure rules over them (a key's state at an instant). Stored by store.ts;
 * times are Unix milliseconds; scans are counts (integers below 2^53, not token amounts).
 */

/** Paid tiers with API access, and `none` (no plan: API_PLAN_REQUIRED). */
export type PlanTier = 'none' | 'scale' | 'enterprise';

/** An account's plan. `periodEnd` is the end of the paid period (ms). */
export interface PlanRecord {
  tier: PlanTier;
  /** `cancelled`: works until `periodEnd`, no renewal grace; `active`: renews, 3 days grace after. */
  status: 'active' | 'cancelled';
  periodEnd: number;
  /** Enterprise per-account requests-per-minute override; null = the tier's default. */
  ratePerMinute: number | null;
}

export interface AccountRecord {
  /** `acc_` + 16 base62 characters. */
  id: string;
  /** Where key notifications go. */
  email: string;
  name: string;
  createdAt: number;
  plan: PlanRecord;
  /** Operator switch: false → every key answers 403 FORBIDDEN. */
  apiAccess: boolean;
}

export interface KeyRecord {
  /** `key_` + 16 base62 characters; public (not a secret). */
  id: string;
  accountId: string;
  name: string;
  /** Display prefix of the secret (`sk_live_` + 4 characters). */
  prefix: string;
  /** Hex SHA-256 of the whole secret; the secret itself is never stored. */
  hash: string;
  createdAt: number;
  /** Normalised CIDR strings (the platform's cidr.ts); empty = any IP. */
  allowlist: string[];
  /** When the key was revoked (ms), or null. */
  revokedAt: number | null;
  /** Set when rolled with a grace: the old key works until this instant (ms), then is revoked. */
  graceUntil: number | null;
  /** The key that replaced this one on roll, or null. */
  rolledTo: string | null;
}

/** A key's state at an instant: `grace` keys work but do not count toward the 5 active keys. */
export type KeyState = 'active' | 'grace' | 'revoked';

/** The state of `k` at `now` (a rolled key whose grace has ended is revoked). */
export function keyState(k: KeyRecord, now: number): KeyState {
  if (k.revokedAt !== null && k.revokedAt <= now) return 'revoked';
  if (k.graceUntil !== null) return now < k.graceUntil ? 'grace' : 'revoked';
  return 'active';
}

/** A dashboard session: an operator-issued token for the account/billing/admin endpoints. */
export interface SessionRecord {
  /** Hex SHA-256 of the token. */
  hash: string;
  prefix: string;
  accountId: string;
  createdAt: number;
  expiresAt: number;
  /** When an operator revoked it (revoke-session); absent or null while it stands. */
  revokedAt?: number | null;
}

/**
 * Activity kinds. Key changes are always recorded; the blocked-attempt kinds (and a key seen in a
 * URL) at most once per 10 minutes per key per kind.
 */
export type ActivityKind =
  | 'key_created'
  | 'key_rolled'
  | 'key_revoked'
  | 'keys_revoked_all'
  | 'key_renamed'
  | 'allowlist_changed'
  | 'key_in_url'
  | 'ip_not_allowed'
  | 'revoked_key_used'
  | 'no_api_access';

/** The kinds subject to the 10-minute de-duplication. */
export const BLOCKED_KINDS: ReadonlySet<ActivityKind> = new Set([
  'key_in_url',
  'ip_not_allowed',
  'revoked_key_used',
  'no_api_access',
]);

export interface ActivityEntry {
  at: number;
  kind: ActivityKind;
  keyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  /** Caller's IP (dashboard user or API client); `cli` for operator commands. */
  ip: string | null;
  /** Short, secret-free detail (e.g. old → new name, the error code answered). */
  detail: string | null;
}

/** One credit movement; `balance` is the account's balance after it. */
export interface LedgerEntry {
  at: number;
  /** Positive: a grant; negative: a charge. */
  delta: number;
  balance: number;
  reason: 'grant' | 'charge';
  requestId: string | null;
  endpoint: string | null;
  note: string | null;
}

/** A charged answer kept so the same normalised request is answered again for free. */
export interface CachedAnswer {
  /** Expiry instant (ms). */
  exp: number;
  /** The response body as first answered, without the `cached` flag. */
  body: string;
}

/** HTTP status class counted by usage. */
export type StatusClass = '2xx' | '4xx' | '5xx';

/** Status class of an HTTP status. */
export const statusClass = (status: number): StatusClass =>
  status < 400 ? '2xx' : status < 500 ? '4xx' : '5xx';

/** UTC day number (days since 1970-01-01) of an instant. */
export const dayOf = (ms: number): number => Math.floor(ms / 86_400_000);

/** `YYYY-MM-DD` of a UTC day number. */
export const isoDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
