/**
 * The query layer: one query per route whose response combines domains, built from the domains'
 * readers above them (docs/CONTRIBUTING.md, layering). A domain answers for its own projection
 * only; what joins two domains (the token detail with its market stats, the token overview with
 * its holder figures, the wallet overview with its cohorts) is built here, and each row it needs is
 * read once per request: the query reads a shared row (the token row) and hands it to every domain
 * that needs it. Routes call `ctx.readers.queries`; domains never import this folder.
 */
import type { CohortsReader } from '../cohorts/index.js';
import type { MarketsReader } from '../markets/index.js';
import type { View } from '../storage/index.js';
import type { TokensReader } from '../tokens/index.js';
import type { WalletsReader } from '../wallets/index.js';
import { type TokenDetailWithStats, tokenDetail } from './token-detail.js';
import { type TokenOverviewAnswer, tokenOverview } from './token-overview.js';
import { type WalletOverviewAnswer, walletOverview } from './wallet-overview.js';

export type { EmbeddedStats, TokenDetailWithStats } from './token-detail.js';
export type { TokenOverviewAnswer } from './token-overview.js';
export type { WalletOverviewAnswer } from './wallet-overview.js';

/** The domain readers the queries combine (created once at start-up by the composition root). */
export interface QueriesDeps {
  tokens: TokensReader;
  markets: MarketsReader;
  wallets: WalletsReader;
  cohorts: CohortsReader;
}

/** The combining queries of a chain; each reads through the request's view. */
export interface Queries {
  /**
   * GET /tokens/{address}: the token detail with its market stats block (null with a typed reason
   * while `marketsReady` is false, without a pool, or with an ambiguous quote).
   * @throws DomainError not_found, quote_not_admitted.
   */
  tokenDetail(
    view: View,
    address: string,
    quote: string | undefined,
    at: number,
    marketsReady: boolean,
  ): TokenDetailWithStats;
  /**
   * GET /tokens/{address}/overview: market part, holder count and reconciliation.
   * @throws DomainError not_found, quote_not_admitted.
   */
  tokenOverview(view: View, address: string, quote: string | undefined, at: number): TokenOverviewAnswer;
  /** GET /wallets/{address}/overview: first seen, top holdings and cohort memberships. */
  walletOverview(view: View, wallet: string, at: number): WalletOverviewAnswer;
}

/** Creates the queries over the chain's domain readers (stateless). */
export function createQueries(deps: QueriesDeps): Queries {
  return {
    tokenDetail: (view, address, quote, at, ready) => tokenDetail(deps, view, address, quote, at, ready),
    tokenOverview: (view, address, quote, at) => tokenOverview(deps, view, address, quote, at),
    walletOverview: (view, wallet, at) => walletOverview(deps, view, wallet, at),
  };
}
