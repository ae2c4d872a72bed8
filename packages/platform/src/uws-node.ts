/**
 * The uWS API subset this project uses, served by `node:http` — used only when the uWebSockets.js
 * binary does not load on this Node (see {@link loadUws} in `uws.ts`: the package ships binaries
 * for Node 20's ABI only). Same call shapes and semantics as the native binding for what the
 * service calls (routing with uWS patterns, headers, query, body chunks, corked writes,
 * backpressure via `write` / `onWritable`, aborts, listen/close), so every route, stream and the
 * scanner run unchanged; it is slower, and the start-up says so. WebSockets, pub/sub, TLS and
 * server names are not part of it (the project uses none): they throw.
 *
 * Bounds (issue 38; SECURITY.md, "Every request bounded"):
 *  - a request body is read only once a handler calls `onData`; until then node keeps at most its
 *    stream high-water mark (16 KiB) and stops reading the socket, so the client's TCP window
 *    closes. A body nobody reads is never held: when the response ends before the body has
 *    arrived, reading stops for good, the response says `Connection: close`, and the connection
 *    is ended once the response is flushed and destroyed 2 s later (or when the client closes);
 *  - slow headers, a slow body and an idle keep-alive are cut (`http-limits.ts`), and each
 *    listener accepts at most HTTP_MAX_CONNECTIONS connections.
 */

import type * as UWS from 'uWebSockets.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type StandInLimits, standInLimits } from './http-limits.js';

type Handler = (res: UWS.HttpResponse, req: UWS.HttpRequest) => void | Promise<void>;

interface RouteEntry {
  method: string; // lower-case, or '*' for any
  segments: string[];
  handler: Handler;
  order: number;
}

/** Listen socket of the node:http shim (what `us_socket_local_port` / `us_listen_socket_close` take). */
export interface NodeListenSocket {
  server: Server;
  port: number;
}

function splitPath(path: string): string[] {
  const s = path.startsWith('/') ? path.slice(1) : path;
  return s === '' ? [] : s.split('/');
}

/**
 * Match rank of `pattern` against `path` segments: per segment 3 static, 2 `:param`, 1 for the
 * trailing `*`; null when it does not match. Higher ranks win segment by segment (uWS's order:
 * static before parameter before wildcard, whatever the registration order).
 */
function rank(pattern: string[], path: string[], params: string[]): number[] | null {
  const out: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p === '*' && i === pattern.length - 1) {
      out.push(1);
      return out;
    }
    if (i >= path.length) return null;
    if (p.startsWith(':')) {
      params.push(path[i]);
      out.push(2);
    } else if (p === path[i]) out.push(3);
    else return null;
  }
  return pattern.length === path.length ? out : null;
}

/** Whether rank `a` beats rank `b`; a pattern that ended (exact match) beats a trailing `*` there. */
function better(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 4;
    const y = b[i] ?? 4;
    if (x !== y) return x > y;
  }
  return false;
}

class ShimRequest {
  private readonly path: string;
  private readonly query: string;
  constructor(
    private readonly req: IncomingMessage,
    private readonly params: string[],
  ) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
  }
  getHeader(lowerCaseKey: string): string {
    const v = this.req.headers[lowerCaseKey];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  }
  getUrl(): string {
    return this.path;
  }
  getMethod(): string {
    return (this.req.method ?? 'GET').toLowerCase();
  }
  getCaseSensitiveMethod(): string {
    return this.req.method ?? 'GET';
  }
  getQuery(key?: string): string | undefined {
    if (key === undefined) return this.query;
    return new URLSearchParams(this.query).get(key) ?? undefined;
  }
  getParameter(index: number): string | undefined {
    return this.params[index];
  }
  forEach(cb: (key: string, value: string) => void): void {
    const raw = this.req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) cb(raw[i].toLowerCase(), raw[i + 1]);
  }
  setYield(): this {
    throw new Error('setYield is not supported by the node:http uWS shim');
  }
}

/**
 * A body of known length up to this many bytes, still arriving when the response ends, is read
 * off and discarded by node (its `_dump`) and the connection kept: a small POST answered at once
 * (its body in the same packet as its headers, not parsed yet) does not cost a reconnect. A
 * longer body, or one of unknown length (chunked), closes the connection instead.
 */
const DISCARD_MAX_BYTES = 64 * 1024;

/**
 * How long a connection closed with its request body unread stays open after the response was
 * flushed, ms: its end (FIN) is sent at once and nothing more is read, but the socket is destroyed
 * only this much later (or when the client closes first). Destroying it at once, with the client's
 * bytes still unread, makes the kernel answer with a reset that can overtake the response: the
 * client would never see its 404 or 401.
 */
const LINGER_MS = 2_000;

