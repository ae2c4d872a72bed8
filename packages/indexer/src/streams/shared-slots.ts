/**
 * The open-stream ceiling shared by the writer and every replica of a scale-out deployment
 * (ROLE=writer or replica: NATS_URL set, ops/SCALE-OUT.md). A key's ceiling (8 by default) then
 * counts its streams on every process together, not 8 more per replica.
 *
 * Where: a JetStream stream of the index account, {@link CEILING_STREAM} (subjects
 * `idx-ceiling.<first 32 hex of SHA-256(key name)>`, one message per subject kept, memory storage),
 * created by the writer, opened by replicas. The last message of a key's subject is JSON
 * `{holders: {<process id>: {n, exp}}}`: each process's open streams of that key and the instant
 * (ms, its clock) until which that count stands.
 *
 * Taking a slot: this process's own count must be under the ceiling (checked at once, as without
 * NATS); then the key's entry is read and written back with this process's count + 1, as a
 * compare-and-set on its last sequence — refused when the holders' counts (expired ones dropped)
 * already reach the ceiling. Of two processes taking the last slot one wins the compare-and-set,
 * the other reads again and is refused: the ceiling holds exactly across processes. A release
 * writes the lower count back; every {@link RENEW_MS} a process writes each held count again with
 * a new expiry, so the slots of a process that died are free after at most {@link LEASE_MS}.
 *
 * When NATS does not answer within {@link REQUEST_TIMEOUT_MS} (an outage), a take falls back to
 * this process's own ceiling (logged: `stream ceiling: NATS did not answer`); the renewal writes
 * the true count once NATS answers again. Replicas' clocks are assumed within a few seconds of each
 * other (an expiry is read against the reader's clock).
 */
import { hash, randomBytes } from 'node:crypto';
import {
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { Logger } from 'pino';
import { DomainError } from '../errors/index.js';
import { ceilingReached, type StreamSlots } from './service.js';

/** The JetStream stream holding the shared ceiling's entries (one per key). */
export const CEILING_STREAM = 'IDX_CEILING';
/** Subject prefix of the entries (`idx-ceiling.<key hash>`); writers and replicas publish on it. */
export const CEILING_SUBJECT = 'idx-ceiling';
/** How long a process's count stands without being written again, ms. */
export const LEASE_MS = 30_000;
/** How often a process writes its counts again (new expiry), ms. */
export const RENEW_MS = 10_000;
/** Longest wait for one NATS request of the ceiling, ms; past it this process's ceiling decides. */
export const REQUEST_TIMEOUT_MS = 2_000;
/** Longest a close waits to give this process's holdings back, ms. */
const CLOSE_WAIT_MS = 1_000;
/** Compare-and-set attempts of one update before giving up (contention), count. */
const MAX_ATTEMPTS = 20;
/** Entries older than this are dropped by the server (every live one is written each RENEW_MS), ns. */
const MAX_AGE_NS = 10 * LEASE_MS * 1_000_000;

/** One process's holding of a key: open streams, and until when (ms) the count stands. */
interface Holding {
  n: number;
  exp: number;
}

/** The shared slots, with their renewal loop's stop. */
export interface SharedStreamSlots extends StreamSlots {
  /** This process's id in the entries. */
  readonly processId: string;
  /** Takes that fell back to this process's ceiling because NATS did not answer. */
  fallbacks(): number;
  /** Stops the renewal and gives this process's holdings back (best effort). */
  close(): Promise<void>;
}

/** Whether `err` is JetStream's "wrong last sequence" (a compare-and-set lost to another write). */
const isCasConflict = (err: unknown) =>
  err instanceof JetStreamApiError && (err.code === 10071 || err.code === 10164);

/** The subject of `key`'s entry: `idx-ceiling.<first 32 hex of SHA-256(key)>`. */
const subjectOf = (key: string) => `${CEILING_SUBJECT}.${hash('sha256', key, 'hex').slice(0, 32)}`;

/** `p`, or a rejection ("timed out") after {@link REQUEST_TIMEOUT_MS}. */
const withTimeout = <T>(p: Promise<T>): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('timed out')), REQUEST_TIMEOUT_MS).unref(),
    ),
  ]);

/**
 * The other processes' holdings in an entry's JSON `data` whose counts stand at `t` (ms):
 * `processId`'s own, expired, and malformed ones dropped. An entry that is not of this code counts
 * as empty (the next write replaces it).
 */
function standingHolders(data: Uint8Array, processId: string, t: number): Record<string, Holding> {
  const holders: Record<string, Holding> = {};
  try {
    const parsed = JSON.parse(new TextDecoder().decode(data)) as { holders?: Record<string, Holding> };
    for (const [p, h] of Object.entries(parsed.holders ?? {}))
      if (p !== processId && Number.isSafeInteger(h?.n) && h.n > 0 && typeof h.exp === 'number' && h.exp > t)
        holders[p] = { n: h.n, exp: h.exp };
  } catch {
    // Not an entry of this code: counted as empty, replaced by the next write.
  }
  return holders;
}

/**
 * Makes sure {@link CEILING_STREAM} exists: creates it when `create` (the writer), else
 * @throws Error when it is absent (a replica: start the writer first).
 */
