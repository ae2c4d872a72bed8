/**
 * GET /tokens/{address}/overview: the markets domain's overview (identity row, supply, first-paint
 * quote, venue price and market cap, windows, pool listing) with the tokens domain's overview
 * holder count and reconciliation state, at one anchor. The token row is read once (here).
 */
import type { MarketsReader, TokenOverview } from '../markets/index.js';
import type { View } from '../storage/index.js';
import type { BalanceFidelity, OverviewHolderCount, TokensReader } from '../tokens/index.js';

/** The overview: the market part and the holder figures. */
export interface TokenOverviewAnswer extends TokenOverview {
  /** The overview's holder count at the anchor (tokens projection). */
  holderCount: OverviewHolderCount;
  /** The token's last reconciliation verdict (eth_call totalSupply()/balanceOf()). */
  reconciliation: BalanceFidelity;
}

/**
 * The overview of `address` at `at` under the first-paint quote rule (`quote` named or resolved).
 * @throws DomainError not_found (token not indexed), quote_not_admitted.
 */
export function tokenOverview(
  d: { tokens: TokensReader; markets: MarketsReader },
  view: View,
  address: string,
  quote: string | undefined,
  at: number,
): TokenOverviewAnswer {
  const row = d.tokens.token(view, address, at);
  const o = d.markets.tokenOverview(view, row, quote, at);
  return {
    ...o,
    holderCount: d.tokens.overviewHolderCount(view, row, at),
    reconciliation: d.tokens.fidelityOf(view, o.token.address),
  };
}
