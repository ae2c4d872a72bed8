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
 * - Account, key and session records carry a version inside their MAC (state.ts) and are
 *   compare-and-set against the revision this server holds, with the version above the one held:
 *   the versions of a key increase with its revisions. When another server changed the record
 *   meanwhile, its change is merged into ours and ours takes the next version: for keys no revoke
 *   is ever undone (the earliest `revokedAt` and `graceUntil` win, `rolledTo` is kept, name and
 *   allowlist are ours), for sessions the earliest `revokedAt` wins, accounts are
 *   last-writer-wins (operator changes).
 * - A watched record is applied only when its version increases past the one held here
 *   (versions.ts); one put back from the bucket's history is refused, counted and logged. And
 *   applying never clears a revoke: a key keeps the earliest `revokedAt` and `graceUntil` it was
 *   ever given here, a session its `revokedAt` (monotone merge), whatever a record says.
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
import { del, type KvVersion, type Op, type OutboxRecord, put, type ScannerStore, TABLES } from '../store.js';
import { type Change, isCasConflict, type SharedState } from './state.js';
import { createVersionGuard, type VersionGuard } from './versions.js';

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

/** Merges two versions of a session: the earliest revoke wins (a revoke is never undone). */
export function mergeSession(ours: SessionRecord, theirs: SessionRecord): SessionRecord {
  return { ...ours, revokedAt: minNonNull(ours.revokedAt ?? null, theirs.revokedAt ?? null) };
}

/** The directory change that carries record `value` of KV key `key` (`acct.`, `key.`, `sess.`). */
function changeOf(key: string, value: unknown): DirectoryChange {
  if (key.startsWith('acct.')) return { accounts: [value as AccountRecord] };
  if (key.startsWith('key.')) return { keys: [value as KeyRecord] };
  return { sessions: [value as SessionRecord] };
}

/** `value` of `key` merged with `other`, so that no revoke is undone (accounts: `value`). */
function monotone(key: string, value: unknown, other: unknown): unknown {
  if (other === undefined || other === null) return value;
  if (key.startsWith('key.')) return mergeKey(value as KeyRecord, other as KeyRecord);
  if (key.startsWith('sess.')) return mergeSession(value as SessionRecord, other as SessionRecord);
  return value;
}

/** The copy in `dir` of the record at KV key `key` (`acct.`, `key.`, `sess.<hex>`), or undefined. */
function localRecord(dir: StoreDirectory, key: string): unknown {
  const id = key.slice(key.indexOf('.') + 1);
  if (key.startsWith('acct.')) return dir.account(id);
  if (key.startsWith('key.')) return dir.key(id);
  if (key.startsWith('sess.'))
    return /^[0-9a-f]+$/.test(id) ? dir.session(Buffer.from(id, 'hex')) : undefined;
  return undefined;
}

/**
 * Refuses a change of `records` records (or `pruned` session prunes) made `gapMs` after the last
 * contact with the shared state, past {@link MAX_CONTACT_GAP_MS}: pruning is housekeeping and
 * waits; a change is refused, nothing changed.
 * @throws ScannerError INTERNAL_ERROR (503).
 */
function checkContact(records: number, pruned: number, gapMs: number): void {
  if (pruned > 0 && gapMs > MAX_CONTACT_GAP_MS)
    throw new ScannerError('INTERNAL_ERROR', 'the shared key directory is briefly out of contact');
  if (records > 0 && gapMs > MAX_CONTACT_GAP_MS)
    throw new ScannerError(
      'INTERNAL_ERROR',
      'the shared key directory is briefly out of contact; nothing was changed, retry shortly',
    );
}

/**
 * Publishes one outbox record. Activity entries are write-once (version 1); a pruned session is
 * purged; account, key and session records are compare-and-set with the next version.
 * `local` reads this server's copy of a record (a revoke applied since the change was made is kept).
 * @returns the version published (null for a purge or an activity entry), and the newer
 *   record written elsewhere meanwhile that was merged into ours (undefined when none).
 */