/**
 * Makes node's close of `socket` after a `Connection: close` response (its documented
 * `destroySoon`: end, then destroy once flushed) linger: end now, destroy {@link LINGER_MS}
 * later or when the client closes first.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

/** Whether the request declares a body (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

class ShimResponse {
  private abortHandler: (() => void) | null = null;
  private writableHandler: ((offset: number) => boolean) | null = null;
  private dataHandler: ((chunk: ArrayBuffer, isLast: boolean) => void) | null = null;
  private reading = false;
  private offset = 0;
  private ended = false;
  private statusCode = 200;
  private statusText: string | undefined;
  private headersOut: Array<[string, string]> = [];
  private headersSent = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly req: IncomingMessage,
  ) {
    res.on('close', () => {
      if (!this.ended && !res.writableFinished) {
        this.ended = true;
        this.abortHandler?.();
      }
    });
    res.on('drain', () => {
      const h = this.writableHandler;
      if (h?.(this.offset)) this.writableHandler = null;
    });
    // No 'data' listener here: the body stays on the wire until a handler asks for it (onData).
  }

  /**
   * The rest of the request body is never read: reading stops (node reads at most its stream
   * high-water mark more), node does not read it off to discard it either (its `_dump`, skipped
   * for a stream someone consumes), and the response closes the connection
   * (`Connection: close`), lingering so the client receives it ({@link lingerOnClose}).
   */
  private leaveBodyUnread(): void {
    const req = this.req;
    req.pause();
    req.read(0); // marks the stream consumed: node then leaves the rest on the wire
    this.res.setHeader('connection', 'close');
    if (this.res.socket) lingerOnClose(this.res.socket);
  }

  /**
   * Whether the rest of the request body must not be read: it is still arriving and is either of
   * unknown length or longer than {@link DISCARD_MAX_BYTES}.
   */
  private bodyLeftUnread(): boolean {
    const req = this.req;
    if (req.complete || !hasBody(req)) return false;
    const length = req.headers['content-length'];
    return req.headers['transfer-encoding'] !== undefined || Number(length) > DISCARD_MAX_BYTES;
  }

  private flushHead(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    const res = this.res;
    res.statusCode = this.statusCode;
    if (this.statusText) res.statusMessage = this.statusText;
    for (const [k, v] of this.headersOut) res.appendHeader(k, v);
  }

  writeStatus(status: string | ArrayBuffer): this {
    const s = typeof status === 'string' ? status : Buffer.from(status).toString();
    const m = /^(\d{3})\s*(.*)$/.exec(s);
    if (m) {
      this.statusCode = Number(m[1]);
      this.statusText = m[2] || undefined;
    }
    return this;
  }
  writeHeader(key: string | ArrayBuffer, value: string | ArrayBuffer): this {
    const k = typeof key === 'string' ? key : Buffer.from(key).toString();
    const v = typeof value === 'string' ? value : Buffer.from(value).toString();
    this.headersOut.push([k, v]);
    return this;
  }
  write(chunk: string | ArrayBuffer | Uint8Array): boolean {
    if (this.ended) return false;
    this.flushHead();
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    this.offset += buf.length;
    return this.res.write(buf);
  }
  end(body?: string | ArrayBuffer | Uint8Array, closeConnection?: boolean): this {
    if (this.ended) return this;
    this.flushHead();
    const buf =
      body === undefined
        ? Buffer.alloc(0)
        : typeof body === 'string'
          ? Buffer.from(body)
          : Buffer.from(body as Uint8Array);
    this.offset += buf.length;
    this.ended = true;
    if (this.bodyLeftUnread()) this.leaveBodyUnread();
    else if (closeConnection) this.res.setHeader('connection', 'close');
    this.res.end(buf);
    return this;
  }
  endWithoutBody(): this {
    return this.end();
  }
  /** Node buffers what the socket cannot take yet, so the whole rest is always accepted. */
  tryEnd(body: string | ArrayBuffer | Uint8Array, _totalSize: number): [boolean, boolean] {
    this.end(body);
    return [true, true];
  }
  getWriteOffset(): number {
    return this.offset;
  }
  onWritable(handler: (offset: number) => boolean): this {
    this.writableHandler = handler;
    return this;
  }
  onAborted(handler: () => void): this {
    this.abortHandler = handler;
    return this;
  }
  /**
   * Starts reading the request body: each chunk as an ArrayBuffer (a copy), then an empty last
   * one. Nothing is queued here: what arrived before the call waited in node's stream buffer
   * (at most its high-water mark) with the socket paused.
   */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.dataHandler = handler;
    if (this.reading) return this;
    this.reading = true;
    const deliver = (b: Buffer, last: boolean) =>
      this.dataHandler?.(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer, last);
    this.req.on('data', (b: Buffer) => deliver(b, false));
    this.req.on('end', () => deliver(Buffer.alloc(0), true));
    return this;
  }
  cork(cb: () => void): this {
    cb();
    return this;
  }
  close(): this {
    this.res.destroy();
    return this;
  }
  pause(): void {
    this.req.pause();
  }
  resume(): void {
    // Resuming a body nobody listens to would read it off and drop it: only once onData is set.
    if (this.reading) this.req.resume();
  }
  getRemoteAddressAsText(): ArrayBuffer {
    const ip = (this.res.socket?.remoteAddress ?? '').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
    const b = Buffer.from(ip);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  getProxiedRemoteAddressAsText(): ArrayBuffer {
    return new ArrayBuffer(0);
  }
}

