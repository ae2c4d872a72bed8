/**
 * A read replica of one chain: joins from the newest snapshot (or resumes from what it applied),
 * then applies the writer's change log from JetStream in sequence order, each entry as one atomic
 * batch on the main thread — so a replica's response, like the writer's, reads exactly "all of
 * entry N" (R1) and its anchors are the writer's anchors at the same block.
 *
 * It needs no node: `ingest` on a replica's ChainContext is {@link replicaIngest}, whose status
 * reports the replica's own state and lag behind the writer.
 */
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { ObjectStore } from '@nats-io/obj';
import type { Logger } from 'pino';
import type { Ingest } from '../ingest/index.js';
import { type IngestStatus, initialIngestStatus } from '../ingest/status.js';
import { type ChangeEntry, decodeChange } from '../storage/changelog.js';
import type { Store } from '../storage/index.js';
import { H, streamOf, subjectOf } from './names.js';
import { importSnapshot, newestSnapshot } from './snapshot.js';

/** Live state of a replica. */
export interface ReplicaStatus {
  state: 'bootstrapping' | 'catching_up' | 'following' | 'disconnected' | 'failed';
  /** Last applied change sequence and its writer commit time. */
  appliedSeq: number;
  appliedAtMs: number;
  /** The writer's newest entry this replica knows of (from the stream), and its head block. */
  writerSeq: number | null;
  writerHead: number | null;
  /** Blocks and seconds this replica is behind the writer (0 when caught up). */
  lagBlocks: number | null;
  lagSeconds: number;
  lastError: string | null;
  /** Snapshots imported since start (a replica behind the stream's retention re-joins from one). */
  snapshotsImported: number;
}

export interface Replica {
  /** Bootstraps (snapshot import when needed) and starts applying; resolves once caught up. */
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): ReplicaStatus;
}

/** Period of the writer-position probe (lag figures), milliseconds. */
const PROBE_MS = 500;

/**
 * Whether JetStream `stream` still holds the message after what `store` applied (its
 * `streamSeq`): a fresh store needs the stream to start at sequence 1 and hold something.
 * Errors: the JetStream manager's (stream info) propagate.
 */
async function streamHoldsNext(jsm: JetStreamManager, stream: string, store: Store): Promise<boolean> {
  const info = await jsm.streams.info(stream);
  const a = store.applied();
  if (a.seq === 0 && a.streamSeq === 0) return info.state.first_seq <= 1 && info.state.messages > 0;
  return a.streamSeq + 1 >= info.state.first_seq;
}

/**
 * Creates the replica of `chain` over `store`. `onApplied` runs after each applied entry (streams
 * publish the entry's frames; the projections registry re-reads its checkpoints).
 */
