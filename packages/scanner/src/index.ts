/**
 * The companion scanner API (spec, "Companion scanner API" and "Scanner API keys"; design card
 * ../shared/design/SCANNER.md): its own uWS listener, its own durable store, its own keys,
 * accounts, plans, rate limits and credits. `createScannerService(deps)` is the one factory; the
 * indexer starts it in-process beside itself (app/main.ts), and `node packages/scanner/dist/main.js`
 * runs it alone.
 *
 * Layout of this folder: endpoint.ts (the endpoint-definition API), endpoints/ (one file per
 * endpoint family), scan/ (the scan findings, each with its rule, read through index-port.ts at
 * one anchor per answer), dispatch.ts (the framework steps around handlers),
 * gate.ts (credential, key, plan and rate checks), directory.ts / windows.ts / ledger.ts (the
 * three seams), shared/ (their shared implementations on NATS JetStream KV, used when
 * SCANNER_NATS_URL or NATS_URL is set), accounts.ts (key and account rules), store.ts (the
 * only file that touches storage), mailer.ts, secrets.ts, plans.ts, openapi.ts,
 * admin.ts + commands.ts + cli.ts (operator CLI), config.ts, main.ts, service.ts (the factory).
 * This file and entry/ (config, testing) are the package's doors (its package.json `exports`).
 */

/** The shared seams' status (/health). */
export type { SharedStatus } from './commands.js';
/** The scanner's resolved configuration (read it with `@chain-indexer/scanner/config`). */
export type { ScannerConfig } from './config.js';
/** Defines an endpoint (schemas, auth kind, credit rule, handler). */
export { defineEndpoint, type Endpoint } from './endpoint.js';
/** The scanner's coded error (its registry in errors.ts). */
export { ScannerError } from './errors.js';
/** The port the scanner reads the index through, one served chain of it, and the chains' roles. */
export { chainRoles, type IndexedChain, type IndexPort } from './index-port.js';
/** Builds and starts the scanner service; what it is built from; the running service. */
export { createScannerService, type ScannerDeps, type ScannerService } from './service.js';
