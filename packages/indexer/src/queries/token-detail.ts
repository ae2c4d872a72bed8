/**
 * GET /tokens/{address}: the tokens domain's detail with the market `stats` block embedded — the
 * /tokens/{address}/stats body (without `token`) at the same anchor and quote rule, or null with a
 * typed reason. The token row is read once (here) and handed to both domains.
 */
import { ServiceError } from '../errors/index.js';
import { type MarketsReader, statsBodyJson } from '../markets/index.js';
import type { View } from '../storage/index.js';
import type { TokenDetail, TokensReader } from '../tokens/index.js';

/** The embedded stats block of the token detail. */
export interface EmbeddedStats {
  stats: Omit<ReturnType<typeof statsBodyJson>, 'token'> | null;
  statsReason: 'projection_unavailable:markets' | 'no_registered_pool' | 'quote_ambiguous' | null;
  /** The quote candidates when `statsReason` is quote_ambiguous. */
  statsCandidates: string[] | null;
}

/** The token detail body: the tokens domain's detail and the markets stats block. */
export type TokenDetailWithStats = TokenDetail & EmbeddedStats;

/**
 * The detail of `address` at `at` with its stats block: null with `projection_unavailable:markets`
 * while the markets projection is not ready (`marketsReady` false), `no_registered_pool` when the
 * token trades in no registered pool, `quote_ambiguous` with the candidates. Sources: the tokens
 * projection (row, stats, launch, reconciliation) and the markets projection (pools, swaps).
 * @throws DomainError not_found (token not indexed), quote_not_admitted (409: the named quote pairs
 * with none of the pools).
 */
export function tokenDetail(
  d: { tokens: TokensReader; markets: MarketsReader },
  view: View,
  address: string,
  quote: string | undefined,
  at: number,
  marketsReady: boolean,
): TokenDetailWithStats {
  const row = d.tokens.token(view, address, at);
  const detail = d.tokens.detailOf(view, row, at);
  const unavailable = {
    stats: null,
    statsReason: 'projection_unavailable:markets',
    statsCandidates: null,
  } as const;
  if (!marketsReady) return { ...detail, ...unavailable };
  try {
    const s = d.markets.tokenStats(view, row, quote, at);
    if (s.quote === null)
      return { ...detail, stats: null, statsReason: 'quote_ambiguous', statsCandidates: s.candidates };
    const { token: _token, ...body } = statsBodyJson(s);
    return { ...detail, stats: body, statsReason: null, statsCandidates: null };
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    if (e.code === 'projection_unavailable') return { ...detail, ...unavailable };
    if (e.code === 'not_found')
      return { ...detail, stats: null, statsReason: 'no_registered_pool', statsCandidates: null };
    throw e;
  }
}
