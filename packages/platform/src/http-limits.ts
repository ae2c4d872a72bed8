/**
 * The bounds the node:http stand-in (`uws-node.ts`) puts on every connection, no looser than
 * native uWS (in issue 38's probes native uWS cut slowly sent headers and a body trickled a byte
 * every 4.5 s at 15 s; node:http's defaults took 85 s and over 320 s): slow headers, a slow body,
 * an idle keep-alive and the number of connections are all bounded (SECURITY.md, "Every request
 * bounded").
 */
import { envInt } from './env.js';

/** Longest a request's headers may take to arrive, ms (node:http `headersTimeout`; then 408). */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Longest a whole request (headers and body) may take to arrive, ms (node:http `requestTimeout`;
 * then 408 and the connection closed). A body trickled a byte at a time is cut here: with the
 * check period below, within 15 s of the request's first byte, as native uWS does.
 */
export const REQUEST_TIMEOUT_MS = 14_000;
/** How often node:http checks the two limits above, ms (`connectionsCheckingInterval`; default 30 s). */
export const TIMEOUT_CHECK_MS = 1_000;
/** Longest an idle keep-alive connection is kept between requests, ms (uWS's HTTP idle timeout is 10 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/**
 * Open connections one listener accepts by default (HTTP_MAX_CONNECTIONS): past it a new
 * connection is closed at once. Each costs a socket and a parser (~10–20 KiB).
 */
export const DEFAULT_MAX_CONNECTIONS = 4_096;
/** Largest HTTP_MAX_CONNECTIONS accepted. */
const MAX_MAX_CONNECTIONS = 1_000_000;

/** The bounds of one stand-in listener (see the constants above for each one's meaning). */
export interface StandInLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  checkIntervalMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/**
 * HTTP_MAX_CONNECTIONS: open connections per listener on the node:http stand-in, 1..1,000,000,
 * default {@link DEFAULT_MAX_CONNECTIONS}. (Native uWS has no such setting.)
 * @throws Error naming the variable when it is not an integer in range.
 */
export function httpMaxConnectionsFromEnv(env: NodeJS.ProcessEnv): number {
  return envInt(env, 'HTTP_MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 1, MAX_MAX_CONNECTIONS);
}

/**
 * The stand-in's bounds: the constants of this module and HTTP_MAX_CONNECTIONS from `env`.
 * @throws Error naming HTTP_MAX_CONNECTIONS when it is malformed.
 */
export function standInLimits(env: NodeJS.ProcessEnv): StandInLimits {
  return {
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    checkIntervalMs: TIMEOUT_CHECK_MS,
    keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: httpMaxConnectionsFromEnv(env),
  };
}
