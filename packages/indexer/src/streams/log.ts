/**
 * Durable stream log: per topic, a gap-free sequence of frames written in the same atomic batch
 * as the block they come from (append-only: a reorg appends a `reorg` frame naming the removed
 * blocks, it never deletes delivered frames). A bounded ring per topic serves resume.
 *
 * Ids are `v1.<topic>-<storeGeneration>.<seq>`: bound to topic and store generation, so an id
 * from another topic or from a wiped store is recognised and refused.
 */

import {
  type FrameKeys,
  type PackedFrames,
  type PendingFrame,
  packFrameTexts,
  TOPIC_NAMES,
  TOPICS,
  type Topic,
  unpackFrameTexts,
} from '../schema/rows/streams.js';
import { STREAM_FRAME, STREAM_SEQ } from '../schema/tables/streams.js';
import { type BlockBatch, inView, type Store, type WriteOp } from '../storage/index.js';

export type { PackedFrames };

const TOPIC_BY_ID = new Map<number, Topic>(TOPIC_NAMES.map((t) => [TOPICS[t], t]));

/**
 * Frames retained per topic for resume (catch-up ring; STREAM_RING_FRAMES overrides, for tests).
 * Older consumers get a lag event. 50,000 frames covers well over an hour of a busy chain's blocks.
 */
export const RING_FRAMES = Number(process.env.STREAM_RING_FRAMES ?? 50_000);

export interface Frame extends PendingFrame {
  seq: number;
  id: string;
  block: number;
}

/** The stored row text of a frame: its header line, then its JSON verbatim. */
function rowText(f: { event: string; keys: FrameKeys; json: string }, block: number): string {
  // The header is JSON.stringify output, which never holds a raw newline (no second escaping pass).
  return `{"event":${JSON.stringify(f.event)},"block":${block},"keys":${JSON.stringify(f.keys)}}\n${f.json}`;
}

/** Packs committed frames (in sequence order) for the hand-over ({@link PackedFrames}). */
export function packFrames(frames: readonly Frame[]): PackedFrames {
  return packFrameTexts(frames.map((f) => ({ topic: f.topic, seq: f.seq, text: rowText(f, f.block) })));
}

export interface StreamLog {
  /** Next sequence of a topic minus one: the last written. 0 when none. */
  last(topic: Topic): number;
  /** Oldest retained sequence (1 when nothing was pruned). */
  oldest(topic: Topic): number;
  namespace(topic: Topic): string;
  idOf(topic: Topic, seq: number): string;
  /** Parses an id; null when malformed, `other` when it belongs to another topic or store generation. */
  parseId(id: string): { topic: Topic; seq: number } | 'other' | null;
  /** Appends frames to `batch` (raw ops, no undo), returning them with sequences. */
  append(batch: BlockBatch, block: number, frames: PendingFrame[]): Frame[];
  /** Ops appending frames (for a rollback batch). */
  appendOps(block: number, frames: PendingFrame[]): { ops: WriteOp[]; frames: Frame[] };
  /** Frames with seq in (after, after+max], oldest first. */
  read(topic: Topic, after: number, max: number): Frame[];
  /**
   * Replica side: the frames a replicated batch appended (its stream rows), in sequence order;
   * the topics' last sequences move with them. The same sequence names the same frame on every
   * replica and on the writer (ids are bound to the replicated store generation).
   */
  observe(ops: WriteOp[]): Frame[];
  /**
   * Serving side of an engine thread: frames the engine appended and committed (in sequence
   * order); the topics' last sequences move with them. Returns them, to publish.
   */
  advance(frames: Frame[]): Frame[];
  /**
   * {@link advance} for frames packed by the engine thread ({@link packFrames}): the topics'
   * last sequences move with `p.last`; returns the frames of `topics` only (those someone
   * listens to), decoded, in sequence order.
   */
  unpack(p: PackedFrames, topics: ReadonlySet<Topic>): Frame[];
}

