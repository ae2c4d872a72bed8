/**
 * The versions of the shared directory records this server holds (`acct.`, `key.`, `sess.`; the
 * ledger's balances carry their own, shared/ledger.ts): the rule that refuses a replay.
 *
 * Every write of a record seals a version above the one it was made on, and the writes of one key
 * are ordered by compare-and-set (shared/directory.ts), so the bucket's versions of a key increase
 * with its revisions. A record whose MAC checks but whose version does not increase past the one
 * held here, at a later revision, is a sealed record taken from the bucket's history and put back
 * (whoever may write the bucket can do that without the secret): it is refused, counted and
 * logged (state.ts `refuseReplay`). The version held is kept in the store (table `kvVersion`, in
 * the batch that applies the record), so it survives restarts; a server starting from an empty
 * store has none, and takes what the bucket holds last for each key.
 */
import { type KvVersion, type Op, put, type ScannerStore, TABLES } from '../store.js';

/** What to do with a watched record: see {@link VersionGuard.judge}. */
export type Verdict = 'apply' | 'seen' | 'replay';

/** The versions held here, in memory (loaded from the store at start) and in the store. */
export interface VersionGuard {
  /** The version and KV revision of `key` held here; undefined when none. */
  held(key: string): KvVersion | undefined;
  /**
   * The verdict on a watched record of `key` sealed at version `n`, at KV revision `rev`:
   * - `apply`: nothing is held for the key, or `n` is above the version held;
   * - `seen`: neither `n` nor `rev` is above what is held — this server's own write coming back,
   *   or the record it already holds (nothing to do, nothing counted);
   * - `replay`: a later write of the key (`rev` above) whose version does not increase: refused.
   */
  judge(key: string, n: number, rev: number): Verdict;
  /** The op recording `key` at `v`: write it in the batch that applies (or publishes) the record. */
  op(key: string, v: KvVersion): Op;
  /** Records `key` at `v` in memory, once the batch holding {@link op} is written. */
  remember(key: string, v: KvVersion): void;
}

/** The guard over the store's `kvVersion` table (read once, here). */
export function createVersionGuard(store: ScannerStore): VersionGuard {
  const held = new Map<string, KvVersion>();
  store.each(TABLES.kvVersion, ([key], v) => held.set(key, v));
  return {
    held: (key) => held.get(key),
    judge(key, n, rev) {
      const h = held.get(key);
      if (!h || n > h.n) return 'apply';
      return rev <= h.rev ? 'seen' : 'replay';
    },
    op: (key, v) => put(TABLES.kvVersion, [key], v),
    remember(key, v) {
      const h = held.get(key);
      // Never backwards: a slower path (a publish acknowledged late) cannot lower what is held.
      if (!h || v.n > h.n || (v.n === h.n && v.rev > h.rev)) held.set(key, v);
    },
  };
}
