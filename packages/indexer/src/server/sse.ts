/**
 * Server-Sent Events over uWS, behind the adapter (docs/CONTRIBUTING.md habit 9): correct
 * `text/event-stream` framing, `id:` lines carrying the durable id, CR/LF refused in `event`/`id`,
 * keep-alive comments on idle streams, backpressure honoured with a bounded per-connection queue
 * (a consumer that lets it overflow gets a `lag` event and is disconnected), clean close on abort.
 */
import type { HttpResponse } from '@chain-indexer/platform/http';

/** Bytes a connection may queue beyond what uWS accepted before it is declared too slow. */
export const MAX_CONN_QUEUE_BYTES = 1024 * 1024;
/** Idle period after which a keep-alive comment is sent, milliseconds. */
export const KEEPALIVE_MS = 15_000;
/** Grace for a lagging consumer to read its lag event before the socket is closed, milliseconds. */
const LAG_CLOSE_GRACE_MS = 2_000;

export interface SseConn {
  /** Sends one event. `id` null for control frames without a durable id. Returns false once closed. */
  send(event: string, id: string | null, dataJson: string): boolean;
  comment(text: string): void;
  /** Ends the stream (optionally after a final event). */
  close(final?: { event: string; dataJson: string }): void;
  /** Runs `cb` once the stream ends; at once when it has already ended. */
  onClose(cb: () => void): void;
  readonly closed: boolean;
  /** Bytes waiting in this connection's own queue (not yet accepted by uWS). */
  queuedBytes(): number;
}

const live = new Set<SseConnImpl>();
let lagDisconnects = 0;
let keepalive: NodeJS.Timeout | null = null;

class SseConnImpl implements SseConn {
  closed = false;
  private queue: string[] = [];
  private queued = 0;
  private blocked = false;
  private lastWrite = Date.now();
  private closeCbs: Array<() => void> = [];
  constructor(private readonly res: HttpResponse) {}

  private raw(chunk: string): void {
    if (this.closed) return;
    this.lastWrite = Date.now();
    if (this.blocked) {
      this.queue.push(chunk);
      this.queued += chunk.length;
      if (this.queued > MAX_CONN_QUEUE_BYTES) this.lag();
      return;
    }
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    if (!ok) {
      this.blocked = true;
      this.res.onWritable(() => this.drain());
    }
  }

  private drain(): boolean {
    while (this.queue.length && !this.closed) {
      const c = this.queue.shift()!;
      this.queued -= c.length;
      if (!this.res.write(c)) return false;
    }
    this.blocked = false;
    return true;
  }

  private lag(): void {
    lagDisconnects++;
    const dropped = this.queue.length;
    this.queue = [];
    this.queued = 0;
    const data = JSON.stringify({
      reason: 'consumer_too_slow',
      droppedFrames: dropped,
      action: 'reconnect with after_sequence/resume, or backfill through REST',
    });
    const res = this.res;
    this.finish();
    try {
      res.cork(() => res.end(`event: lag\ndata: ${data}\n\n`));
    } catch {
      return;
    }
    setTimeout(() => {
      try {
        res.close();
      } catch {}
    }, LAG_CLOSE_GRACE_MS).unref();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    for (const cb of this.closeCbs) cb();
  }

  aborted(): void {
    this.finish();
  }

  send(event: string, id: string | null, dataJson: string): boolean {
    if (this.closed) return false;
    if (/[\r\n]/.test(event) || (id !== null && /[\r\n]/.test(id)))
      throw new Error('CR/LF in SSE event or id');
    this.raw(`${id !== null ? `id: ${id}\n` : ''}event: ${event}\ndata: ${dataJson}\n\n`);
    return !this.closed;
  }
  comment(text: string): void {
    this.raw(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
  }
  close(final?: { event: string; dataJson: string }): void {
    if (this.closed) return;
    const res = this.res;
    this.finish();
    try {
      res.cork(() => res.end(final ? `event: ${final.event}\ndata: ${final.dataJson}\n\n` : ''));
    } catch {}
  }
  onClose(cb: () => void): void {
    // Registered after the stream already ended (a consumer that overflowed its queue during a
    // synchronous catch-up replay): run it now, or what it releases (a hub subscription) leaks.
    if (this.closed) {
      cb();
      return;
    }
    this.closeCbs.push(cb);
  }
  queuedBytes(): number {
    return this.queued;
  }
  idleFor(now: number): number {
    return now - this.lastWrite;
  }
}

/**
 * Opens an SSE response on `res` (inside the handler's cork, or corked by the caller).
 * The caller must not have registered onAborted already.
 */
export function openSse(res: HttpResponse): SseConn {
  const conn = new SseConnImpl(res);
  res.onAborted(() => conn.aborted());
  res.writeStatus('200 OK');
  res.writeHeader('content-type', 'text/event-stream; charset=utf-8');
  res.writeHeader('cache-control', 'no-cache');
  res.writeHeader('x-accel-buffering', 'no');
  res.write(': stream open\n\n');
  live.add(conn);
  keepalive ??= setInterval(() => {
    const now = Date.now();
    for (const c of live) if (c.idleFor(now) >= KEEPALIVE_MS) c.comment('keep-alive');
  }, KEEPALIVE_MS / 3);
  keepalive.unref();
  return conn;
}

/** Open SSE connections in this process (metrics, tests). */
export const openConnections = () => live.size;
/** Consumers disconnected for overflowing their queue. */
export const lagDisconnectCount = () => lagDisconnects;
