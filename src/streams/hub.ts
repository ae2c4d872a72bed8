/**
 * Live fan-out of committed frames to connected subscribers. Publishing happens after the batch
 * that wrote the frames committed, so a subscriber never sees a frame that is not durable.
 */
import type { Frame, Topic } from './log.js';

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
  publish(frames: Frame[]): void;
  size(): number;
}

export function createHub(): Hub {
  const subs = new Set<Subscriber>();
  return {
    add(s) {
      subs.add(s);
      return () => subs.delete(s);
    },
    publish(frames) {
      for (const s of subs) {
        for (const f of frames) if (s.topics.has(f.topic)) s.deliver(f);
        s.onCommit?.();
      }
    },
    size: () => subs.size,
  };
}
