/**
 * The stream service: single-topic SSE routes with durable ids and resume, the live candle
 * stream, and the multiplexed subscription. Every stream counts against its key's open-stream
 * ceiling (8 by default) once, whatever it carries; the ninth answers 429 without Retry-After.
 *
 * Resume: `after_sequence` (explicit, wins) or `Last-Event-ID` on single-topic routes; `resume=`
 * on /stream/subscribe only. Catch-up is served from the durable ring (RING_FRAMES per topic);
 * a consumer further behind gets a `lag` event and must backfill through REST.
 */
import { DomainError } from '../errors/index.js';
import type { Topic } from '../schema/rows/streams.js';
import { type ConnectionRegistry, createConnectionRegistry } from './connections.js';
import type { Hub } from './hub.js';
import { type Frame, RING_FRAMES, type StreamLog } from './log.js';
import { matches, type Selection } from './selectors.js';
import { type Later, type StreamRequest, type StreamSink, type StreamStart, whenReady } from './sink.js';

/** Catch-up frames read per storage call while replaying. */
const CATCHUP_CHUNK = 1000;

/** `start` carrying `release`, the slot it reserved (see {@link StreamStart.release}). */
function withRelease(release: () => void, start: (conn: StreamSink) => void): StreamStart {
  return Object.assign(start, { release });
}

export interface Streams {
  log: StreamLog;
  hub: Hub;
  /** Open /stream/subscribe connections whose candle selection can be replaced. */
  connections: ConnectionRegistry;
  /**
   * Opens a single-topic stream (later when the key's slot is taken from the shared ceiling).
   * @throws DomainError bad_request (resume point), rate_limited (ceiling; or the promise rejects).
   */
  openTopic(
    req: StreamRequest,
    topic: Topic,
    sel: Selection,
    afterSequence: number | undefined,
  ): Later<StreamStart>;
  /**
   * Opens a multiplexed stream of several topics with per-topic selections and resume points
   * (later when the key's slot is taken from the shared ceiling).
   */
  openMany(
    req: StreamRequest,
    topics: Map<Topic, Selection>,
    resume: Map<Topic, number>,
    extra: {
      lastEventIdIgnored: boolean;
      /** Runs after the `connected` frame and the catch-up; returns its cleanup. */
      onOpen?: (conn: StreamSink) => () => void;
      stalledOf?: (t: Topic) => string | null;
      /** Extra fields of the `connected` frame, computed when the stream opens. */
      connected?: () => Record<string, unknown>;
    },
  ): Later<StreamStart>;
  /**
   * Reserves a stream slot for the key; resolves to its release (later with a shared ceiling).
   * @throws DomainError rate_limited (429, no Retry-After), or the promise rejects with it.
   */
  reserve(req: StreamRequest): Later<() => void>;
  openCount(key: string): number;
}

/**
 * The open streams of each key, across every chain the process serves — and, in a scale-out
 * deployment, across the writer and every replica (streams/shared-slots.ts): the ceiling is per
 * key, not per (key, chain) nor per process. Key names are unique (duplicates are refused when
 * keys load, auth.ts), so counting by name counts one key.
 */
export interface StreamSlots {
  /**
   * Takes a slot of `key` (ceiling `max`): its release, at once (this process's ceiling) or once
   * the shared ceiling granted it.
   * @throws DomainError rate_limited (or the promise rejects with it) at the ceiling.
   */
  take(key: string, max: number): Later<() => void>;
  /** Streams of `key` open in this process. */
  open(key: string): number;
}

/** The refusal at a key's ceiling of `max` open streams (`where`: what the ceiling spans). */
export const ceilingReached = (max: number, where = 'on every chain together'): DomainError =>
  new DomainError(
    'rate_limited',
    `open-stream ceiling reached: ${max} streams per key, ${where}; close one first`,
  );

/** Creates the process's stream slots (one per process, shared by every chain's {@link Streams}). */
export function createStreamSlots(): StreamSlots {
  const open = new Map<string, number>();
  return {
    take(key, max) {
      const n = open.get(key) ?? 0;
      if (n >= max) throw ceilingReached(max);
      open.set(key, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const m = (open.get(key) ?? 1) - 1;
        if (m <= 0) open.delete(key);
        else open.set(key, m);
      };
    },
    open: (key) => open.get(key) ?? 0,
  };
}

/**
 * Replays the frames (after, last] of `topic` from `log` to `conn`, those `sel` matches, in
 * chunks of {@link CATCHUP_CHUNK}; records in `sent` the last sequence replayed. Returns false
 * when the consumer is behind the ring (a `lag` event is sent; the caller closes).
 */
function catchUp(
  log: StreamLog,
  conn: StreamSink,
  topic: Topic,
  sel: Selection,
  after: number,
  wrap: (f: Frame) => string,
  eventOf: (f: Frame) => string,
  sent: Map<Topic, number>,
): boolean {
  sent.set(topic, after);
  const last = log.last(topic);
  if (after > last) return true;
  const oldest = log.oldest(topic);
  if (after + 1 < oldest) {
    conn.send(
      'lag',
      null,
      JSON.stringify({
        topic,
        reason: 'behind_catch_up_ring',
        requestedAfter: after,
        oldestAvailable: oldest,
        ringFrames: RING_FRAMES,
        action: 'backfill through REST, then reconnect without a resume point',
      }),
    );
    return false;
  }
  for (let from = after; from < last && !conn.closed; ) {
    const frames = log.read(topic, from, CATCHUP_CHUNK);
    if (!frames.length) break;
    for (const f of frames) if (matches(sel, f)) conn.send(eventOf(f), f.id, wrap(f));
    from = frames[frames.length - 1].seq;
    sent.set(topic, from);
  }
  return true;
}

