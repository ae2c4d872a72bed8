/**
 * `@chain-indexer/scanner/testing`: what the repository's own scanner suites (test/e2e/scanner-*,
 * test/harness/scanner*.ts) and the scanner bench reach below the front door — the core and its
 * seams, the store check, the endpoint table, the operator commands, key generation, the rate
 * windows and gate. Never imported by app/ (front-doors test).
 */

/** Sends one command to a running scanner's admin socket. */
export { sendAdminCommand } from '../admin.js';
/** The operator CLI's commands, in-process and through the admin socket. */
export { runCommand } from '../commands.js';
/** Opens the scanner's core (store, seams) without a listener, and checks a store's invariants. */
export { checkStore, openScannerCore, type Seams } from '../core.js';
/** The key directory seam, embedded (on the store). */
export { createEmbeddedDirectory, type KeyDirectory } from '../directory.js';
/** Every endpoint the scanner serves. */
export { ENDPOINTS } from '../endpoints/index.js';
/** The scanner's error registry (its codes, statuses and meanings). */
export { SCANNER_ERRORS } from '../errors.js';
/** The request gate: credential, key, plan and rate checks. */
export { createGate } from '../gate.js';
/** A credit ledger entry, and the UTC day of an instant. */
export { dayOf, type LedgerEntry } from '../model.js';
/** A new API key secret (id, plain text, hash). */
export { generateKey } from '../secrets.js';
/** The seams' shared implementations on NATS JetStream KV. */
export { openSharedState } from '../shared/state.js';
/** The per-key rate windows. */
export { createRateWindows } from '../windows.js';
