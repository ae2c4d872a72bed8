/**
 * Account and key operations: the rules of the spec's "Scanner API keys" section, shared by the
 * dashboard endpoints (a session) and the operator CLI.
 *
 * - Create: at most 5 active keys per account (a key in its 24 h roll grace does not count).
 * - Roll: a new secret with the same name and allowlist; the old key keeps working 24 h, or is
 *   revoked at once (the caller's choice).
 * - Revoke one key, or every key (revoke-all).
 * - Rename, allowlist edit (normalised by the platform's cidr.ts, ≤ 50 entries).
 * Each change and its activity entries are one atomic directory commit; create, roll, revoke and
 * revoke-all then send an e-mail (renames and allowlist edits do not). Secrets are returned once,
 * to the caller, and never stored or logged.
 */
import { normaliseAllowlist } from '@chain-indexer/platform/security';
import type { KeyDirectory } from './directory.js';
import { ScannerError } from './errors.js';
import type { Notifier } from './mailer.js';
import {
  type AccountRecord,
  type ActivityEntry,
  type ActivityKind,
  type KeyRecord,
  keyState,
  type PlanRecord,
  type SessionRecord,
} from './model.js';
import { MAX_RATE, MIN_RATE } from './plans.js';
import { generateKey, generateSessionToken, randomBase62 } from './secrets.js';

/** Active keys an account may hold at once. */
export const MAX_ACTIVE_KEYS = 5;
/** Longest dashboard session an operator may issue, hours (30 days): a leaked token ends by itself. */
export const MAX_SESSION_HOURS = 24 * 30;
/** How long a rolled key keeps working when the caller keeps it. */
export const ROLL_GRACE_MS = 24 * 3_600_000;
/** 1..64 characters, none of them a control character (Unicode category Cc). */
const NAME_RE = /^\P{Cc}{1,64}$/u;
const EMAIL_RE = /^[^\s@<>,;"]{1,64}@[^\s@<>,;"]{1,190}$/;

/** Who asked for a change: the IP of the dashboard caller, or `cli`. */
export interface Actor {
  ip: string;
}

/** A key as shown to its account (never its secret or hash). */
export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  state: 'active' | 'grace' | 'revoked';
  createdAt: string;
  revokedAt: string | null;
  graceUntil: string | null;
  rolledTo: string | null;
  allowlist: string[];
}

