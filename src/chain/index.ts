/**
 * The chain domain: raw chain records and their decoded views. Exports the decoded-views
 * projection factory and the chain reader.
 */
export { createDecodedViewsProjection } from './decoded-views.js';
export { type ChainReader, createChainReader } from './reader.js';
