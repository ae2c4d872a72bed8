/**
 * The key directory: accounts, keys, dashboard sessions and the activity list, as the request
 * path and the account operations see them.
 *
 * {@link KeyDirectory} is the seam a shared implementation (several scanner servers, NATS
 * JetStream KV watched by every server) replaces. Its `lastContact()` is the instant the
 * directory last confirmed it is current; the request path refuses to honour any key when that
 * is more than 5 s ago (503 INTERNAL_ERROR) rather than honour a key that may have been revoked
 * elsewhere. The embedded implementation below is the source of truth itself, so it is always
 * in contact: it loads every record into memory at start (lookups by key hash are one Map get),
 * and writes each change through to the store in one atomic batch before updating memory.
 */
import type { AccountRecord, ActivityEntry, KeyRecord, SessionRecord } from './model.js';
import { BLOCKED_KINDS } from './model.js';
import { del, type Op, put, type ScannerStore, TABLES } from './store.js';

/** Blocked attempts of one kind are recorded at most once per this interval per key. */
export const ACTIVITY_DEDUP_MS = 10 * 60_000;
/** How long a directory may be out of contact before keys stop being honoured. */
export const MAX_CONTACT_GAP_MS = 5_000;
/** How long an expired or revoked session is kept before it is pruned (so `list` can show it). */
export const SESSION_RETAIN_MS = 24 * 3_600_000;

/** A set of record changes committed together (one atomic write). */
export interface DirectoryChange {
  accounts?: AccountRecord[];
  keys?: KeyRecord[];
  sessions?: SessionRecord[];
  /** Hashes of sessions pruned (expired or revoked past {@link SESSION_RETAIN_MS}): deleted. */
  prunedSessions?: string[];
  activity?: Array<{ accountId: string; entry: ActivityEntry }>;
}

/** Accounts, keys, sessions and activity, with the hot-path lookups the request gate needs. */
export interface KeyDirectory {
  /** Instant (ms) the directory last confirmed it is current (embedded: now). */
  lastContact(): number;
  /** The key whose secret hashes to `hash` (SHA-256), any state; undefined when none. */
  keyByHash(hash: Buffer): KeyRecord | undefined;
  key(id: string): KeyRecord | undefined;
  /** Every key of an account (all states), oldest first. */
  keysOf(accountId: string): KeyRecord[];
  account(id: string): AccountRecord | undefined;
  accounts(): AccountRecord[];
  /** The session whose token hashes to `hash`; undefined when none (expiry is the caller's check). */
  session(hash: Buffer): SessionRecord | undefined;
  /** Every session of an account (any state). */
  sessionsOf(accountId: string): SessionRecord[];
  /**
   * Deletes sessions expired or revoked more than {@link SESSION_RETAIN_MS} before `now`.
   * @returns how many were pruned.
   */
  pruneSessions(now: number): number;
  /** The account's activity, newest first, at most `limit` entries. */
  activity(accountId: string, limit: number): ActivityEntry[];
  /** Commits `change` atomically. @throws on a storage failure (nothing changed). */
  commit(change: DirectoryChange): void;
  /**
   * Records a blocked attempt (or a key seen in a URL) for `keyId` unless an entry of the same
   * kind was recorded for that key within the last 10 minutes. Returns whether it was recorded.
   */
  noteBlocked(accountId: string, keyId: string, entry: ActivityEntry): boolean;
}

/**
 * What a shared implementation adds to the store-backed directory (shared/directory.ts): its
 * contact clock, ops written in the same batch as each local change (its outbox), and a hook run
 * after each local change is committed.
 */
export interface DirectoryHooks {
  lastContact(): number;
  /** Extra ops of the batch of a local change (not of {@link StoreDirectory.applyRemote}). */
  outbox(change: DirectoryChange): { ops: Op[]; after(): void };
}

/** The store-backed directory, with the entry point a shared implementation feeds remote changes into. */
export interface StoreDirectory extends KeyDirectory {
  /**
   * Commits a change made on another server (no hooks), with `extra` ops in the same batch:
   * memory and the local store follow it.
   */
  applyRemote(change: DirectoryChange, extra?: Op[]): void;
}

