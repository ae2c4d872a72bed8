/** Shared by the token market routes: renderings of the markets reader's objects. */

import type { ErrorCode } from '../../../errors.js';

/** Projections the token market routes read. */
export const TOKEN_MARKET = ['tokens', 'markets'] as const;

/** Typed errors of the token market PAGE routes (quote rule, cursors). */
export const PAGED_MARKET_ERRORS: readonly ErrorCode[] = [
  'bad_request',
  'not_found',
  'quote_not_admitted',
  'bad_cursor',
  'stale_cursor',
];