async function publishRecord(
  shared: SharedState,
  versions: VersionGuard,
  rec: OutboxRecord,
  local: (key: string) => unknown,
): Promise<{ version: KvVersion | null; merged?: unknown }> {
  const { kv } = shared;
  // A pruned session: purged from the bucket too (every server prunes its own copy by time).
  if (rec.value === null) {
    await kv.purge(rec.key);
    return { version: null };
  }
  if (rec.key.startsWith('act.')) {
    await kv.put(rec.key, shared.seal(rec.key, rec.value, 1));
    return { version: null };
  }
  const held = versions.held(rec.key);
  let base = held?.n ?? 0;
  let rev = held?.rev ?? rec.rev;
  // What this server holds now may carry a revoke applied since the change was made.
  let value = monotone(rec.key, rec.value, local(rec.key));
  let merged: unknown;
  for (;;) {
    const n = base + 1;
    try {
      const r = await kv.put(rec.key, shared.seal(rec.key, value, n), { previousSeq: rev });
      return { version: { n, rev: r }, merged };
    } catch (err) {
      if (!isCasConflict(err)) throw err;
      const cur = await kv.get(rec.key);
      rev = cur?.revision ?? 0;
      // A newer version written elsewhere is merged into ours, which goes above it. A forged
      // record, or an older one put back (a replay), is overwritten, never merged.
      const theirs = cur && cur.operation === 'PUT' ? shared.open(rec.key, cur.value) : null;
      if (theirs && (theirs.n > base || (!held && theirs.n === base))) {
        value = monotone(rec.key, value, theirs.v);
        merged = theirs.v;
        base = theirs.n;
      }
    }
  }
}

/** The shared directory over the local store and the shared state; feeds itself from the watcher. */
export function createSharedDirectory(
  store: ScannerStore,
  now: () => number,
  shared: SharedState,
  log: Logger,
): StoreDirectory {
  const versions = createVersionGuard(store);
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

  const local = (key: string): unknown => localRecord(dir, key);

  const publish = (rec: OutboxRecord) => publishRecord(shared, versions, rec, local);
  const drain = async () => {
    if (draining) return;
    draining = true;
    let wait: number = RETRY_MS[0];
    try {
      while (queue.length && !shared.closed()) {
        const { seq, rec } = queue[0];
        try {
          const out = await publish(rec);
          const ops: Op[] = [del(TABLES.outbox, [seq])];
          if (out.version) ops.push(versions.op(rec.key, out.version));
          // Merged with a change made elsewhere: this server's copy (which may hold a later change
          // of its own, still queued) takes what the merge brought, a revoke made there.
          const mine = local(rec.key);
          if (out.version && out.merged !== undefined && mine !== undefined && !rec.key.startsWith('acct.'))
            dir.applyRemote(changeOf(rec.key, monotone(rec.key, mine, out.merged)), ops);
          else store.write(ops);
          if (out.version) versions.remember(rec.key, out.version);
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
    checkContact(records, change.prunedSessions?.length ?? 0, now() - shared.lastContact());
    const recs: OutboxRecord[] = [];
    const rec = (key: string, value: unknown) => recs.push({ key, value, rev: versions.held(key)?.rev ?? 0 });
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

  /**
   * Applies a watched account, key or session record when its version increases past the one
   * held here; refuses (counts, logs) one put back from the history; never clears a revoke.
   */
  const record = (c: Change) => {
    if (!c.value || pending.has(c.key)) return;
    const verdict = versions.judge(c.key, c.value.n, c.revision);
    if (verdict === 'seen') return;
    if (verdict === 'replay') return shared.refuseReplay(c.key, c.value.n, versions.held(c.key)?.n ?? 0);
    const v: KvVersion = { n: c.value.n, rev: c.revision };
    dir.applyRemote(changeOf(c.key, monotone(c.key, c.value.v, local(c.key))), [versions.op(c.key, v)]);
    versions.remember(c.key, v);
  };
  shared.on('acct.', record);
  shared.on('key.', record);
  shared.on('sess.', record);
  shared.on('act.', (c) => {
    if (!c.value || store.get(TABLES.kvApplied, [c.key]) !== undefined) return;
    const { accountId, entry } = c.value.v as ActivityValue;
    dir.applyRemote({ activity: [{ accountId, entry }] }, [put(TABLES.kvApplied, [c.key], c.revision)]);
  });
  // Changes left in the outbox by a previous run are published first.
  if (queue.length) void drain();
  return dir;
}
