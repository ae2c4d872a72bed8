/**
 * What the streams domain writes frames into: one open server-sent-events connection. The server's
 * SSE adapter (src/server/sse.ts) implements it; the domain never sees HTTP.
 */
export interface StreamSink {
  /** Sends one frame. `id` null for control frames without a durable id. Returns false once closed. */
  send(event: string, id: string | null, dataJson: string): boolean;
  /** Ends the stream (optionally after a final frame). */
  close(final?: { event: string; dataJson: string }): void;
  /** Runs `cb` once the stream ends; at once when it has already ended. */
  onClose(cb: () => void): void;
  readonly closed: boolean;
}

/** Who opens a stream: the key (for the open-stream ceiling) and its resume header. */
export interface StreamRequest {
  /** The calling key's name and its open-stream ceiling; null for an anonymous caller. */
  principal: { name: string; maxStreams: number } | null;
  /** The `Last-Event-ID` request header, when sent. */
  lastEventId: string | undefined;
}

/** Starts a stream on a sink (called once the HTTP response has become an SSE stream). */
export type StreamStart = ((sink: StreamSink) => void) & {
  /**
   * Gives back the stream slot the start reserved when the start is dropped unused (its request
   * ran again on a newer view: server/invoke.ts); once the stream runs, its close releases it.
   */
  release?: () => void;
};

/** A value now, or later when it must be asked of another process (the shared stream ceiling). */
export type Later<T> = T | Promise<T>;

/** `f` of `x`, at once when `x` is here, when it arrives otherwise. */
export const whenReady = <T, U>(x: Later<T>, f: (t: T) => Later<U>): Later<U> =>
  x instanceof Promise ? x.then(f) : f(x);
