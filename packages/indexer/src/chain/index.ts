/**
 * The chain domain: raw chain records, their decoded views, call trees and internal transfers,
 * gaps, and live node reads. Exports the decoded-views projection factory and the chain reader.
 */

export { CALL_DECODERS, CALL_UNKNOWN_REASONS, LOG_STANDARDS, LOG_UNKNOWN_REASONS } from './decoded.js';
export type { LiveReader, ObservedHead } from './live.js';
export { type ChainReader, type ChainReaderDeps, createChainReader, type TracePage } from './reader.js';
export { internalRowOf } from './traces.js';
export type * from './types.js';
