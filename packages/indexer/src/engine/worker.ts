/**
 * The ingest engine thread of one chain (see protocol.ts): composes the chain's write side on the
 * serving thread's database (compose.ts), starts it on `start`, relays each commit as one message,
 * sends its status every {@link STATUS_MS}, answers metric scrapes from its own registry, and on
 * `stop` stops every lane, drains the writes and says `stopped`. Its log lines go straight to fd 1.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { redactingLoggerOptions } from '@chain-indexer/platform/security';
import { thisThreadStats, threadCpuMicros } from '@chain-indexer/platform/threads';
import { pino } from 'pino';
import client from 'prom-client';
import { createChainMetrics } from '../metrics/chain.js';
import { setTurnBudget } from '../storage/index.js';
import { packFrames } from '../streams/log.js';
import { type ChainEngine, composeEngine } from './compose.js';
import type { EngineInit, EngineStatus, FromEngine, ThreadHeap, ToEngine } from './protocol.js';

/** Stream frames per message to the serving thread at most (a live block's fit in one). */
const FRAMES_PER_MESSAGE = 512;
/** How often the status goes to the serving thread, ms (also sent with every ready/stop). */
const STATUS_MS = 200;
/**
 * How often the engine looks for a change of state the serving thread shows at once that no event
 * announces (ingest's state, the publisher's position), ms: such a change goes out within this
 * much, not at the next {@link STATUS_MS} tick. A write leaving the queue (the writes in flight,
 * the traces lane's checkpoint, a refusal) is announced by the store and goes out in the same turn.
 * Every wake of this thread takes a core from the serving thread or its clients on a small
 * machine: the watch was every 10 ms (100 wakeups a second, idle or not).
 */
const WATCH_MS = 100;
/**
 * Background slices per event-loop iteration here, ms (storage/turns.ts): this thread serves no
 * read, so its builds need not yield every 2 ms; but the writer thread's acknowledgement of a live
 * block waits for the turn to end before the commit (and its frames) goes to the serving thread,
 * so the turn stays short (20 ms put up to 20 ms on every SSE frame).
 */
const ENGINE_TURN_BUDGET_MS = 5;
setTurnBudget(ENGINE_TURN_BUDGET_MS);

const init = workerData as EngineInit;
const port = parentPort!;
const post = (m: FromEngine, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);
const log = pino(
  { level: init.logLevel, base: { chain: init.chain.name, thread: 'engine' }, ...redactingLoggerOptions() },
  pino.destination({ dest: 1, sync: false }),
);
const registry = new client.Registry();
const metrics = createChainMetrics(registry);
/** Heaps the decode and replay threads reported with their last task, by thread (workers/decode/worker.ts, workers/replay/worker.ts). */
const decodeHeaps = new Map<number, ThreadHeap>();

/** This thread's heap. */
function ownHeap(): ThreadHeap {
  return { thread: `engine-${threadId}`, ...thisThreadStats() };
}

/** The writer thread's heap as it last reported it (none before its first answer). */
function writerHeap(e: ChainEngine): ThreadHeap[] {
  const h = e.store.writerHeap();
  if (!h) return [];
  const { threadId: id, ...rest } = h;
  return [{ thread: `writer-${id}`, ...rest }];
}

/** The status's gauges (pool, heaps, thread CPU) and when they were read (performance.now, ms). */
let gauges: { at: number; v: Pick<EngineStatus, 'pool' | 'heaps' | 'cpuMicros'> } | null = null;

/**
 * The pool's run and wait summaries, every thread's heap and this thread's CPU: read at most every
 * {@link STATUS_MS} (the pool's summaries walk its histograms: ~1 ms, once per live block and per
 * settled write, was 5 % of the engine thread while it caught up through the live window).
 */
function gaugesOf(e: ChainEngine, fresh: boolean): Pick<EngineStatus, 'pool' | 'heaps' | 'cpuMicros'> {
  const now = performance.now();
  if (fresh || !gauges || now - gauges.at >= STATUS_MS)
    gauges = {
      at: now,
      v: {
        pool: e.ingest.poolStats(),
        heaps: [ownHeap(), ...writerHeap(e), ...decodeHeaps.values()],
        cpuMicros: threadCpuMicros(),
      },
    };
  return gauges.v;
}

