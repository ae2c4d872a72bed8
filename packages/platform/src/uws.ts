/**
 * The one module that touches uWebSockets.js (docs/CONTRIBUTING.md habit 9). Route code never sees the raw
 * request or response: this adapter reads the request synchronously, registers `onAborted` before
 * any await, corks late writes, and honours backpressure with `tryEnd` / `onWritable`.
 */

import uws from 'uWebSockets.js';
import { createRequire } from 'node:module';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
export { uws };

/** Per-response state of the send helpers: whether the client went away, whether `onAborted` is registered. */
export interface ResponseState {
  aborted: boolean;
  hasAbortHandler?: boolean;
}

/**
 * True when the native uWS binary serves, false when the package fell back to its pure-JS
 * server (which it does silently when the binary does not load). Checked at start-up: the
 * service refuses to start on the fallback so no benchmark measures it by accident.
 */
export function uwsIsNative(): boolean {
  const require = createRequire(import.meta.url);
  const fallback = require('uWebSockets.js/dist/index') as unknown;
  return uws !== fallback && String(uws.App).includes('[native code]');
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  402: '402 Payment Required',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** Response bytes above which the adapter streams with tryEnd/onWritable instead of one end(). */
const STREAM_THRESHOLD_BYTES = 64 * 1024;

/**
 * Writes a complete response. Must be called inside a cork (the synchronous part of a handler is
 * corked by uWS; late writes go through {@link corkedSend}).
 */
export function send(
  res: uws.HttpResponse,
  status: number,
  headers: Array<[string, string]>,
  body: string | Buffer,
  state: ResponseState,
): void {
  if (state.aborted) return;
  res.writeStatus(STATUS_TEXT[status] ?? `${status} Unknown`);
  for (const [k, v] of headers) res.writeHeader(k, v);
  if (body.length < STREAM_THRESHOLD_BYTES) {
    res.end(body);
    return;
  }
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const total = buf.length;
  const start = res.getWriteOffset();
  const [ok, done] = res.tryEnd(buf, total);
  if (ok || done) return;
  // The rest is written as the client drains: the response outlives this call, so an abort
  // handler is mandatory (uWS terminates the process on a write to an aborted response).
  if (!state.hasAbortHandler) {
    res.onAborted(() => {
      state.aborted = true;
    });
  }
  res.onWritable((offset) => {
    if (state.aborted) return true;
    const [ok2, done2] = res.tryEnd(buf.subarray(offset - start), total);
    return ok2 || done2;
  });
}

/** {@link send} from outside the handler's synchronous part. */
export function corkedSend(
  res: uws.HttpResponse,
  status: number,
  headers: Array<[string, string]>,
  body: string,
  state: ResponseState,
): void {
  if (state.aborted) return;
  res.cork(() => send(res, status, headers, body, state));
}

/**
 * The peer's IP address as text (`127.0.0.1`, `::1`, or uWS's expanded IPv6 form). Read it in the
 * handler's synchronous part.
 */
export function remoteAddress(res: uws.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
