/**
 * The build door of the tokens domain: what the ingest engine thread (engine/compose.ts) and other
 * domains' build code use to write it. The serving thread never imports this file: its door is
 * index.ts (readers and rendering only), which a test checks through the serving import graph.
 */
export { storedSeeds } from './apply/seeds.js';
export { transferOf } from './apply/transfers.js';
export { createTokensProjection, type TokensProjectionDeps } from './projection.js';
export { startReconciler } from './reconcile.js';
