/**
 * The screener domain: subjects trading against a quote with their window figures, filtered and
 * sorted by the caller's query, and the named rankings that are screener queries.
 */
export {
  CANDIDATE_CEILING,
  FILTER_NAMES,
  type Filters,
  HOLDERS_PREFILTER,
  POOL_WALK_CEILING,
  type ScreenerQuery,
  SORTS,
  type Sort,
} from './compute.js';
export { createScreenerReader, type ScreenerPage, type ScreenerReader, type ScreenerRow } from './reader.js';
