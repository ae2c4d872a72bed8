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

/**
 * The as-of sentence of the token market routes that answer at a block (`asOf: true`): what each
 * figure is read from at N. Appended to their summaries (the contract's description).
 */
export const AS_OF_TOKEN =
  ' As of a block: atBlock / atBlockHash (not_found before the token was first seen; supply and holder figures = the token’s stats_history row at or below N; each pool’s price and liquidity = its state_history row at or below N; the membership = pools registered at or below N; 24h volumes, trades and windows end at N, from the running totals at or below N, so the quote rule and the default venue are resolved at N; reconciliation and metadataNow stay the token’s latest verdict, dated by their checkedAtBlock).';
