/**
 * The one module that touches uWebSockets.js (docs/CONTRIBUTING.md habit 9). Route code never sees the raw
 * request or response: this adapter reads the request synchronously, registers `onAborted` before
 * any await, corks late writes, and honours backpressure with `tryEnd` / `onWritable`.
 */

import type * as UWS from 'uWebSockets.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

/**
 * SHA-256 of every native binary of the HTTP core this build ships with
 * (`uWebSockets.js` = `@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0`, its `binaries/`),
 * by `<platform>_<arch>_<ABI>`. When a native binary loads, the service refuses to start unless it is
 * the pinned one ({@link uwsBinaryCheck}); SECURITY.md says how these were taken and how to move to another build.
 */
export const UWS_BINARY_SHA256: Readonly<Record<string, string>> = {
  darwin_arm64_108: '3e5d284ef20c3a641e3e1e4571f983d56869fb5cc8c037242c3edc6e83d4d86b',
  darwin_arm64_115: '2a3aff854929518a3bc066527340ab0fc47c970cda4cdbb86f5d65b03ee83885',
  darwin_arm64_93: 'cbf5a7dd9270b57044e5d4439d64cc3073067be3a29578ddb4e2c84417ec851e',
  darwin_x64_108: '35bf16c62269afbafc6c91c06b9c3e690bdba7357b2ce0e2c34bc37f8c053a38',
  darwin_x64_115: 'cdb95fb0b602155506b5430791c0dce4341ec1268ff23bdace8f1c77e306e4f7',
  darwin_x64_93: 'a173ecd15cff580dcc63bb173d7ee0370b2dee9e573a3bd1ddf1ebc67f69a379',
  linux_arm64_108: '44f342406e3d2378a195b322d8b19ee0a766e33a19e6db424914a0b02eb05190',
  linux_arm64_115: 'fa46518766a985c6a79daef039f40cccd8e98e9a288f2ceaf31a0a18901bbfd5',
  linux_arm64_93: '9262dcb6a48abf7927ed9e0af590ee953c8823af5e16108b56f6c2cce070ac64',
  linux_arm_108: '9fd6ab892105269ea41a0a6cddc401f14f35c4c555dfdfc6714d14174d49771b',
  linux_arm_115: 'e1c6907fe5877bfdc3bcaa29fa78ab9dd142c4ca8d65102fbc18c9a47e478d31',
  linux_arm_93: '58f0ccf097eea0015a7ece9ead82a9b756f7d904ccba53e589b9dcf30c2fb2ee',
  linux_x64_108: 'a2d801a6ff997af0f6ee079abd1d5f8ae74f355c91f106e985e74876a78d34d9',
  linux_x64_115: 'f158fb441f7e2e37b3ab9a56782fe37f4c0d33b5cd32e96ee5c0120ce7db7ced',
  linux_x64_93: 'cc7f24ca9321fa29a9f1be0fa000c1d868d189bd300a16812b5cce0c147a27d6',
  win32_x64_108: 'b31ee017129b11990e8b45f1feeda5caf6cdab386e6c4f4a6432495b8404b9fd',
  win32_x64_115: '6dd62494c776ba94a1265969caaa1cc88d02a9a3efb14ef35ef2a1215393cdd9',
  win32_x64_93: '5831a8c685bef8a155b7cc05894567cf9095fca4ac5f034dfea23302ac653f41',
};

/**
 * The native binary this process loads (by platform, architecture and Node ABI) against
 * {@link UWS_BINARY_SHA256}.
 * @returns its path, its SHA-256 and whether it is the pinned one (`ok`).
 */
export function uwsBinaryCheck(): {
  file: string;
  sha256: string | null;
  expected: string | null;
  ok: boolean;
} {
  const require = createRequire(import.meta.url);
  const id = `${process.platform}_${process.arch}_${process.versions.modules}`;
  const pkg = dirname(require.resolve('uWebSockets.js/package.json'));
  const file = join(pkg, 'binaries', `uws_${id}.node`);
  let sha256: string | null = null;
  try {
    sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {}
  const expected = UWS_BINARY_SHA256[id] ?? null;
  return { file, sha256, expected, ok: sha256 !== null && sha256 === expected };
}

/**
 * Refuses to start on a native binary that is not the pinned build: logs {@link uwsBinaryCheck}'s
 * answer as fatal through `fatal(obj, msg)` and exits the process with code 1; returns otherwise.
 */
export function exitUnlessPinnedUws(fatal: (obj: object, msg: string) => void): void {
  const uwsBinary = uwsBinaryCheck();
  if (uwsBinary.ok) return;
  fatal(
    uwsBinary,
    'uWebSockets.js binary is not the pinned build (SECURITY.md, "HTTP core"); refusing to start',
  );
  process.exit(1);
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