/** The account operations. Every method throws {@link ScannerError} on a refused input. */
export interface Accounts {
  createAccount(o: { email: string; name?: string }): AccountRecord;
  setPlan(accountId: string, plan: Partial<PlanRecord>): AccountRecord;
  /** The account cancels: the plan keeps working until its paid period ends, without grace. */
  cancelPlan(accountId: string): AccountRecord;
  setApiAccess(accountId: string, on: boolean): AccountRecord;
  /**
   * Issues a dashboard session valid `ttlMs` (at most {@link MAX_SESSION_HOURS}).
   * @throws ScannerError INVALID_INPUT past the cap; NOT_FOUND for an unknown account.
   */
  createSession(accountId: string, ttlMs: number): { token: string; session: SessionRecord };
  /**
   * Revokes the account's sessions that stand: the one whose prefix is `prefix`, or every one.
   * @returns the sessions revoked. @throws ScannerError NOT_FOUND (account, or no such session).
   */
  revokeSessions(accountId: string, prefix: string | null): SessionRecord[];
  createKey(
    accountId: string,
    o: { name: string; allowlist?: string[] },
    actor: Actor,
  ): { secret: string; key: KeyRecord };
  rollKey(
    accountId: string,
    keyId: string,
    o: { revokeOld: boolean },
    actor: Actor,
  ): { secret: string; key: KeyRecord; old: KeyRecord };
  revokeKey(accountId: string, keyId: string, actor: Actor): KeyRecord;
  revokeAll(accountId: string, actor: Actor): KeyRecord[];
  renameKey(accountId: string, keyId: string, name: string, actor: Actor): KeyRecord;
  setAllowlist(accountId: string, keyId: string, entries: string[], actor: Actor): KeyRecord;
  /** The account or 404. */
  account(accountId: string): AccountRecord;
  view(k: KeyRecord): KeyView;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const invalid = (msg: string) => new ScannerError('INVALID_INPUT', msg);

/** The activity entry of a change of key `k` (null: the account's keys) by `actor` at `at` (ms). */
const entry = (kind: ActivityKind, k: KeyRecord | null, actor: Actor, at: number, detail: string | null) =>
  ({
    at,
    kind,
    keyId: k?.id ?? null,
    keyName: k?.name ?? null,
    keyPrefix: k?.prefix ?? null,
    ip: actor.ip,
    detail,
  }) satisfies ActivityEntry;

/** `name` when it is a valid key or account name. @throws ScannerError INVALID_INPUT. */
const checkName = (name: unknown) => {
  if (typeof name !== 'string' || !NAME_RE.test(name) || name.trim() !== name)
    throw invalid('a key name is 1..64 printable characters without leading or trailing spaces');
  if (name.includes('sk_live_')) throw invalid('a key name may not contain a key');
  return name;
};

/** The normalised allowlist of `entries` (platform cidr.ts). @throws ScannerError INVALID_INPUT. */
const allowlistOf = (entries: string[]) => {
  const r = normaliseAllowlist(entries);
  if ('error' in r) throw invalid(`allowlist: ${r.error}`);
  return r.entries;
};

/** A new key of `accountId` created at `at` (ms), and its secret (returned once, never stored). */
const newKeyRecord = (accountId: string, name: string, allowlist: string[], at: number) => {
  const g = generateKey();
  const key: KeyRecord = {
    id: `key_${randomBase62(16)}`,
    accountId,
    name,
    prefix: g.prefix,
    hash: g.hash.toString('hex'),
    createdAt: at,
    allowlist,
    revokedAt: null,
    graceUntil: null,
    rolledTo: null,
  };
  return { key, secret: g.secret };
};

/**
 * `next` when it is a valid plan: tier, status, `periodEnd` (ms), and a per-account rate
 * (requests per minute, {@link MIN_RATE}..{@link MAX_RATE}) only on Enterprise.
 * @throws ScannerError INVALID_INPUT.
 */
function checkPlan(next: PlanRecord): PlanRecord {
  if (!['none', 'scale', 'enterprise'].includes(next.tier))
    throw invalid('plan is none, scale or enterprise');
  if (!['active', 'cancelled'].includes(next.status)) throw invalid('plan status is active or cancelled');
  if (!Number.isSafeInteger(next.periodEnd) || next.periodEnd < 0)
    throw invalid('periodEnd is an instant in ms');
  if (next.ratePerMinute !== null) {
    if (next.tier !== 'enterprise') throw invalid('only an Enterprise plan takes a per-account rate');
    if (
      !Number.isSafeInteger(next.ratePerMinute) ||
      next.ratePerMinute < MIN_RATE ||
      next.ratePerMinute > MAX_RATE
    )
      throw invalid(`ratePerMinute is ${MIN_RATE}..${MAX_RATE}`);
  }
  return next;
}

/** Key `k` as shown to its account at `now` (ms): no secret, no hash; instants in ISO 8601. */
function keyView(k: KeyRecord, now: number): KeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    state: keyState(k, now),
    createdAt: iso(k.createdAt)!,
    revokedAt: iso(
      k.revokedAt !== null ? k.revokedAt : k.graceUntil !== null && k.graceUntil <= now ? k.graceUntil : null,
    ),
    graceUntil: iso(k.graceUntil),
    rolledTo: k.rolledTo,
    allowlist: k.allowlist,
  };
}

/** What the key operations share with the account ones. */
interface AccountsCtx {
  dir: KeyDirectory;
  notifier: Notifier;
  now: () => number;
  /** The account or NOT_FOUND. */
  account(id: string): AccountRecord;
}

/**
 * The key operations of {@link Accounts} (create, roll, revoke, revoke-all, rename, allowlist):
 * each one directory commit with its activity entry; create, roll and revokes then notify.
 */
