/**
 * The build door of the chain domain: what the ingest engine thread (engine/compose.ts) and other
 * domains' build code use to write it. The serving thread never imports this file: its door is
 * index.ts (readers and rendering only), which a test checks through the serving import graph.
 */
export { createDecodedViewsProjection } from './decoded-views.js';