/** The embedded directory over the scanner store. `now` is the service clock. */
export function createEmbeddedDirectory(
  store: ScannerStore,
  now: () => number,
  hooks?: DirectoryHooks,
): StoreDirectory {
  const accounts = new Map<string, AccountRecord>();
  const keys = new Map<string, KeyRecord>();
  const keyIdByHash = new Map<string, string>();
  const keysByAccount = new Map<string, string[]>();
  const sessions = new Map<string, SessionRecord>();
  const nextActivitySeq = new Map<string, number>();
  const marks = new Map<string, number>();

  const indexKey = (k: KeyRecord) => {
    const had = keys.has(k.id);
    keys.set(k.id, k);
    keyIdByHash.set(k.hash, k.id);
    if (!had) {
      const list = keysByAccount.get(k.accountId) ?? [];
      list.push(k.id);
      keysByAccount.set(k.accountId, list);
    }
  };
  store.each(TABLES.account, (_, a) => accounts.set(a.id, a));
  store.each(TABLES.key, (_, k) => indexKey(k));
  for (const list of keysByAccount.values())
    list.sort((x, y) => keys.get(x)!.createdAt - keys.get(y)!.createdAt);
  store.each(TABLES.session, (_, s) => sessions.set(s.hash, s));
  store.each(TABLES.activityMark, ([keyId, kind], at) => marks.set(`${keyId}\u0000${kind}`, at));

  const activitySeq = (accountId: string) => {
    let n = nextActivitySeq.get(accountId);
    if (n === undefined) {
      const last = store.scan(TABLES.activity, [accountId], { reverse: true, limit: 1 })[0];
      n = last ? last[0][1] + 1 : 0;
    }
    nextActivitySeq.set(accountId, n + 1);
    return n;
  };

  const commit = (change: DirectoryChange, extra: Op[] = [], local = true) => {
    const box = local && hooks ? hooks.outbox(change) : null;
    const ops: Op[] = [...extra, ...(box?.ops ?? [])];
    for (const a of change.accounts ?? []) ops.push(put(TABLES.account, [a.id], a));
    for (const k of change.keys ?? []) ops.push(put(TABLES.key, [k.id], k));
    for (const s of change.sessions ?? []) ops.push(put(TABLES.session, [s.hash], s));
    for (const h of change.prunedSessions ?? []) ops.push(del(TABLES.session, [h]));
    const seqs: Array<[string, number]> = [];
    for (const { accountId, entry } of change.activity ?? []) {
      const seq = activitySeq(accountId);
      seqs.push([accountId, seq]);
      ops.push(put(TABLES.activity, [accountId, seq], entry));
    }
    try {
      store.write(ops);
    } catch (err) {
      // Nothing was written: give the sequence numbers back so no gap or reuse follows.
      for (const [accountId] of seqs) nextActivitySeq.delete(accountId);
      throw err;
    }
    for (const a of change.accounts ?? []) accounts.set(a.id, a);
    for (const k of change.keys ?? []) indexKey(k);
    for (const s of change.sessions ?? []) sessions.set(s.hash, s);
    for (const h of change.prunedSessions ?? []) sessions.delete(h);
    box?.after();
  };

  return {
    lastContact: hooks ? () => hooks.lastContact() : now,
    applyRemote: (change, extra = []) => commit(change, extra, false),
    keyByHash(hash) {
      const id = keyIdByHash.get(hash.toString('hex'));
      return id === undefined ? undefined : keys.get(id);
    },
    key: (id) => keys.get(id),
    keysOf: (accountId) => (keysByAccount.get(accountId) ?? []).map((id) => keys.get(id)!),
    account: (id) => accounts.get(id),
    accounts: () => [...accounts.values()],
    session: (hash) => sessions.get(hash.toString('hex')),
    sessionsOf: (accountId) => [...sessions.values()].filter((s) => s.accountId === accountId),
    pruneSessions(at) {
      const gone = [...sessions.values()]
        .filter(
          (s) => Math.min(s.expiresAt, s.revokedAt ?? Number.POSITIVE_INFINITY) + SESSION_RETAIN_MS <= at,
        )
        .map((s) => s.hash);
      if (gone.length) commit({ prunedSessions: gone });
      return gone.length;
    },
    activity(accountId, limit) {
      return store.scan(TABLES.activity, [accountId], { reverse: true, limit }).map(([, e]) => e);
    },
    commit: (change) => commit(change),
    noteBlocked(accountId, keyId, entry) {
      if (!BLOCKED_KINDS.has(entry.kind)) throw new Error(`${entry.kind} is not a blocked-attempt kind`);
      const id = `${keyId}\u0000${entry.kind}`;
      const last = marks.get(id);
      if (last !== undefined && entry.at - last < ACTIVITY_DEDUP_MS) return false;
      commit({ activity: [{ accountId, entry }] }, [put(TABLES.activityMark, [keyId, entry.kind], entry.at)]);
      marks.set(id, entry.at);
      return true;
    },
  };
}