async function ensureCeilingStream(jsm: JetStreamManager, create: boolean): Promise<void> {
  try {
    await jsm.streams.info(CEILING_STREAM);
  } catch (err) {
    if (!create)
      throw new Error(
        `the shared open-stream ceiling (${CEILING_STREAM}) is not on NATS: start the writer first (${(err as Error).message})`,
      );
    await jsm.streams.add({
      name: CEILING_STREAM,
      subjects: [`${CEILING_SUBJECT}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.Memory,
      max_msgs_per_subject: 1,
      max_age: MAX_AGE_NS,
    });
  }
}

/**
 * Opens the shared ceiling on a NATS connection's JetStream.
 * @param o.create true on the writer (creates {@link CEILING_STREAM} when absent); a replica only
 *   opens it.
 * @throws Error when the stream is absent on a replica (start the writer first) or cannot be
 *   created, or NATS refuses the credential's access to it (ops/SCALE-OUT.md permissions).
 */
export async function openSharedStreamSlots(o: {
  js: JetStreamClient;
  jsm: JetStreamManager;
  create: boolean;
  log: Logger;
  now?: () => number;
}): Promise<SharedStreamSlots> {
  const { js, jsm, log } = o;
  const now = o.now ?? Date.now;
  await ensureCeilingStream(jsm, o.create);
  const processId = `p_${randomBytes(8).toString('hex')}`;
  const local = new Map<string, number>();
  const queues = new Map<string, Promise<unknown>>();
  let fallbacks = 0;
  let stopped = false;

  /** The key's entry: its last sequence (0: none) and the holders whose counts stand now. */
  const read = async (subject: string) => {
    let m: Awaited<ReturnType<JetStreamManager['streams']['getMessage']>>;
    try {
      m = await withTimeout(jsm.streams.getMessage(CEILING_STREAM, { last_by_subj: subject }));
    } catch (err) {
      // No message for the subject yet (older servers answer with an error, newer with null).
      if (err instanceof JetStreamApiError && err.code === 10037) m = null;
      else throw err;
    }
    return { seq: m?.seq ?? 0, holders: m ? standingHolders(m.data, processId, now()) : {} };
  };

  /**
   * Writes the key's entry with this process holding `mine()` (compare-and-set on the entry read).
   * @param check sees the other processes' total first and may throw (the ceiling's refusal).
   */
  const update = async (key: string, mine: () => number, check?: (others: number) => void) => {
    const subject = subjectOf(key);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const cur = await read(subject);
      check?.(Object.values(cur.holders).reduce((sum, h) => sum + h.n, 0));
      const n = mine();
      if (n > 0) cur.holders[processId] = { n, exp: now() + LEASE_MS };
      try {
        await withTimeout(
          js.publish(subject, JSON.stringify({ holders: cur.holders }), {
            expect: { lastSubjectSequence: cur.seq },
            timeout: REQUEST_TIMEOUT_MS,
          }),
        );
        return;
      } catch (err) {
        if (!isCasConflict(err)) throw err;
      }
    }
    throw new Error(`${MAX_ATTEMPTS} compare-and-sets lost in a row`);
  };

  /** Runs `f` after the key's earlier updates on this process (they would only contend). */
  const serial = <T>(key: string, f: () => Promise<T>): Promise<T> => {
    const prev = queues.get(key) ?? Promise.resolve();
    const run = prev.then(f, f);
    const tail = run.catch(() => {});
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };
  const count = (key: string) => local.get(key) ?? 0;
  const sync = (key: string) =>
    serial(key, () => update(key, () => count(key))).catch((err) =>
      log.debug({ err: String(err) }, 'stream ceiling: count not written; the renewal retries'),
    );
  const releaseOf = (key: string) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const m = count(key) - 1;
      if (m <= 0) local.delete(key);
      else local.set(key, m);
      void sync(key);
    };
  };

  const renew = setInterval(() => {
    if (stopped) return;
    for (const key of local.keys()) void sync(key);
  }, RENEW_MS);
  renew.unref();

  return {
    processId,
    open: count,
    fallbacks: () => fallbacks,
    take(key, max) {
      if (count(key) >= max) throw ceilingReached(max);
      return serial(key, async () => {
        try {
          await update(
            key,
            () => count(key) + 1,
            (others) => {
              if (others + count(key) + 1 > max)
                throw ceilingReached(max, 'on every chain and every replica together');
            },
          );
        } catch (err) {
          if (err instanceof DomainError) throw err;
          // NATS did not answer: this process's own ceiling decides until it does.
          fallbacks++;
          if (fallbacks === 1 || fallbacks % 100 === 0)
            log.warn(
              { err: String(err), fallbacks },
              'stream ceiling: NATS did not answer; this process counts its own streams only until it does',
            );
          if (count(key) >= max) throw ceilingReached(max);
        }
        local.set(key, count(key) + 1);
        return releaseOf(key);
      });
    },
    async close() {
      stopped = true;
      clearInterval(renew);
      const keys = [...local.keys()];
      local.clear();
      // Bounded: a shutdown never waits on NATS (the lease frees what was not given back).
      await Promise.race([
        Promise.all(keys.map((k) => sync(k))),
        new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref()),
      ]);
    },
  };
}