/**
 * A chain's stream service.
 * @param slots the process's {@link StreamSlots} (default: slots of this chain alone, for tests).
 */
export function createStreams(log: StreamLog, hub: Hub, slots: StreamSlots = createStreamSlots()): Streams {
  const reserve = (req: StreamRequest) =>
    slots.take(req.principal?.name ?? 'anonymous', req.principal?.maxStreams ?? 8);

  const openMany: Streams['openMany'] = (req, topics, resume, extra) =>
    whenReady(reserve(req), (release) => startMany(release, topics, resume, extra));

  /** The start of a multiplexed stream whose slot is taken (`release` gives it back). */
  const startMany = (
    release: () => void,
    topics: Map<Topic, Selection>,
    resume: Map<Topic, number>,
    extra: Parameters<Streams['openMany']>[3],
  ): StreamStart =>
    withRelease(release, (conn) => {
      conn.onClose(release);
      const multi = topics.size > 1 || extra.stalledOf !== undefined;
      const wrap = multi
        ? (f: Frame) => `{"topic":"${f.topic}","sequence":${f.seq},"block":${f.block},"data":${f.json}}`
        : (f: Frame) => f.json;
      const eventOf = (f: Frame) => f.event;
      if (multi) {
        const heads = Object.fromEntries(
          [...topics.keys()].map((t) => [t, { namespace: log.namespace(t), lastSequence: log.last(t) }]),
        );
        conn.send(
          'connected',
          null,
          JSON.stringify({
            topics: heads,
            ringFrames: RING_FRAMES,
            lastEventIdHonoured: !extra.lastEventIdIgnored,
            ...extra.connected?.(),
          }),
        );
        if (extra.lastEventIdIgnored) {
          conn.send(
            'notice',
            null,
            JSON.stringify({
              reason:
                'Last-Event-ID is not honoured on /stream/subscribe: use resume=topic:v1.<ns>.<seq>; served live',
            }),
          );
        }
      }
      // Catch-up and subscription happen in one synchronous turn: no frame can be missed between them.
      // The catch-up reads what RocksDB holds, which can include a block whose frames the hub has
      // not published yet (the writer thread committed it, its callback has not run): the hub then
      // delivers them again. `sent` is the last sequence sent per topic; the hub's older frames
      // are skipped (no duplicate, and the Last-Event-ID point is never re-crossed).
      const sent = new Map<Topic, number>();
      for (const [t, after] of resume) {
        if (!catchUp(log, conn, t, topics.get(t)!, after, wrap, eventOf, sent)) {
          conn.close();
          return;
        }
      }
      const stalled = new Map<Topic, string | null>();
      const checkStalled = () => {
        if (!extra.stalledOf) return;
        for (const t of topics.keys()) {
          const why = extra.stalledOf(t);
          const was = stalled.get(t) ?? null;
          if (why && !was) conn.send('stalled', null, JSON.stringify({ topic: t, reason: why }));
          if (!why && was) conn.send('resumed', null, JSON.stringify({ topic: t }));
          stalled.set(t, why);
        }
      };
      checkStalled();
      const extraClose = extra.onOpen?.(conn);
      const remove = hub.add({
        topics: new Set(topics.keys()),
        deliver(f) {
          const sel = topics.get(f.topic);
          if (!sel || f.seq <= (sent.get(f.topic) ?? 0)) return;
          sent.set(f.topic, f.seq);
          if (matches(sel, f)) conn.send(eventOf(f), f.id, wrap(f));
        },
        onCommit: checkStalled,
      });
      conn.onClose(() => {
        remove();
        extraClose?.();
      });
    });

  return {
    log,
    hub,
    connections: createConnectionRegistry(),
    reserve,
    openCount: (k) => slots.open(k),
    openTopic(req, topic, sel, afterSequence) {
      let after = afterSequence;
      if (after === undefined) {
        const lei = req.lastEventId;
        if (lei) {
          const p = log.parseId(lei);
          if (p === null) throw new DomainError('bad_request', 'Last-Event-ID is not an id of this service');
          if (p === 'other') {
            // An id from another store generation or topic: its sequence means nothing here.
            return whenReady(reserve(req), (release) =>
              withRelease(release, (conn) => {
                conn.onClose(release);
                conn.send(
                  'lag',
                  null,
                  JSON.stringify({
                    topic,
                    reason: 'id_from_another_generation_or_topic',
                    action: 'backfill through REST, then reconnect without a resume point',
                  }),
                );
                conn.close();
              }),
            );
          }
          if (p.topic !== topic)
            throw new DomainError('bad_request', `Last-Event-ID belongs to topic ${p.topic}`);
          after = p.seq;
        }
      }
      if (after !== undefined && after > log.last(topic)) {
        throw new DomainError(
          'bad_request',
          `after_sequence ${after} is beyond the topic's last sequence ${log.last(topic)}`,
        );
      }
      return openMany(
        req,
        new Map([[topic, sel]]),
        after !== undefined ? new Map([[topic, after]]) : new Map(),
        { lastEventIdIgnored: false },
      );
    },
    openMany,
  };
}