export function createReplica(o: {
  store: Store;
  chain: string;
  js: JetStreamClient;
  jsm: JetStreamManager;
  snapshots: ObjectStore;
  log: Logger;
  onApplied: (e: ChangeEntry) => void;
}): Replica {
  const { store, chain, log } = o;
  const stream = streamOf(chain);
  const st: ReplicaStatus = {
    state: 'bootstrapping',
    appliedSeq: store.applied().seq,
    appliedAtMs: store.applied().committedAtMs,
    writerSeq: null,
    writerHead: null,
    lagBlocks: null,
    lagSeconds: 0,
    lastError: null,
    snapshotsImported: 0,
  };
  let stopped = false;
  let consumerStop: (() => void) | null = null;
  let probe: NodeJS.Timeout | null = null;
  let caughtUp: (() => void) | null = null;

  const join = async () => {
    const name = await newestSnapshot(o.snapshots);
    if (!name) return false;
    const h = await importSnapshot(store, o.snapshots, name);
    st.snapshotsImported++;
    log.info({ chain, snapshot: name, seq: h.seq, head: h.head }, 'replica: joined from snapshot');
    return true;
  };

  const resumable = () => streamHoldsNext(o.jsm, stream, store);

  const probeWriter = async () => {
    try {
      const last = await o.jsm.streams.getMessage(stream, { last_by_subj: subjectOf(chain) });
      if (last) {
        st.writerSeq = Number(last.header?.get(H.seq) ?? 0);
        st.writerHead = last.header?.get(H.head) ? Number(last.header.get(H.head)) : null;
      }
      const a = store.applied();
      st.appliedSeq = a.seq;
      st.appliedAtMs = a.committedAtMs;
      const behind = st.writerSeq !== null && st.writerSeq > a.seq;
      st.lagBlocks =
        st.writerHead !== null && a.head ? Math.max(0, st.writerHead - a.head.number) : behind ? null : 0;
      st.lagSeconds = behind ? Math.max(0, (Date.now() - a.committedAtMs) / 1000) : 0;
      if (st.state === 'disconnected') st.state = behind ? 'catching_up' : 'following';
    } catch (err) {
      st.state = 'disconnected';
      st.lastError = (err as Error).message;
      st.lagSeconds = Math.max(0, (Date.now() - store.applied().committedAtMs) / 1000);
    }
  };

  const consume = async () => {
    const from = store.applied().streamSeq + 1;
    const consumer = await o.js.consumers.get(stream, {
      filter_subjects: subjectOf(chain),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    });
    // Short pulls: a pull that outlives a NATS restart is noticed by its missed heartbeats (half
    // of `expires`), so the replica resumes within seconds of NATS coming back, not 30 s.
    const messages = await consumer.consume({ expires: 4000 });
    consumerStop = () => void messages.stop();
    let parts: Buffer[] = [];
    let partsSeq = 0;
    for await (const m of messages) {
      if (stopped) break;
      const seq = Number(m.headers?.get(H.seq) ?? 0);
      const [i, n] = (m.headers?.get(H.part) ?? '0/1').split('/').map(Number);
      if (seq <= store.applied().seq) continue; // already in the snapshot or applied (a repeat)
      if (i === 0) {
        parts = [];
        partsSeq = seq;
      }
      if (seq !== partsSeq || i !== parts.length) continue; // a stray part of an abandoned entry
      parts.push(Buffer.from(m.data));
      if (i + 1 < n) continue;
      const e = decodeChange(parts.length === 1 ? parts[0] : Buffer.concat(parts));
      parts = [];
      if (e.seq !== seq) throw new Error(`replica: message says seq ${seq}, entry says ${e.seq}`);
      store.applyChange(e, m.seq);
      st.appliedSeq = e.seq;
      st.appliedAtMs = e.committedAtMs;
      o.onApplied(e);
      if (st.writerSeq !== null && e.seq >= st.writerSeq) {
        st.state = 'following';
        st.lagBlocks = 0;
        st.lagSeconds = 0;
        caughtUp?.();
      }
    }
  };

  const run = async () => {
    while (!stopped) {
      try {
        if (store.applied().seq === 0 || !(await resumable())) {
          st.state = 'bootstrapping';
          if (!(await join()) && !(await resumable()))
            throw new Error(
              `no snapshot in the bucket and the stream ${stream} does not start at sequence 1`,
            );
        }
        await probeWriter();
        st.state = st.writerSeq !== null && st.writerSeq > store.applied().seq ? 'catching_up' : 'following';
        if (st.state === 'following') caughtUp?.();
        await consume();
      } catch (err) {
        if (stopped) return;
        st.lastError = (err as Error).message;
        st.state = 'disconnected';
        log.warn({ chain, err: st.lastError }, 'replica: log consumption failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  };

  return {
    start() {
      probe = setInterval(() => void probeWriter(), PROBE_MS);
      const ready = new Promise<void>((r) => {
        caughtUp = () => {
          caughtUp = null;
          r();
        };
      });
      void run();
      return ready;
    },
    async stop() {
      stopped = true;
      if (probe) clearInterval(probe);
      consumerStop?.();
    },
    status: () => ({ ...st }),
  };
}

/**
 * The Ingest of a replica's ChainContext: no node, no decode pool; its status is the replica's
 * (state `following` while it applies the log, `halted` only when it failed for good) with the
 * writer's head as `nodeHead`, so projection staleness and /health read the same fields.
 */
export function replicaIngest(r: Replica): Ingest {
  return {
    status(): IngestStatus {
      const s = r.status();
      return {
        // A replica fetches nothing from a node: the writer checked the roots of what it applies.
        ...initialIngestStatus({ verifyRoots: false, segmentBlocks: 0, segmentBytes: 0 }),
        state: s.state === 'failed' ? 'halted' : s.state === 'following' ? 'following' : 'backfilling',
        haltReason: s.state === 'failed' ? `replica_failed: ${s.lastError}` : null,
        nodeHead: s.writerHead,
        lastError: s.lastError,
      };
    },
    poolStats: () => ({ queueSize: 0, utilization: 0, runTimeP50Ms: 0, runTimeP99Ms: 0 }),
    start() {},
    stop: () => r.stop(),
  };
}
