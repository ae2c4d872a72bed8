/**
 * `@chain-indexer/platform/http`: the HTTP layer both products serve through — the uWebSockets.js
 * adapter (docs/CONTRIBUTING.md habit 9), the request-body reader, client addresses behind trusted
 * proxies, the server's connection limits and the OpenAPI helpers of a route.
 */

/** Reads a request body up to a byte bound (413 past it), registering `onAborted` first. */
export { readBody } from '../body.js';
/** HTTP_MAX_CONNECTIONS: the open-connection bound of a listener. */
export { httpMaxConnectionsFromEnv } from '../http-limits.js';
/** A route's OpenAPI parameters, and a TypeBox schema as the JSON the contract publishes. */
export { routeParameters, strip } from '../openapi.js';
/** Trusted proxies (TRUSTED_PROXIES, TRUSTED_PROXY_HEADER) and the client address and scheme behind them. */
export {
  clientAddress,
  clientProto,
  isProxyHeader,
  PROXY_HEADERS,
  parseTrustedProxies,
  type TrustedProxyHeader,
  trustedProxiesFromEnv,
  trustedProxyHeaderFromEnv,
} from '../proxy.js';
/** The uWS binding in use (native or the node:http stand-in), its load report and the server types. */
/** Writes a response (status, headers, body), corked and once, honouring an aborted request. */
export {
  corkedSend,
  exitUnlessHttpCore,
  type HttpCore,
  type HttpRequest,
  type HttpResponse,
  remoteAddress,
  send,
  type TemplatedApp,
  type UwsAttempt,
  type UwsBinding,
  type us_listen_socket,
  uws,
  uwsBinding,
  uwsIsNative,
  uwsStandInWarning,
} from '../uws.js';
