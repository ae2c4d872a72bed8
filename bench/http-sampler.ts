/**
 * The benches' closed-loop latency client: HTTP/1.1 over keep-alive `net` sockets that read into one
 * fixed buffer per connection (`onread`), so a response costs the client no allocation unless its
 * body is asked for.
 *
 * Why not node:http: on this 2-core machine the client shares the cores with the server it
 * measures. node:http allocates a Buffer per socket read (external memory) and several objects per
 * response; at 128 KB answers its isolate ran a scavenge or a mark-compact every 10–14 ms and its
 * four V8 helper threads took ~1.2 s of CPU in a 3 s c=1 run. `perf sched` showed that 80 % of the
 * time the server's thread waited for a core (144 waits over 1 ms) was taken by the client's own
 * threads: the figures were the client's garbage collector, not the server (see
 * bench/results/engine-thread-2026-11-28-fifth.md).
 *
 * Scope: what the project's servers answer — a status line, headers, and a `content-length` body
 * (uWS writes one for every non-streamed answer). An answer without a length (chunked), a reset or a
 * malformed status counts as an error and its connection is replaced.
 */
import { connect, type Socket } from 'node:net';

/** One answer, as {@link closedLoop} hands it to `onSample`. */
export interface LoopSample {
  /** Request written → last body byte read, ms (performance.now()). */
  ms: number;
  /** HTTP status (0: the connection failed before an answer). */
  status: number;
  /** Index into `paths` of the request. */
  path: number;
  /** The body's bytes when `keepBody` asked for them, else null. */
  body: Buffer | null;
}

export interface LoopOptions {
  /** Base URL (`http://host:port/prefix`); paths are appended to its path. */
  base: string;
  paths: readonly string[];
  /** Connections, each a closed loop (one request in flight). */
  connections: number;
  /** Stop after this many requests in total … */
  amount?: number;
  /** … or after this many seconds … */
  durationS?: number;
  /** … or when this returns true (checked between requests). */
  until?: () => boolean;
  method?: 'GET' | 'POST';
  /** Request body (POST), sent with content-type application/json. */
  body?: string;
  /** Request headers besides host (and content-type/-length with a body). */
  headers?: Record<string, string>;
  /** Whether to keep the body of an answer (called once its head is read: status, path index). */
  keepBody?: (status: number, path: number) => boolean;
  /** Called for every answer and failure, after its latency is taken. */
  onSample: (s: LoopSample) => void;
  /** An answer not complete after this many ms is a failure (its connection is dropped); 30,000 by default. */
  timeoutMs?: number;
}

/** Read buffer per connection: one socket read at most this many bytes. */
const READ_BYTES = 256 * 1024;
/** Response heads longer than this are refused (an error). */
const HEAD_MAX = 16 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = Buffer.from('\r\ncontent-length:');
const CONNECTION_CLOSE = Buffer.from('\r\nconnection: close');

/** Position after lower-case `pattern` in `head[0, end)`, ASCII case-insensitive; -1 when absent. */
function findHeader(head: Buffer, end: number, pattern: Buffer): number {
  const n = pattern.length;
  outer: for (let i = 0; i + n <= end; i++) {
    for (let j = 0; j < n; j++) {
      const c = head[i + j];
      if ((c >= 65 && c <= 90 ? c | 32 : c) !== pattern[j]) continue outer;
    }
    return i + n;
  }
  return -1;
}

/** The decimal after `at` (spaces skipped) up to CR; -1 when malformed. */
function parseDecimal(head: Buffer, at: number, end: number): number {
  while (at < end && head[at] === 32) at++;
  let v = 0;
  let digits = 0;
  for (; at < end && head[at] >= 48 && head[at] <= 57; at++, digits++) v = v * 10 + head[at] - 48;
  return digits ? v : -1;
}

/**
 * One keep-alive connection's parser: the head is copied into a fixed buffer until its blank
 * line; the body is counted (and copied only when kept).
 */
