/**
 * The writer's publisher: ships the store's change log to JetStream in sequence order, one entry
 * per message (split into parts past NATS's 1 MiB payload), never blocking the writer — entries
 * wait durably in the store's CHANGELOG table until JetStream acknowledges them, then are pruned.
 *
 * No gap, no duplicate a replica would apply twice: every part has the message id
 * `<chain>:<generation>:<seq>:<part>` (JetStream drops a repeat inside its duplicate window), the
 * publisher resumes after the last entry the stream holds (read back at start and after every
 * reconnect), and replicas skip any entry at or below what they applied.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection, nanos } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { headNumberOf } from '../storage/changelog.js';
import type { Store } from '../storage/index.js';
import { H, MAX_PART_BYTES, streamOf, subjectOf } from './names.js';

/** Retention of a chain's change-log stream. */
export interface LogRetention {
  /** Oldest message kept, seconds (replicas further behind re-join from a snapshot). */
  maxAgeSeconds: number;
  /** JetStream duplicate window, seconds. */
  duplicateWindowSeconds: number;
}

export const DEFAULT_RETENTION: LogRetention = { maxAgeSeconds: 7 * 86_400, duplicateWindowSeconds: 600 };

/** Entries published per round (each awaited in order before the next round). */
const ROUND_ENTRIES = 256;
/** Back-off after a failed round, milliseconds (doubling up to the cap). */
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

export interface PublisherStatus {
  /** Last change sequence JetStream acknowledged. */
  published: number;
  /** Entries committed and not yet acknowledged. */
  pending: number;
  /** JetStream sequence of the last acknowledged message. */
  streamSeq: number;
  lastError: string | null;
}

export interface Publisher {
  start(): void;
  stop(): Promise<void>;
  status(): PublisherStatus;
}

/**
 * Creates the stream if absent (limits retention, file storage) and returns its last message's
 * change sequence and JetStream sequence (0, 0 when empty).
 */
export async function ensureStream(
  jsm: JetStreamManager,
  chain: string,
  retention: LogRetention,
): Promise<{ seq: number; streamSeq: number }> {
  const name = streamOf(chain);
  const subject = subjectOf(chain);
  const info = await jsm.streams.info(name).catch(() => null);
  if (!info)
    await jsm.streams.add({
      name,
      subjects: [subject],
      storage: 'file',
      retention: 'limits',
      max_age: nanos(retention.maxAgeSeconds * 1000),
      duplicate_window: nanos(retention.duplicateWindowSeconds * 1000),
      discard: 'old',
    } as never);
  const last = await jsm.streams.getMessage(name, { last_by_subj: subject }).catch(() => null);
  if (!last) return { seq: 0, streamSeq: 0 };
  const seq = Number(last.header?.get(H.seq) ?? 0);
  const [part, of] = (last.header?.get(H.part) ?? '0/1').split('/').map(Number);
  // A half-published entry (writer died between its parts) counts as not published.
  return { seq: part + 1 === of ? seq : seq - 1, streamSeq: last.seq };
}

/** Publishes `store`'s change log for `chain` on `js`. */
export function createPublisher(o: {
  store: Store;
  chain: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  nc: NatsConnection;
  log: Logger;
  retention?: LogRetention;
}): Publisher {
  const { store, chain, js, log } = o;
  if (!store.changeLog.enabled) throw new Error('publisher: the store was opened without changeLog');
  const subject = subjectOf(chain);
  const st: PublisherStatus = { published: 0, pending: 0, streamSeq: 0, lastError: null };
  let stopped = false;
  let wake: (() => void) | null = null;
  const off = store.changeLog.onAppend(() => wake?.());
  let loop: Promise<void> | null = null;

  const publishEntry = async (raw: Buffer, seq: number) => {
    const parts = Math.max(1, Math.ceil(raw.length / MAX_PART_BYTES));
    const headNumber = headNumberOf(raw);
    let ackSeq = 0;
    for (let i = 0; i < parts; i++) {
      const h = headers();
      h.set(H.seq, String(seq));
      h.set(H.part, `${i}/${parts}`);
      h.set(H.generation, store.generation);
      if (headNumber !== null) h.set(H.head, String(headNumber));
      const ack = await js.publish(subject, raw.subarray(i * MAX_PART_BYTES, (i + 1) * MAX_PART_BYTES), {
        msgID: `${chain}:${store.generation}:${seq}:${i}`,
        headers: h,
      });
      ackSeq = ack.seq;
    }
    return ackSeq;
  };

  const run = async () => {
    let backoff = RETRY_MIN_MS;
    let synced = false;
    while (!stopped) {
      try {
        if (!synced) {
          const at = await ensureStream(o.jsm, chain, o.retention ?? DEFAULT_RETENTION);
          if (at.seq > store.changeLog.last())
            throw new Error(
              `stream ${streamOf(chain)} holds sequence ${at.seq}, past this store's log (${store.changeLog.last()}): another writer or a wiped data directory; refusing to publish`,
            );
          st.published = at.seq;
          st.streamSeq = at.streamSeq;
          store.changeLog.prune(at.seq);
          synced = true;
        }
        const entries = store.changeLog.readRaw(st.published, ROUND_ENTRIES);
        st.pending = store.changeLog.last() - st.published;
        if (!entries.length) {
          await new Promise<void>((r) => {
            wake = r;
            if (store.changeLog.last() > st.published || stopped) r();
          });
          wake = null;
          continue;
        }
        for (const e of entries) {
          if (stopped) return;
          st.streamSeq = await publishEntry(e.raw, e.seq);
          st.published = e.seq;
        }
        store.changeLog.prune(st.published);
        st.pending = store.changeLog.last() - st.published;
        st.lastError = null;
        backoff = RETRY_MIN_MS;
      } catch (err) {
        if (stopped) return;
        const msg = (err as Error).message;
        if (st.lastError !== msg) log.warn({ chain, err: msg }, 'change log: publish failed; retrying');
        st.lastError = msg;
        synced = false; // read the stream's last entry again: some of ours may have landed
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(RETRY_MAX_MS, backoff * 2);
      }
    }
  };

  return {
    start() {
      loop ??= run();
    },
    async stop() {
      stopped = true;
      off();
      wake?.();
      await loop;
    },
    status: () => ({ ...st, pending: store.changeLog.last() - st.published }),
  };
}
