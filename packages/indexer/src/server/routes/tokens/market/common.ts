/** Shared by the token market routes: the projections they read, their errors, their reader arguments. */

import type { ErrorCode } from '../../../errors.js';
import type { Ctx } from '../../../route.js';

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

/**
 * The arguments every token market reader call takes, from a request on `/tokens/{address}/…`
 * with the optional `quote`: the view, the token, the named quote and the anchor block.
 */
export const quoted = (ctx: Ctx<{ address: string }, { quote?: string }>) =>
  [ctx.view, ctx.params.address, ctx.query.quote, ctx.anchor.number] as const;
