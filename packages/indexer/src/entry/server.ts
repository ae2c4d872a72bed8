/**
 * `@chain-indexer/indexer/server`: the read API — the uWS server, the route table and its
 * OpenAPI contract, API keys, the error registry of the answers, and the context a route reads.
 */

/** API keys (KEYS_FILE, DEV_API_KEY): scopes, hashing, the request's authorisation. */
export { ALL_SCOPES, createAuth, hashKey, type KeyConfig, loadKeysFile } from '../server/auth.js';
/** The API's error registry and the error an answer carries. */
export { ApiError, ERRORS } from '../server/errors.js';
/** Starts the HTTP server over the route table; a route's full path. */
export { createServer, fullPath } from '../server/index.js';
/** The per-chain response cache of anchored routes. */
export { responseCacheOf } from '../server/invoke.js';
/** The OpenAPI 3.1 contract built from the routes, and the error codes a route declares. */
export { buildOpenApi, declaredErrors } from '../server/openapi.js';
/** The projections a chain serves, and the refusal when one is not ready. */
export { projectionsOf, requireProjection } from '../server/projections.js';
/** A route's definition, its request context and a served chain's context. */
export type { ChainContext, Ctx, Route } from '../server/route.js';
/** Every read route (docs/CONTRIBUTING.md habit 2). */
export { routes } from '../server/routes/index.js';
/** The chain's /health route (its payload, redacted). */
export { chainHealthRoute } from '../server/routes/monitoring/health.js';
