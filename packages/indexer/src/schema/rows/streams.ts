/**
 * The stream log's contract with its writers: topics (their one-byte ids are the first key part
 * of the stream tables) and the frames projections and ingest emit with each block.
 */
export const TOPICS = {
  amm_events: 1,
  blocks: 2,
  transactions: 3,
  logs: 4,
  transfers: 5,
  creations: 6,
  launches: 7,
  heads: 8,
  pools: 9,
} as const;
export type Topic = keyof typeof TOPICS;
export const TOPIC_NAMES = Object.keys(TOPICS) as Topic[];

/** Selector values a frame can be matched on (lowercase). */
export type FrameKeys = Partial<
  Record<'tokens' | 'pools' | 'wallets' | 'launchpads' | 'addresses' | 'topics' | 'contracts', string[]>
>;

export interface PendingFrame {
  topic: Topic;
  /** SSE event name. */
  event: string;
  /** The frame's data, already serialized JSON (the same record the read routes serve). */
  json: string;
  keys: FrameKeys;
}

/**
 * Committed frames as one byte buffer, for the hand-over from the engine thread to the serving
 * thread: transferred, not structured-cloned (a mainnet block publishes on the order of a thousand
 * frames: 2.7 ms to clone 512 frame objects through a port on the bench host, paid on the serving
 * thread before its handler even runs). Per frame: u8 topic id, f64 sequence, u32 byte length, then
 * the frame's stored row text (UTF-8: the header line and the frame's JSON, as STREAM_FRAME holds
 * it). `last` is each topic's highest sequence in it, so the serving thread moves its sequences
 * without reading a frame; it decodes only the frames of topics someone listens to.
 */
export interface PackedFrames {
  buf: ArrayBuffer;
  count: number;
  last: Array<[Topic, number]>;
}

/** A frame as packed: its topic, durable sequence and stored row text. */
export interface FrameText {
  topic: Topic;
  seq: number;
  text: string;
}

const TOPIC_OF_ID = new Map<number, Topic>(TOPIC_NAMES.map((t) => [TOPICS[t], t]));

/** Packs frames (in sequence order) into one transferable buffer ({@link PackedFrames}). */
export function packFrameTexts(frames: readonly FrameText[]): PackedFrames {
  let max = 0;
  for (const f of frames) max += 13 + f.text.length * 3;
  const tmp = Buffer.allocUnsafe(max);
  const last = new Map<Topic, number>();
  let off = 0;
  for (const f of frames) {
    off = tmp.writeUInt8(TOPICS[f.topic], off);
    off = tmp.writeDoubleLE(f.seq, off);
    const n = tmp.write(f.text, off + 4, 'utf8');
    tmp.writeUInt32LE(n, off);
    off += 4 + n;
    if (f.seq > (last.get(f.topic) ?? 0)) last.set(f.topic, f.seq);
  }
  const buf = new ArrayBuffer(off);
  tmp.copy(Buffer.from(buf), 0, 0, off);
  return { buf, count: frames.length, last: [...last] };
}

/** The frames of `p` whose topic is in `topics`, in order (the others are skipped unread). */
export function unpackFrameTexts(p: PackedFrames, topics: ReadonlySet<Topic>): FrameText[] {
  const out: FrameText[] = [];
  if (topics.size === 0) return out;
  const buf = Buffer.from(p.buf);
  let off = 0;
  for (let i = 0; i < p.count; i++) {
    const topic = TOPIC_OF_ID.get(buf[off])!;
    const seq = buf.readDoubleLE(off + 1);
    const n = buf.readUInt32LE(off + 9);
    off += 13;
    if (topics.has(topic)) out.push({ topic, seq, text: buf.toString('utf8', off, off + n) });
    off += n;
  }
  return out;
}