/**
 * The engine's status: ingest, traces, storage and the publisher as they are now; the gauges as of
 * at most {@link STATUS_MS} ago unless `fresh` (the periodic tick, ready and stop read them anew).
 */
function statusOf(e: ChainEngine, fresh = false): EngineStatus {
  const err = e.store.writeError();
  return {
    ingest: e.ingest.status(),
    traces: e.traces.status(),
    storage: {
      inFlight: e.store.inFlight(),
      cache: e.store.cacheStats(),
      writeError: err ? err.message : null,
    },
    publisher: e.publisher(),
    ...gaugesOf(e, fresh),
  };
}

/**
 * What of the engine's status the serving thread must see at once: a change of it is sent without
 * waiting for the next {@link STATUS_MS} tick.
 */
function signatureOf(e: ChainEngine): string {
  const i = e.ingest.status();
  const p = e.publisher();
  return `${i.state}|${e.traces.status().checkpoint}|${p?.published}|${p?.lastError}|${e.store.writeError()?.message}|${e.store.inFlight().batches}`;
}

async function main(): Promise<void> {
  // Assigned before any commit can happen (commits start with `start`, after it is composed).
  let engine!: ChainEngine;
  /** The signature of the last status sent (with a commit or alone). */
  let seen = '';
  const signature = () => signatureOf(engine);
  engine = await composeEngine(init, {
    log,
    metrics,
    // The status travels with the commit: what /health says is never older than what reads see.
    onCommit: (c) => {
      // Frames beyond one message go ahead in 'frames' messages (committed already: RocksDB holds
      // them), so the serving thread never decodes thousands in one turn. Each message's frames
      // are one transferred buffer (streams/log.ts packFrames), not objects to clone.
      let at = 0;
      for (; c.frames.length - at > FRAMES_PER_MESSAGE; at += FRAMES_PER_MESSAGE) {
        const packed = packFrames(c.frames.slice(at, at + FRAMES_PER_MESSAGE));
        post({ t: 'frames', frames: packed }, [packed.buf]);
      }
      const frames = packFrames(at ? c.frames.slice(at) : c.frames);
      seen = signature();
      const status = statusOf(engine);
      // Epoch ms with sub-millisecond precision (comparable across threads): Date.now()'s whole
      // milliseconds made the hand-over histogram's lower buckets unreadable.
      post(
        {
          t: 'commit',
          head: c.head,
          frames,
          postedAt: performance.timeOrigin + performance.now(),
          status,
        },
        [frames.buf],
      );
    },
    onDecodeHeap: ({ threadId: id, ...h }) => decodeHeaps.set(id, { thread: `decode-${id}`, ...h }),
    onReplayHeap: ({ threadId: id, ...h }) => decodeHeaps.set(id, { thread: `replay-${id}`, ...h }),
  });
  post({
    t: 'ready',
    projections: engine.registry.projections.map((p) => ({
      name: p.name,
      version: p.version,
      backs: p.backs,
    })),
    status: statusOf(engine, true),
  });
  let stopping = false;
  const send = (fresh = false) => {
    seen = signature();
    post({ t: 'status', status: statusOf(engine, fresh) });
  };
  const sendIfChanged = () => {
    if (!stopping && signature() !== seen) send();
  };
  // A write that left the queue is shown in the same turn (after the commit message, if it is one).
  let poked = false;
  engine.store.onWriteSettled(() => {
    if (poked || stopping) return;
    poked = true;
    setImmediate(() => {
      poked = false;
      sendIfChanged();
    });
  });
  const timer = setInterval(() => send(true), STATUS_MS);
  const watch = setInterval(sendIfChanged, WATCH_MS);
  port.on('message', (m: ToEngine) => {
    if (m.t === 'start') engine.start();
    else if (m.t === 'metrics')
      void registry.getMetricsAsJSON().then((json) => post({ t: 'metrics', id: m.id, json }));
    else if (m.t === 'stop' && !stopping) {
      stopping = true;
      clearInterval(timer);
      clearInterval(watch);
      void engine
        .stop()
        .catch((err: Error) => log.error({ err: err.message }, 'engine: stop failed'))
        .then(() => {
          post({ t: 'status', status: statusOf(engine, true) });
          log.flush();
          post({ t: 'stopped' });
          port.close();
        });
    }
  });
}

main().catch((err: Error) => {
  post({ t: 'fatal', error: err.stack ?? err.message });
});
