/**
 * The one module that touches uWebSockets.js (docs/CONTRIBUTING.md habit 9). Route code never sees the raw
 * request or response: this adapter reads the request synchronously, registers `onAborted` before
 * any await, corks late writes, and honours backpressure with `tryEnd` / `onWritable`.
 */

import type * as UWS from 'uWebSockets.js';
import { defaultUwsLoadHooks, loadNativeUws, type UwsAttempt, type UwsLoadHooks } from './uws-load.js';
import { nodeHttpUws } from './uws-node.js';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
export { UWS_BUILDS, type UwsAttempt, type UwsBuild, uwsPlatformId } from './uws-load.js';

/** The HTTP core that serves: `uws` (the native uWebSockets.js binary) or `node_http` (the stand-in). */
export type HttpCore = 'uws' | 'node_http';

/** Which uWS serves: the native binary, or the node:http stand-in (`uws-node.ts`) when none loaded. */
export interface UwsBinding {
  uws: typeof UWS;
  native: boolean;
  /** `uws` when native, `node_http` on the stand-in (the `indexer_http_core` metric's label). */
  core: HttpCore;
  /** The build that loaded (name and upstream version), or null on the stand-in. */
  build: string | null;
  /** The binary that loaded, or the first one tried; null when no build pins one for this platform. */
  binary: string | null;
  /** Why no native binary serves (each attempt's reason, joined); null when native. */
  reason: string | null;
  /** Every binary tried, in order, with its SHA-256 and reason. */
  attempts: UwsAttempt[];
}

/**
 * Loads the first pinned uWebSockets.js binary that loads on this platform and Node ABI
 * (`uws-load.ts`: each binary is hashed against its pin before it is loaded); when none does,
 * answers the node:http stand-in, with the reason. `choice` is `HTTP_CORE`: `node_http` takes the
 * stand-in without trying a binary (the release bench measures it so; tests force it so); `auto`
 * or unset tries the native core; `uws` does too, and the service then refuses to start without
 * it ({@link exitUnlessHttpCore}). `hooks` are injectable for tests.
 */
export function loadUws(
  hooks: UwsLoadHooks = defaultUwsLoadHooks,
  choice: string | undefined = process.env.HTTP_CORE,
): UwsBinding {
  if (choice === 'node_http')
    return {
      uws: nodeHttpUws(),
      native: false,
      core: 'node_http',
      build: null,
      binary: null,
      reason: 'HTTP_CORE=node_http chose the stand-in',
      attempts: [],
    };
  const r = loadNativeUws(hooks);
  if (r.module && r.loaded)
    return {
      uws: r.module as typeof UWS,
      native: true,
      core: 'uws',
      build: r.loaded.build,
      binary: r.loaded.file,
      reason: null,
      attempts: r.attempts,
    };
  const reason =
    r.attempts.length === 0
      ? `no pinned binary for ${r.id}`
      : r.attempts.map((a) => `${a.file}: ${a.reason}`).join('; ');
  return {
    uws: nodeHttpUws(),
    native: false,
    core: 'node_http',
    build: null,
    binary: r.attempts[0]?.file ?? null,
    reason,
    attempts: r.attempts,
  };
}

const binding = loadUws();
/** The uWS module in use (native, or the node:http stand-in: see {@link uwsBinding}). */
export const uws: typeof UWS = binding.uws;

/** What {@link loadUws} found at start-up: native or not, the build, the binary and the reason. */
export function uwsBinding(): Readonly<UwsBinding> {
  return binding;
}

/**
 * With `HTTP_CORE=uws`, an operator asks for the native core only: when the stand-in serves,
 * `fatal(obj, msg)` logs why and the process exits with code 1. Any other value returns.
 * @throws nothing; exits the process instead.
 */
export function exitUnlessHttpCore(
  fatal: (obj: object, msg: string) => void,
  choice: string | undefined = process.env.HTTP_CORE,
): void {
  if (choice === undefined || choice === 'auto' || choice === 'node_http') return;
  if (choice === 'uws' && binding.native) return;
  fatal(
    { httpCore: choice, served: binding.core, reason: binding.reason },
    choice === 'uws'
      ? 'HTTP_CORE=uws but no native uWebSockets.js binary loaded (SECURITY.md, "HTTP core"); refusing to start'
      : `HTTP_CORE must be auto, uws or node_http, not ${JSON.stringify(choice)}; refusing to start`,
  );
  process.exit(1);
}

/** Per-response state of the send helpers: whether the client went away, whether `onAborted` is registered. */
export interface ResponseState {
  aborted: boolean;
  hasAbortHandler?: boolean;
}

/**
 * True when the native uWS binary serves, false when the node:http stand-in does. The service
 * warns at start-up on the stand-in ({@link uwsStandInWarning}); the release bench labels it.
 */
export function uwsIsNative(): boolean {
  return binding.native;
}

/**
 * The one start-up warning when the stand-in serves: the reason, and the fix (a glibc ≥ 2.38
 * system such as Debian 13 or Ubuntu 24.04, or Node 20); null when the native core serves.
 */
export function uwsStandInWarning(b: Readonly<UwsBinding> = binding): string | null {
  if (b.native) return null;
  return (
    `HTTP core: no native uWebSockets.js binary loaded on Node ${process.version} ` +
    `(${process.platform}-${process.arch}, ABI ${process.versions.modules}): ${b.reason}. ` +
    'Serving through the node:http stand-in (same routes and streams, lower throughput: see ops/RELEASE.md). ' +
    'Fix: run on a glibc >= 2.38 system such as Debian 13 or Ubuntu 24.04 (or a container built on one), ' +
    'or on Node 20, whose binary needs glibc 2.27'
  );
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
  body: string | Uint8Array,
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
  body: string | Uint8Array,
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