class Conn {
  private sock: Socket | null = null;
  private readonly head = Buffer.allocUnsafe(HEAD_MAX);
  private headLen = 0;
  /** -1 while reading the head; else body bytes still to read. */
  private left = -1;
  private status = 0;
  private body: Buffer | null = null;
  private bodyAt = 0;
  private path = 0;
  private startedAt = 0;
  private settle: (() => void) | null = null;
  /** The answer in progress said `connection: close`: its connection is not reused. */
  private closes = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly o: LoopOptions,
  ) {}

  /** Sends `req` (path index `path`) and resolves once its answer (or failure) is recorded. */
  send(req: Buffer, path: number): Promise<void> {
    return new Promise((resolve) => {
      this.settle = resolve;
      this.path = path;
      this.left = -1;
      this.headLen = 0;
      this.body = null;
      const s = this.sock ?? this.open();
      this.startedAt = performance.now();
      s.write(req);
    });
  }

  close(): void {
    this.sock?.destroy();
    this.sock = null;
  }

  private open(): Socket {
    const read = Buffer.allocUnsafe(READ_BYTES);
    const s = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: read,
        callback: (n) => {
          this.onData(read, n);
          return true;
        },
      },
    });
    // Only the current connection's loss fails the answer in progress (a replaced one's close
    // event comes later, during the next request).
    const lost = () => {
      if (this.sock !== s) return;
      this.sock = null;
      this.done(0);
    };
    s.on('error', lost);
    s.on('close', lost);
    this.sock = s;
    return s;
  }

  /** Records the answer in progress (status 0: a failure) and frees the loop for the next request. */
  private done(status: number): void {
    const settle = this.settle;
    if (!settle) return;
    const ms = performance.now() - this.startedAt;
    this.settle = null;
    this.o.onSample({ ms, status, path: this.path, body: status ? this.body : null });
    settle();
  }

  /** Fails the answer in progress when it has taken longer than `ms` (called by a watchdog). */
  expire(now: number, ms: number): void {
    if (this.settle && now - this.startedAt > ms) this.fail();
  }

  /** Fails the answer in progress and drops the connection (the next request opens another). */
  private fail(): void {
    const s = this.sock;
    this.sock = null;
    this.done(0);
    s?.destroy();
  }

  private onData(buf: Buffer, n: number): void {
    if (!this.settle) return; // bytes nobody asked for: ignored (the connection is replaced on error)
    let at = 0;
    if (this.left < 0) {
      const take = Math.min(n, HEAD_MAX - this.headLen);
      buf.copy(this.head, this.headLen, 0, take);
      const from = Math.max(0, this.headLen - 3);
      this.headLen += take;
      const end = this.head.subarray(0, this.headLen).indexOf(CRLFCRLF, from);
      if (end < 0) {
        if (this.headLen >= HEAD_MAX) this.fail();
        return;
      }
      const headEnd = end + 4;
      at = take - (this.headLen - headEnd);
      this.status = parseDecimal(this.head, 9, 12);
      const cl = findHeader(this.head, end + 2, CONTENT_LENGTH);
      this.closes = findHeader(this.head, end + 2, CONNECTION_CLOSE) >= 0;
      const length =
        cl < 0 ? (this.status === 204 || this.status === 304 ? 0 : -1) : parseDecimal(this.head, cl, end + 2);
      if (this.status < 100 || length < 0) {
        this.fail();
        return;
      }
      this.left = length;
      if (this.o.keepBody?.(this.status, this.path)) {
        this.body = Buffer.allocUnsafe(length);
        this.bodyAt = 0;
      }
    }
    const take = Math.min(n - at, this.left);
    if (this.body) {
      buf.copy(this.body, this.bodyAt, at, at + take);
      this.bodyAt += take;
    }
    this.left -= take;
    if (this.left !== 0) return;
    if (this.closes) {
      const s = this.sock;
      this.sock = null;
      s?.destroy();
    }
    this.done(this.status);
  }
}

/**
 * Runs `connections` closed loops of requests over `paths` (in turn) until `amount`, `durationS`
 * or `until` says stop; every answer goes to `onSample`.
 * @returns the loop's wall time, seconds.
 */
export async function closedLoop(o: LoopOptions): Promise<{ seconds: number }> {
  const u = new URL(o.base);
  const prefix = u.pathname.replace(/\/$/, '');
  const port = Number(u.port || 80);
  const extra = Object.entries(o.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const bodyHeaders = o.body
    ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(o.body)}\r\n`
    : '';
  const requests = o.paths.map((p) =>
    Buffer.from(
      `${o.method ?? 'GET'} ${prefix}${p} HTTP/1.1\r\nhost: ${u.host}\r\n${extra}${bodyHeaders}\r\n${o.body ?? ''}`,
    ),
  );
  const t0 = performance.now();
  let sent = 0;
  const done = () =>
    (o.amount !== undefined && sent >= o.amount) ||
    (o.durationS !== undefined && performance.now() - t0 > o.durationS * 1000) ||
    (o.until?.() ?? false);
  let i = 0;
  const conns = Array.from({ length: o.connections }, () => new Conn(u.hostname, port, o));
  // One watchdog for every connection (no timer per request).
  const timeoutMs = o.timeoutMs ?? 30_000;
  const watchdog = setInterval(
    () => {
      const now = performance.now();
      for (const c of conns) c.expire(now, timeoutMs);
    },
    Math.min(1000, timeoutMs),
  );
  await Promise.all(
    conns.map(async (c) => {
      while (!done()) {
        sent++;
        const p = i++ % requests.length;
        await c.send(requests[p], p);
      }
    }),
  );
  clearInterval(watchdog);
  for (const c of conns) c.close();
  return { seconds: (performance.now() - t0) / 1000 };
}