function keyOperations(
  c: AccountsCtx,
): Pick<Accounts, 'createKey' | 'rollKey' | 'revokeKey' | 'revokeAll' | 'renameKey' | 'setAllowlist'> {
  const { dir, notifier, account } = c;
  /** A key of `accountId` that can still change (not revoked). */
  const liveKey = (accountId: string, keyId: string, now: number) => {
    const k = dir.key(keyId);
    if (!k || k.accountId !== accountId) throw new ScannerError('NOT_FOUND', 'no such key on this account');
    if (keyState(k, now) === 'revoked') throw invalid('the key is already revoked');
    return k;
  };
  const notice = (
    a: AccountRecord,
    kind: 'created' | 'rolled' | 'revoked' | 'revoked_all',
    keys: KeyRecord[],
    actor: Actor,
    at: number,
    graceUntil?: number | null,
  ) =>
    notifier.notify({
      kind,
      to: a.email,
      accountName: a.name,
      keys: keys.map((k) => ({ name: k.name, prefix: k.prefix })),
      at,
      ip: actor.ip,
      graceUntil,
    });

  return {
    createKey(accountId, { name, allowlist = [] }, actor) {
      const a = account(accountId);
      const at = c.now();
      const active = dir.keysOf(accountId).filter((k) => keyState(k, at) === 'active').length;
      if (active >= MAX_ACTIVE_KEYS)
        throw new ScannerError(
          'API_KEY_LIMIT_REACHED',
          `the account already has ${MAX_ACTIVE_KEYS} active keys; revoke or roll one first`,
        );
      const { key, secret } = newKeyRecord(accountId, checkName(name), allowlistOf(allowlist), at);
      dir.commit({
        keys: [key],
        activity: [{ accountId, entry: entry('key_created', key, actor, at, null) }],
      });
      notice(a, 'created', [key], actor, at);
      return { secret, key };
    },
    rollKey(accountId, keyId, { revokeOld }, actor) {
      const a = account(accountId);
      const at = c.now();
      const old = liveKey(accountId, keyId, at);
      if (keyState(old, at) === 'grace') throw invalid('the key was already rolled; roll its replacement');
      const { key, secret } = newKeyRecord(accountId, old.name, old.allowlist, at);
      const graceUntil = revokeOld ? null : at + ROLL_GRACE_MS;
      const retired: KeyRecord = {
        ...old,
        rolledTo: key.id,
        graceUntil,
        revokedAt: revokeOld ? at : null,
      };
      const detail = revokeOld
        ? `replaced by ${key.prefix}…; old key revoked at once`
        : `replaced by ${key.prefix}…; old key works until ${iso(graceUntil)}`;
      dir.commit({
        keys: [retired, key],
        activity: [{ accountId, entry: entry('key_rolled', retired, actor, at, detail) }],
      });
      notice(a, 'rolled', [key], actor, at, graceUntil);
      return { secret, key, old: retired };
    },
    revokeKey(accountId, keyId, actor) {
      const a = account(accountId);
      const at = c.now();
      const k = { ...liveKey(accountId, keyId, at), revokedAt: at };
      dir.commit({ keys: [k], activity: [{ accountId, entry: entry('key_revoked', k, actor, at, null) }] });
      notice(a, 'revoked', [k], actor, at);
      return k;
    },
    revokeAll(accountId, actor) {
      const a = account(accountId);
      const at = c.now();
      const live = dir.keysOf(accountId).filter((k) => keyState(k, at) !== 'revoked');
      const revoked = live.map((k) => ({ ...k, revokedAt: at }));
      dir.commit({
        keys: revoked,
        activity: [
          {
            accountId,
            entry: entry('keys_revoked_all', null, actor, at, `${revoked.length} key(s) revoked`),
          },
        ],
      });
      if (revoked.length) notice(a, 'revoked_all', revoked, actor, at);
      return revoked;
    },
    renameKey(accountId, keyId, name, actor) {
      account(accountId);
      const at = c.now();
      const old = liveKey(accountId, keyId, at);
      const k = { ...old, name: checkName(name) };
      dir.commit({
        keys: [k],
        activity: [{ accountId, entry: entry('key_renamed', k, actor, at, `"${old.name}" → "${k.name}"`) }],
      });
      return k;
    },
    setAllowlist(accountId, keyId, entries, actor) {
      account(accountId);
      const at = c.now();
      const k = { ...liveKey(accountId, keyId, at), allowlist: allowlistOf(entries) };
      const detail = k.allowlist.length
        ? `${k.allowlist.length} entr${k.allowlist.length === 1 ? 'y' : 'ies'}: ${k.allowlist.join(', ')}`
        : 'cleared (any IP)';
      dir.commit({
        keys: [k],
        activity: [{ accountId, entry: entry('allowlist_changed', k, actor, at, detail) }],
      });
      return k;
    },
  };
}

