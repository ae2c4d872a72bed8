/**
 * Live fan-out of committed frames to connected subscribers. Publishing happens after the batch
 * that wrote the frames committed, so a subscriber never sees a frame that is not durable.
 */
import type { Topic } from '../schema/rows/streams.js';
import type { Frame } from './log.js';

export interface Subscriber {
  /** Topics this subscriber listens to. */
  topics: ReadonlySet<Topic>;
  /** Delivers one frame; the subscriber filters by its selectors. */
  deliver(frame: Frame): void;
  /** Called after every commit or rollback (candle streams, stalled/resumed control). */
  onCommit?(): void;
}

export interface Hub {
  add(s: Subscriber): () => void;
  /**
   * Delivers committed frames to every subscriber. Never throws: a subscriber that throws is
   * removed (its consumer stops receiving; `onFault` is told), so one broken consumer can neither
   * fail the ingest step that published nor starve the others.
   */
  publish(frames: Frame[]): void;
  /** The topics some subscriber listens to now (the frames worth decoding). */
  topics(): Set<Topic>;
  size(): number;
}

/** Creates the hub. `onFault` hears of a subscriber removed because it threw. */
export function createHub(onFault: (err: unknown) => void = () => {}): Hub {
  const subs = new Set<Subscriber>();
  return {
    add(s) {
      subs.add(s);
      return () => subs.delete(s);
    },
    publish(frames) {
      for (const s of subs) {
        try {
          for (const f of frames) if (s.topics.has(f.topic)) s.deliver(f);
          s.onCommit?.();
        } catch (err) {
          subs.delete(s);
          onFault(err);
        }
      }
    },
    topics() {
      const out = new Set<Topic>();
      for (const s of subs) for (const t of s.topics) out.add(t);
      return out;
    },
    size: () => subs.size,
  };
}