export function createStreamLog(store: Store): StreamLog {
  const last = new Map<Topic, number>();
  for (const t of TOPIC_NAMES) {
    last.set(
      t,
      inView(store, (v) => v.get(STREAM_SEQ, TOPICS[t]) ?? 0),
    );
  }
  const ns = (t: Topic) => `${t}-${store.generation}`;
  /** The rows appending `frames`: frame rows (null: a frame pruned from the ring) and sequences. */
  const build = (block: number, frames: PendingFrame[]) => {
    const rows: Array<{ frame: [number, number]; text: string | null } | { seq: [number]; last: number }> =
      [];
    const out: Frame[] = [];
    const next = new Map<Topic, number>();
    for (const f of frames) {
      const seq = (next.get(f.topic) ?? last.get(f.topic)!) + 1;
      next.set(f.topic, seq);
      const fr: Frame = { ...f, seq, id: `v1.${ns(f.topic)}.${seq}`, block };
      out.push(fr);
      rows.push({
        frame: [TOPICS[f.topic], seq],
        // Stored as a header line and the frame's JSON verbatim.
        text: rowText(f, block),
      });
      if (seq > RING_FRAMES) rows.push({ frame: [TOPICS[f.topic], seq - RING_FRAMES], text: null });
    }
    for (const [t, seq] of next) rows.push({ seq: [TOPICS[t]], last: seq });
    return { rows, out, next };
  };
  return {
    last: (t) => last.get(t)!,
    oldest: (t) => Math.max(1, last.get(t)! - RING_FRAMES + 1),
    namespace: ns,
    idOf: (t, seq) => `v1.${ns(t)}.${seq}`,
    parseId(id) {
      const m = /^v1\.([a-z_]+)-([0-9a-f]+)\.(\d{1,15})$/.exec(id);
      if (!m) return null;
      if (!(m[1] in TOPICS) || m[2] !== store.generation) return 'other';
      return { topic: m[1] as Topic, seq: Number(m[3]) };
    },
    append(batch, block, frames) {
      const { rows, out, next } = build(block, frames);
      for (const r of rows)
        if ('frame' in r) batch.append(STREAM_FRAME, r.frame, r.text);
        else batch.append(STREAM_SEQ, r.seq, r.last);
      for (const [t, seq] of next) last.set(t, seq);
      return out;
    },
    appendOps(block, frames) {
      const { rows, out, next } = build(block, frames);
      for (const [t, seq] of next) last.set(t, seq);
      const ops: WriteOp[] = rows.map((r) =>
        'frame' in r
          ? {
              key: STREAM_FRAME.key(...r.frame),
              value: r.text === null ? null : STREAM_FRAME.value.encode(r.text),
            }
          : { key: STREAM_SEQ.key(...r.seq), value: STREAM_SEQ.value.encode(r.last) },
      );
      return { ops, frames: out };
    },
    read(topic, after, max) {
      const v = store.view();
      try {
        return v
          .rows(STREAM_FRAME, { prefix: [TOPICS[topic]], gte: [TOPICS[topic], after + 1], limit: max })
          .map(({ key: [, seq], value }) => parseFrame(topic, seq, value));
      } finally {
        v.close();
      }
    },
    advance(frames) {
      for (const f of frames) if (f.seq > last.get(f.topic)!) last.set(f.topic, f.seq);
      return frames;
    },
    unpack(p, topics) {
      for (const [t, seq] of p.last) if (seq > last.get(t)!) last.set(t, seq);
      return unpackFrameTexts(p, topics).map((f) => parseFrame(f.topic, f.seq, f.text));
    },
    observe(ops) {
      const out: Frame[] = [];
      for (const op of ops) {
        if (op.key[0] !== STREAM_FRAME.id || op.value === null) continue;
        const [topicId, seq] = STREAM_FRAME.decodeKey(op.key);
        const topic = TOPIC_BY_ID.get(topicId);
        if (!topic) continue;
        out.push(parseFrame(topic, seq, STREAM_FRAME.value.decode(op.value)));
        if (seq > last.get(topic)!) last.set(topic, seq);
      }
      out.sort((a, b) => (a.topic === b.topic ? a.seq - b.seq : 0));
      return out;
    },
  };

  /** A stored frame row → Frame. */
  function parseFrame(topic: Topic, seq: number, text: string): Frame {
    const nl = text.indexOf('\n');
    // Stores written before the header-line layout hold one JSON object with a `json` field.
    const j =
      nl < 0
        ? (JSON.parse(text) as { event: string; block: number; json: string; keys: FrameKeys })
        : {
            ...(JSON.parse(text.slice(0, nl)) as { event: string; block: number; keys: FrameKeys }),
            json: text.slice(nl + 1),
          };
    return {
      topic,
      seq,
      id: `v1.${ns(topic)}.${seq}`,
      block: j.block,
      event: j.event,
      json: j.json,
      keys: j.keys,
    };
  }
}
