/**
 * The key directory shared by several scanner servers on JetStream KV (state.ts names the keys).
 *
 * Reads stay local and synchronous: the store-backed directory (../directory.ts) is this
 * server's copy, fed by the bucket's watcher, so a key lookup is still one Map get. A change made
 * here is applied to the copy at once (it takes effect here immediately) and, in the same
 * RocksDB batch, queued in the store's outbox; the outbox is published to the bucket in order
 * (and again after a crash, from the store), then deleted. Every server's watcher applies every
 * change, so a revoke made on one server is refused on all of them once their watchers deliver it
 * — well within 5 s while they are in contact, and a server out of contact for more than 5 s
 * refuses every key (gate.ts) instead of trusting a copy that may miss a revoke.
 *
 * - Changes are refused (503 INTERNAL_ERROR, nothing changed) while the server is out of
 *   contact, so a change is never answered by a server that cannot publish it soon.
 * - Key records are compare-and-set against the revision the change was made on; when another
 *   server changed the key meanwhile the two are merged so no revoke is ever undone: the
 *   earliest `revokedAt` and `graceUntil` win, `rolledTo` is kept, name and allowlist are ours.
 *   Accounts and sessions are last-writer-wins (operator changes, sessions are write-once).
 * - Activity entries are write-once keys, applied once per server (store table kvApplied).
 * - While a record of this server waits in the outbox, watched older versions of it are not
 *   applied (this server's change would be hidden until published).
 */
import type { Logger } from 'pino';
import {
  createEmbeddedDirectory,
  type DirectoryChange,
  MAX_CONTACT_GAP_MS,
  type StoreDirectory,
} from '../directory.js';
import { ScannerError } from '../errors.js';
import type { AccountRecord, ActivityEntry, KeyRecord, SessionRecord } from '../model.js';
import { del, type Op, type OutboxRecord, put, type ScannerStore, TABLES } from '../store.js';
import { type Change, isCasConflict, type SharedState } from './state.js';

/** Back-off of the outbox after a failed publish: from, to (ms). */
const RETRY_MS = [100, 2_000] as const;

interface ActivityValue {
  accountId: string;
  entry: ActivityEntry;
}

const minNonNull = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/** Merges a key changed here with the bucket's version changed elsewhere: no revoke is undone. */
export function mergeKey(ours: KeyRecord, theirs: KeyRecord): KeyRecord {
  return {
    ...ours,
    revokedAt: minNonNull(ours.revokedAt, theirs.revokedAt),
    graceUntil: minNonNull(ours.graceUntil, theirs.graceUntil),
    rolledTo: ours.rolledTo ?? theirs.rolledTo,
  };
}