class ShimApp {
  private readonly routes: RouteEntry[] = [];
  private server: Server | null = null;

  /** `limits` override the bounds read at listen time ({@link standInLimits}: constants and env). */
  constructor(private readonly limits: Partial<StandInLimits>) {}

  private add(method: string, pattern: string, handler: Handler): this {
    this.routes.push({ method, segments: splitPath(pattern), handler, order: this.routes.length });
    return this;
  }
  get(p: string, h: Handler) {
    return this.add('get', p, h);
  }
  post(p: string, h: Handler) {
    return this.add('post', p, h);
  }
  put(p: string, h: Handler) {
    return this.add('put', p, h);
  }
  del(p: string, h: Handler) {
    return this.add('delete', p, h);
  }
  patch(p: string, h: Handler) {
    return this.add('patch', p, h);
  }
  options(p: string, h: Handler) {
    return this.add('options', p, h);
  }
  head(p: string, h: Handler) {
    return this.add('head', p, h);
  }
  any(p: string, h: Handler) {
    return this.add('*', p, h);
  }

  /** The best route: highest segment ranks, then a method-specific one over `any`, then first registered. */
  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    const method = (req.method ?? 'GET').toLowerCase();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = splitPath(q < 0 ? url : url.slice(0, q));
    let best: { r: RouteEntry; rank: number[]; params: string[] } | null = null;
    for (const r of this.routes) {
      if (r.method !== method && r.method !== '*') continue;
      const params: string[] = [];
      const k = rank(r.segments, path, params);
      if (!k) continue;
      if (
        !best ||
        better(k, best.rank) ||
        (!better(best.rank, k) && best.r.method === '*' && r.method !== '*')
      )
        best = { r, rank: k, params };
    }
    const response = new ShimResponse(res, req);
    if (!best) {
      response.writeStatus('404 Not Found').end();
      return;
    }
    const out = best.r.handler(
      response as unknown as UWS.HttpResponse,
      new ShimRequest(req, best.params) as unknown as UWS.HttpRequest,
    );
    if (out instanceof Promise) out.catch(() => res.destroy());
  }

  /**
   * Listens on `host:port` (0: any free port) with the bounds of {@link standInLimits} (and the
   * overrides given to `App`); calls `cb` with the listen socket, or false when it cannot listen.
   * @throws Error naming HTTP_MAX_CONNECTIONS when it is malformed.
   */
  listen(host: string, port: number, cb: (sock: UWS.us_listen_socket | false) => void): this {
    const limits = { ...standInLimits(process.env), ...this.limits };
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        connectionsCheckingInterval: limits.checkIntervalMs,
      },
      (req, res) => this.dispatch(req, res),
    );
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.maxConnections = limits.maxConnections;
    this.server = server;
    server.once('error', () => cb(false));
    server.listen({ host, port, exclusive: true }, () => {
      const sock: NodeListenSocket = { server, port: (server.address() as AddressInfo).port };
      cb(sock as unknown as UWS.us_listen_socket);
    });
    return this;
  }

  ws(): this {
    throw new Error('WebSockets are not supported by the node:http uWS shim');
  }
  close(): this {
    this.server?.closeAllConnections();
    this.server?.close();
    return this;
  }
}

/**
 * The node:http stand-in for the `uWebSockets.js` module: `App()`, `us_socket_local_port(sock)`,
 * `us_listen_socket_close(sock)` (closes the listener and its idle and active connections).
 * @param limits overrides of the listeners' bounds (tests); by default {@link standInLimits}.
 */
export function nodeHttpUws(limits: Partial<StandInLimits> = {}): typeof UWS {
  return {
    App: () => new ShimApp(limits) as unknown as UWS.TemplatedApp,
    us_socket_local_port: (sock: UWS.us_listen_socket) => (sock as unknown as NodeListenSocket).port,
    us_listen_socket_close: (sock: UWS.us_listen_socket) => {
      const { server } = sock as unknown as NodeListenSocket;
      server.close();
      server.closeAllConnections();
    },
  } as unknown as typeof UWS;
}