/** Creates the account operations over a directory, a notifier and the service clock. */
export function createAccounts(o: {
  directory: KeyDirectory;
  notifier: Notifier;
  now: () => number;
}): Accounts {
  const { directory: dir, notifier } = o;
  const account = (id: string) => {
    const a = dir.account(id);
    if (!a) throw new ScannerError('NOT_FOUND', 'no such account');
    return a;
  };
  const ctx: AccountsCtx = { dir, notifier, now: o.now, account };
  return {
    account,
    createAccount({ email, name }) {
      if (typeof email !== 'string' || !EMAIL_RE.test(email))
        throw invalid('a valid e-mail address is required');
      const a: AccountRecord = {
        id: `acc_${randomBase62(16)}`,
        email,
        name: checkName(name ?? email),
        createdAt: o.now(),
        plan: { tier: 'none', status: 'active', periodEnd: 0, ratePerMinute: null },
        apiAccess: true,
      };
      dir.commit({ accounts: [a] });
      return a;
    },
    setPlan(accountId, plan) {
      const a = account(accountId);
      const updated = { ...a, plan: checkPlan({ ...a.plan, ...plan }) };
      dir.commit({ accounts: [updated] });
      return updated;
    },
    cancelPlan(accountId) {
      const a = account(accountId);
      if (a.plan.tier === 'none') throw invalid('the account has no plan to cancel');
      const updated: AccountRecord = { ...a, plan: { ...a.plan, status: 'cancelled' } };
      dir.commit({ accounts: [updated] });
      return updated;
    },
    setApiAccess(accountId, on) {
      const updated = { ...account(accountId), apiAccess: on };
      dir.commit({ accounts: [updated] });
      return updated;
    },
    createSession(accountId, ttlMs) {
      account(accountId);
      if (!(ttlMs > 0) || ttlMs > MAX_SESSION_HOURS * 3_600_000)
        throw new ScannerError(
          'INVALID_INPUT',
          `a dashboard session lasts 1 to ${MAX_SESSION_HOURS} hours (${MAX_SESSION_HOURS / 24} days)`,
        );
      const t = generateSessionToken();
      const at = o.now();
      const session: SessionRecord = {
        hash: t.hash.toString('hex'),
        prefix: t.prefix,
        accountId,
        createdAt: at,
        expiresAt: at + ttlMs,
      };
      dir.commit({ sessions: [session] });
      return { token: t.secret, session };
    },
    revokeSessions(accountId, prefix) {
      account(accountId);
      const at = o.now();
      const standing = dir
        .sessionsOf(accountId)
        .filter((s) => !s.revokedAt && s.expiresAt > at && (prefix === null || s.prefix === prefix));
      if (prefix !== null && standing.length === 0)
        throw new ScannerError('NOT_FOUND', 'no standing session of this account has that prefix');
      const revoked = standing.map((s) => ({ ...s, revokedAt: at }));
      if (revoked.length) dir.commit({ sessions: revoked });
      return revoked;
    },
    view: (k) => keyView(k, o.now()),
    ...keyOperations(ctx),
  };
}
