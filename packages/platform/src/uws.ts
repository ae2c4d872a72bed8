/**
 * The one module that touches uWebSockets.js (CONVENTIONS habit 9). Route code never sees the raw
 * request or response: this adapter reads the request synchronously, registers `onAborted` before
 * any await, corks late writes, and honours backpressure with `tryEnd` / `onWritable`.
 */

import type * as UWS from 'uWebSockets.js';
import { createRequire } from 'node:module';
import { nodeHttpUws } from './uws-node.js';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** Which uWS serves: the native binary, or the node:http stand-in (`uws-node.ts`) when it did not load. */
export interface UwsBinding {
  uws: typeof UWS;
  native: boolean;
  /** The binary looked for (`uWebSockets.js/binaries/uws_<platform>_<arch>_<abi>.node`). */
  binary: string;
  /** Why the binary did not load (first line of the loader's error); null when native. */
  reason: string | null;
}

/**
 * Loads the uWebSockets.js binary of this platform and Node ABI (`process.versions.modules`);
 * when it does not load, answers the node:http stand-in instead, with the reason. The package
 * (`@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0`) ships linux-x64 binaries for ABIs 93,
 * 108 and 115 (Node 16, 18, 20) only: on Node 22 (ABI 127) and 24 (ABI 137) the stand-in serves.
 * `load` is the module loader (injectable so a test can simulate a missing binary).
 */
export function loadUws(load: (id: string) => unknown = createRequire(import.meta.url)): UwsBinding {
  const binary = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    return { uws: load(binary) as typeof UWS, native: true, binary, reason: null };
  } catch (err) {
    const reason = String((err as Error)?.message ?? err).split('\n')[0];
    return { uws: nodeHttpUws(), native: false, binary, reason };
  }
}

const binding = loadUws();
/** The uWS module in use (native, or the node:http stand-in: see {@link uwsBinding}). */
export const uws: typeof UWS = binding.uws;

/** What {@link loadUws} found at start-up: native or not, the binary and the reason. */
export function uwsBinding(): Readonly<UwsBinding> {
  return binding;
}

/** Per-response state of the send helpers: whether the client went away, whether `onAborted` is registered. */
export interface ResponseState {
  aborted: boolean;
  hasAbortHandler?: boolean;
}

/**
 * True when the native uWS binary serves, false when the node:http stand-in does. The service
 * warns at start-up on the stand-in; the benchmarks refuse to measure it.
 */
export function uwsIsNative(): boolean {
  return binding.native;
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
  res: UWS.HttpResponse,
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
  res: UWS.HttpResponse,
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
export function remoteAddress(res: UWS.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