/** The shared directory over the local store and the shared state; feeds itself from the watcher. */
export function createSharedDirectory(
  store: ScannerStore,
  now: () => number,
  shared: SharedState,
  log: Logger,
): StoreDirectory {
  const revs = new Map<string, number>();
  const pending = new Map<string, number>();
  const queue: Array<{ seq: number; rec: OutboxRecord }> = [];
  let nextSeq = 0;
  store.each(TABLES.outbox, ([seq], rec) => {
    queue.push({ seq, rec });
    pending.set(rec.key, (pending.get(rec.key) ?? 0) + 1);
    nextSeq = seq + 1;
  });
  let actSeq = 0;
  let draining = false;

  const publish = async (rec: OutboxRecord): Promise<number> => {
    const { kv } = shared;
    // A pruned session: purged from the bucket too (every server prunes its own copy by time).
    if (rec.value === null) {
      await kv.purge(rec.key);
      return 0;
    }
    if (!rec.key.startsWith('key.')) return kv.put(rec.key, shared.seal(rec.key, rec.value));
    let value = rec.value as KeyRecord;
    let rev = revs.get(rec.key) ?? rec.rev;
    for (;;) {
      try {
        return await kv.put(rec.key, shared.seal(rec.key, value), { previousSeq: rev });
      } catch (err) {
        if (!isCasConflict(err)) throw err;
        const cur = await kv.get(rec.key);
        rev = cur?.revision ?? 0;
        // A forged current version is overwritten, never merged into ours.
        const theirs = cur && cur.operation === 'PUT' ? shared.open(rec.key, cur.value) : null;
        if (theirs) value = mergeKey(value, theirs.v as KeyRecord);
      }
    }
  };
  const drain = async () => {
    if (draining) return;
    draining = true;
    let wait: number = RETRY_MS[0];
    try {
      while (queue.length && !shared.closed()) {
        const { seq, rec } = queue[0];
        try {
          const rev = await publish(rec);
          revs.set(rec.key, rev);
          store.write([del(TABLES.outbox, [seq])]);
          queue.shift();
          const n = (pending.get(rec.key) ?? 1) - 1;
          if (n <= 0) pending.delete(rec.key);
          else pending.set(rec.key, n);
          wait = RETRY_MS[0];
        } catch (err) {
          log.warn(
            { key: rec.key, err: String(err), retryMs: wait },
            'shared directory: publish failed; retrying',
          );
          await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(wait * 2, RETRY_MS[1]);
        }
      }
    } finally {
      draining = false;
    }
  };

  const outbox = (change: DirectoryChange) => {
    const records =
      (change.accounts?.length ?? 0) + (change.keys?.length ?? 0) + (change.sessions?.length ?? 0);
    // Pruning is housekeeping: out of contact it waits (nothing is refused, nothing published).
    if (change.prunedSessions?.length && now() - shared.lastContact() > MAX_CONTACT_GAP_MS)
      throw new ScannerError('INTERNAL_ERROR', 'the shared key directory is briefly out of contact');
    if (records > 0 && now() - shared.lastContact() > MAX_CONTACT_GAP_MS)
      throw new ScannerError(
        'INTERNAL_ERROR',
        'the shared key directory is briefly out of contact; nothing was changed, retry shortly',
      );
    const recs: OutboxRecord[] = [];
    const rec = (key: string, value: unknown) => recs.push({ key, value, rev: revs.get(key) ?? 0 });
    for (const a of change.accounts ?? []) rec(`acct.${a.id}`, a);
    for (const k of change.keys ?? []) rec(`key.${k.id}`, k);
    for (const s of change.sessions ?? []) rec(`sess.${s.hash}`, s);
    for (const h of change.prunedSessions ?? []) rec(`sess.${h}`, null);
    for (const a of change.activity ?? [])
      rec(`act.${a.accountId}.${shared.serverId}-${actSeq++}`, a satisfies ActivityValue);
    const entries = recs.map((r) => ({ seq: nextSeq++, rec: r }));
    return {
      ops: [
        ...entries.map((e) => put(TABLES.outbox, [e.seq], e.rec)),
        // This server's own activity entries are applied here already: never again from the watcher.
        ...entries
          .filter((e) => e.rec.key.startsWith('act.'))
          .map((e) => put(TABLES.kvApplied, [e.rec.key], 0)),
      ] as Op[],
      after() {
        for (const e of entries) {
          queue.push(e);
          pending.set(e.rec.key, (pending.get(e.rec.key) ?? 0) + 1);
        }
        void drain();
      },
    };
  };

  const dir = createEmbeddedDirectory(store, now, { lastContact: shared.lastContact, outbox });

  const record =
    <T>(apply: (v: T) => DirectoryChange) =>
    (c: Change) => {
      if (!c.value || pending.has(c.key)) return;
      revs.set(c.key, c.revision);
      dir.applyRemote(apply(c.value.v as T));
    };
  shared.on(
    'acct.',
    record<AccountRecord>((a) => ({ accounts: [a] })),
  );
  shared.on(
    'key.',
    record<KeyRecord>((k) => ({ keys: [k] })),
  );
  shared.on(
    'sess.',
    record<SessionRecord>((s) => ({ sessions: [s] })),
  );
  shared.on('act.', (c) => {
    if (!c.value || store.get(TABLES.kvApplied, [c.key]) !== undefined) return;
    const { accountId, entry } = c.value.v as ActivityValue;
    dir.applyRemote({ activity: [{ accountId, entry }] }, [put(TABLES.kvApplied, [c.key], c.revision)]);
  });
  // Changes left in the outbox by a previous run are published first.
  if (queue.length) void drain();
  return dir;
}
