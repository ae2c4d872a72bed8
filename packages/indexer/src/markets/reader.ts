/**
 * The markets reader: everything the pool, token-market and (through the screener) ranking routes
 * read of the markets projection, as of an anchor block, through a request's {@link View}. The
 * rules live in its modules, each once: the quote rule, the first-paint quote rule and the venue
 * choice (`venue.ts`), the windows and the distinct-trader scan bound (`windows.ts`), candles
 * (`candles.ts`), swaps, bars, trades and traders (`swaps.ts`), liquidity and USD marks
 * (`liquidity.ts`, `usd.ts`), the token's pool views (`token-pools.ts`) and pool lists and search
 * (`lists.ts`). A token's market is opened once per request (`token-market.ts`), so each pool's
 * window statistics are computed at most once per request.
 *
 * Sources: the markets projection's tables (pool registry, state history, swaps, candles,
 * liquidity events, the token and currency indices); token rows, supply and decimals through the
 * tokens reader. Units: base units as decimal strings or bigints, prices exact rationals.
 */

import { DomainError } from '../errors/index.js';
import { POOL_LIQUIDITY_EVENTS } from '../schema/cursors.js';
import type {
  CandleRow,
  Frame,
  LiquidityEventRow,
  PoolRow,
  PoolState,
  SwapRow,
} from '../schema/rows/markets.js';
import { LIQ_EVENT, poolKeyOf } from '../schema/tables/markets.js';
import { blockTimestamp } from '../storage/headers.js';
import type { View } from '../storage/index.js';
import type { PageQuery, PageSink } from '../storage/page.js';
import type { OrientedCandle, TokenExtreme } from './candles.js';
import {
  alignRange,
  type CandleRange,
  mergedCandles,
  pageCandles,
  tokenExtreme,
  walkPoolCandles,
} from './candles.js';
import {
  type PoolSearch,
  walkCurrencyPools,
  walkNewPools,
  walkSearch,
  walkTokenPoolsByCurrency,
} from './lists.js';
import { type Rational, ratParse } from './rational.js';
import { type At, extreme, poolAt, stateAt } from './read.js';
import {
  type Bar,
  checkBarSize,
  poolPageRange,
  type TokenTrade,
  type TraderRow,
  type TradersScan,
  tokenTrade as tradeOf,
  walkBars,
  walkPoolSwaps,
  walkTokenTrades,
  walkTraders,
} from './swaps.js';
import {
  openTokenMarket,
  poolsWithQuote,
  type Quote,
  quoteOf,
  type TokenMarket,
  type TokenRef,
  type TokenRows,
  type TokenStatsBody,
  type TokenWindow,
  tokenStatsOf,
  venueOf,
  venuePrice,
} from './token-market.js';
import {
  type AggregatePool,
  type PairLiquidity,
  pageRanked,
  pairLiquidity,
  poolsAggregate,
  type RankedPool,
  type RankSort,
  rankPools,
} from './token-pools.js';
import { type PoolLiquidityUsd, poolLiquidityUsd } from './usd.js';
import {
  chooseVenue,
  orient,
  quoteCandidates,
  statsMemo,
  type TokenPools,
  tokenPools,
  VENUE_RULE,
  type VenueChoice,
} from './venue.js';
import {
  type DistinctCount,
  distinctTraders,
  type WindowName,
  type WindowStats,
  windowStats,
} from './windows.js';

/** How a request names a pool: a V2/V3 pool (or curve) address, or a V4 PoolManager + pool id. */
export type PoolRef = { address: string } | { manager: string; poolId: string };

/** The 52-byte pool key a reference names (no read). */
export const poolRefKey = (r: PoolRef): string =>
  'manager' in r ? poolKeyOf('v4', r.manager, r.poolId) : poolKeyOf('v2', r.address);

/** A pool's window statistics with distinct traders (pool perspective). */
export interface PoolStats {
  asOfTimestamp: number;
  windows: WindowStats[];
  /** Present on the stats routes only (the detail embeds figures without the swap scan). */
  distinctTraders: Record<WindowName, DistinctCount> | null;
}

/** Pool detail: identity, state and window stats. */
export interface PoolDetail {
  pool: PoolRow;
  state: PoolState | null;
  stats: PoolStats;
}

/** Token membership (the bounded pool set) as published on token market responses. */
export type Membership = TokenPools;

/** Price on the default venue. */
export interface TokenPrice {
  token: string;
  quote: Quote;
  venue: VenueChoice;
  /** Quote base units per token base unit; null before the venue's first trade. */
  price: Rational | null;
}

/** Market cap on the default venue. */
export interface TokenMcap extends TokenPrice {
  /** supplyFromTransfers at the anchor, token base units. */
  supply: bigint;
  membership: Membership;
}

/** Every quote's venue resolution. */
export interface TokenVenues {
  token: string;
  rule: string;
  quotes: Array<{ quote: string; venue: VenueChoice }>;
  membership: Membership;
}

/** The stats body, or the candidates when no quote resolved. */
export type TokenStatsResult = (TokenStatsBody | { quote: null; candidates: string[] }) & { token: string };

/** The overview's market block. */
export interface OverviewMarket {
  quote: string | null;
  quoteResolution: string | null;
  candidates: string[];
  venue: VenueChoice | null;
  price: Rational | null;
  marketCap: Rational | null;
  reason: 'quote_ambiguous' | 'no_registered_pools' | 'venue_has_no_price_yet' | null;
  windows: Record<WindowName, TokenWindow> | null;
}

/** Rows of the overview's pool listing (Limits). */
export const OVERVIEW_POOLS = 32;

/** The token overview's market part. */
export interface TokenOverview {
  token: TokenMarket['token'];
  supplyFromTransfers: bigint;
  market: OverviewMarket;
  /** The first {@link OVERVIEW_POOLS} pools of the ranked-pools order (volume_24h, the quote). */
  pools: RankedPool[];
  /** More ranked pools follow the listing (continue on /pools/ranked at rank 32). */
  poolsMore: boolean;
  membership: Membership;
}

/** Token candles: which series and the resolved quote. */
export type TokenSeriesKind = 'candles' | 'ohlcv' | 'mcap';
export interface TokenSeries {
  quote: Quote;
  venue: VenueChoice;
  /** Pools aggregated: the venue alone (candles, mcap) or every pool against the quote (ohlcv). */
  pools: number;
  range: CandleRange;
}

export interface MarketsReader {
  /** The pool at `at`. @throws DomainError not_found. */
  pool(view: View, ref: PoolRef, at: number): PoolRow;
  /** Identity, state and window stats (without distinct traders). @throws DomainError not_found. */
  poolDetail(view: View, ref: PoolRef, at: number): PoolDetail;
  /** Window stats with distinct traders. @throws DomainError not_found. */
  poolStats(view: View, ref: PoolRef, at: number): { pool: PoolRow; stats: PoolStats };
  /** Protocol-native liquidity with its USD valuation. @throws DomainError not_found. */
  poolLiquidity(
    view: View,
    ref: PoolRef,
    at: number,
  ): { pool: PoolRow; state: PoolState | null; usd: PoolLiquidityUsd };
  /** All-time high/low over the pool's 1d candles. @throws DomainError not_found. */
  poolExtreme(
    view: View,
    ref: PoolRef,
    at: number,
    which: 'high' | 'low',
  ): { pool: PoolRow; extreme: { price: Rational; bucket: number } | null };
  /** Swaps of the pool at the page anchor. @throws DomainError not_found. */
  poolSwaps(view: View, ref: PoolRef, page: PageQuery, sink: PageSink<SwapRow>): PoolRow;
  /** Bars over the pool's ticks. @throws DomainError not_found, bad_request, query_too_broad. */
  poolBars(
    view: View,
    ref: PoolRef,
    rule: 'trade' | 'volume',
    size: bigint,
    page: PageQuery,
    sink: PageSink<Bar>,
  ): PoolRow;
  /** Candles of the pool. @throws DomainError bad_request (range), not_found. */
  poolCandles(
    view: View,
    ref: PoolRef,
    range: { frame: Frame; from: number; to: number },
    page: PageQuery,
    sink: PageSink<CandleRow>,
  ): { pool: PoolRow; range: CandleRange };
  /** Liquidity events of the pool. @throws DomainError not_found. */
  liquidityEvents(view: View, ref: PoolRef, page: PageQuery, sink: PageSink<LiquidityEventRow>): PoolRow;
  /** The new-pools feed. */
  newPools(view: View, page: PageQuery, sink: PageSink<PoolRow>): void;
  /** Pools holding a currency. */
  currencyPools(view: View, currency: string, page: PageQuery, sink: PageSink<PoolRow>): void;
  /** Bounded pool search. @throws DomainError bad_request, projection_unavailable, query_too_broad. */
  searchPools(
    view: View,
    q: PoolSearch,
    page: PageQuery,
    sink: PageSink<PoolRow>,
  ): { anchorCurrency: string; scanned: number };

  /**
   * Spot price of any currency (a token, or the native currency 0x0…0, which has no token row) in
   * `quote` on the default venue of (currency, quote) — the venue rule of {@link VENUE_RULE} —
   * at `at`: quote base units per currency base unit; `price` null before the venue's first trade.
   * Null when no registered pool pairs them (within the membership bound). Never throws for an
   * unindexed currency: this is how a quote asset (native included) is marked in another quote.
   */
  pairPrice(
    view: View,
    currency: string,
    quote: string,
    at: number,
  ): { venue: VenueChoice; price: Rational | null } | null;
  /** Spot price on the default venue (quote rule). @throws DomainError not_found, quote_not_admitted, bad_request. */
  tokenPrice(view: View, token: string, quote: string | undefined, at: number): TokenPrice;
  /** Market cap on the default venue (quote rule). */
  tokenMcap(view: View, token: string, quote: string | undefined, at: number): TokenMcap;
  /** All-time extreme across the token's pools against the quote (quote rule). */
  tokenExtreme(
    view: View,
    token: string,
    quote: string | undefined,
    at: number,
    which: 'high' | 'low',
  ): { token: string; quote: string; extreme: TokenExtreme | null; membership: Membership };
  /** Venue resolution per quote (or the named one). @throws DomainError quote_not_admitted. */
  tokenVenues(view: View, token: string, quote: string | undefined, at: number): TokenVenues;
  /**
   * Stats on the default venue (first-paint quote rule); `token` is the address or its row already
   * read at `at` (then not read again).
   * @throws DomainError not_found (token not indexed, or no registered pool), quote_not_admitted.
   */
  tokenStats(view: View, token: TokenRef, quote: string | undefined, at: number): TokenStatsResult;
  /**
   * The overview's market part (first-paint quote rule), window stats computed once; `token` as in
   * {@link tokenStats}. The query layer adds the holder count and reconciliation (src/queries).
   * @throws DomainError not_found, quote_not_admitted.
   */
  tokenOverview(view: View, token: TokenRef, quote: string | undefined, at: number): TokenOverview;
  /** Protocol-native liquidity of (token, quote). */
  tokenLiquidity(
    view: View,
    token: string,
    quote: string | undefined,
    at: number,
  ): { token: string; quote: string; liquidity: PairLiquidity; membership: Membership };
  /** Pools grouped by counter currency (quote optional). */
  tokenPoolsAggregate(
    view: View,
    token: string,
    quote: string | undefined,
    at: number,
  ): {
    token: string;
    groups: Array<{ counterCurrency: string; pools: AggregatePool[] }>;
    truncated: boolean;
    considered: number;
  };
  /** Ranked pools (desc by rank). */
  tokenPoolsRanked(
    view: View,
    token: string,
    sort: RankSort,
    quote: string | undefined,
    page: PageQuery,
    sink: PageSink<RankedPool>,
  ): { quote: string | null; membership: Membership };
  /** The token's pools against one counter currency. */
  tokenPoolsByCurrency(
    view: View,
    token: string,
    currency: string,
    page: PageQuery,
    sink: PageSink<PoolRow>,
  ): void;
  /** Trades across the token's pools against the quote. */
  tokenSwaps(
    view: View,
    token: string,
    quote: string | undefined,
    page: PageQuery,
    sink: PageSink<TokenTrade>,
  ): Quote;
  /** Trades on the default venue. */
  tokenTicks(
    view: View,
    token: string,
    quote: string | undefined,
    page: PageQuery,
    sink: PageSink<TokenTrade>,
  ): { quote: Quote; venue: VenueChoice };
  /** Traders ranked by quote volume in a window. */
  tokenTraders(
    view: View,
    token: string,
    quote: string | undefined,
    window: WindowName,
    page: PageQuery,
    sink: PageSink<TraderRow>,
  ): TradersScan & { quote: Quote };
  /**
   * Token candles: `candles` on the default venue, `ohlcv` merged over the quote's pools, `mcap`
   * the venue's candles × supply at each bucket's last trade. @throws DomainError bad_request (range).
   */
  tokenSeries(
    view: View,
    token: string,
    kind: TokenSeriesKind,
    q: { quote?: string; frame: Frame; from: number; to: number },
    page: PageQuery,
    sink: PageSink<OrientedCandle>,
  ): TokenSeries;
}

/** What the markets reader needs besides a request's view. */
export interface MarketsReaderDeps {
  /** Configured USD stablecoins (marked at par; the first-paint quote rule). */
  usdStablecoins: readonly string[];
  /** Token rows, supply and decimals (the tokens reader satisfies it). */
  tokens: TokenRows;
}

/** Creates the markets reader (stateless). */
export function createMarketsReader(deps: MarketsReaderDeps): MarketsReader {
  const stables: ReadonlySet<string> = new Set(deps.usdStablecoins.map((a) => a.toLowerCase()));
  const tsOf = (view: View, n: number) => blockTimestamp(view, n) ?? 0;
  const atOf = (view: View, n: number): At => ({ block: n, ts: tsOf(view, n) });
  const decimals = (view: View, at: number) => (c: string) =>
    deps.tokens.find(view, c, at)?.metadata?.decimals.value ?? null;
  const pool = (view: View, ref: PoolRef, at: number): PoolRow => {
    const p = poolAt(view, poolRefKey(ref), at);
    if (p) return p;
    if ('manager' in ref)
      throw new DomainError(
        'not_found',
        `no V4 pool ${ref.poolId} on manager ${ref.manager} at the anchored block`,
      );
    throw new DomainError(
      'not_found',
      `no V2/V3 pool at ${ref.address} at the anchored block (V4 pools are addressed as /pools/v4/{manager}/{pool_id}; launchpad curves by key from /pools/search)`,
    );
  };
  const market = (view: View, token: TokenRef, at: number) =>
    openTokenMarket(view, deps.tokens, token, atOf(view, at));
  return {
    pool,
    poolDetail(view, ref, at) {
      const p = pool(view, ref, at);
      const a = atOf(view, at);
      return {
        pool: p,
        state: stateAt(view, p.key, at),
        stats: { asOfTimestamp: a.ts, windows: windowStats(view, p.key, a), distinctTraders: null },
      };
    },
    poolStats(view, ref, at) {
      const p = pool(view, ref, at);
      const a = atOf(view, at);
      return {
        pool: p,
        stats: {
          asOfTimestamp: a.ts,
          windows: windowStats(view, p.key, a),
          distinctTraders: distinctTraders(view, p.key, a),
        },
      };
    },
    poolLiquidity(view, ref, at) {
      const p = pool(view, ref, at);
      const st = stateAt(view, p.key, at);
      return { pool: p, state: st, usd: poolLiquidityUsd(stables, decimals(view, at), p, st) };
    },
    poolExtreme(view, ref, at, which) {
      const p = pool(view, ref, at);
      return { pool: p, extreme: extreme(view, p.key, atOf(view, at), which) };
    },
    poolSwaps(view, ref, page, sink) {
      const p = pool(view, ref, page.at);
      walkPoolSwaps(view, p, page, sink);
      return p;
    },
    poolBars(view, ref, rule, size, page, sink) {
      checkBarSize(rule, size);
      const p = pool(view, ref, page.at);
      walkBars(view, p, rule, size, page, sink);
      return p;
    },
    poolCandles(view, ref, r, page, sink) {
      const range = alignRange(r.frame, r.from, r.to);
      const p = pool(view, ref, page.at);
      walkPoolCandles(view, p, range, tsOf(view, page.at), page, sink);
      return { pool: p, range };
    },
    liquidityEvents(view, ref, page, sink) {
      const p = pool(view, ref, page.at);
      const k = p.key as `0x${string}`;
      view.each(LIQ_EVENT, poolPageRange(k, page), (e, _key, raw) =>
        sink(e, POOL_LIQUIDITY_EVENTS.tail(raw)),
      );
      return p;
    },
    pairPrice(view, currency, quote, at) {
      const c = currency.toLowerCase();
      const a = atOf(view, at);
      const v = chooseVenue(
        view,
        tokenPools(view, c, at).pools,
        c,
        quote.toLowerCase(),
        a,
        statsMemo(view, a),
      );
      if (!v) return null;
      const st = stateAt(view, v.pool.key, at);
      return { venue: v, price: st?.price ? orient(v.pool, c, ratParse(st.price)) : null };
    },
    newPools: walkNewPools,
    currencyPools: walkCurrencyPools,
    searchPools: walkSearch,
    ...tokenMethods(deps, stables, market, decimals),
    ...tokenWalkMethods(deps, market),
  };
}

type OpenMarket = (view: View, token: TokenRef, at: number) => TokenMarket;

/** The quote rule, the default venue and its price. */
function priced(view: View, m: TokenMarket, named: string | undefined): TokenPrice {
  const quote = quoteOf(m, named);
  const venue = venueOf(view, m, quote.quote);
  return { token: m.address, quote, venue, price: venuePrice(view, m, venue) };
}

type PoolMethods =
  | 'pairPrice'
  | 'pool'
  | 'poolDetail'
  | 'poolStats'
  | 'poolLiquidity'
  | 'poolExtreme'
  | 'poolSwaps'
  | 'poolBars'
  | 'poolCandles'
  | 'liquidityEvents'
  | 'newPools'
  | 'currencyPools'
  | 'searchPools';
type WalkMethods = 'tokenPoolsByCurrency' | 'tokenSwaps' | 'tokenTicks' | 'tokenTraders' | 'tokenSeries';

/** The token figures of the reader (price, market cap, extremes, venues, stats, overview, pool views). */
function tokenMethods(
  deps: MarketsReaderDeps,
  stables: ReadonlySet<string>,
  market: OpenMarket,
  decimals: (view: View, at: number) => (c: string) => number | null,
): Omit<MarketsReader, PoolMethods | WalkMethods> {
  const tokenStats: MarketsReader['tokenStats'] = (view, token, named, at) => {
    const m = market(view, token, at);
    return { token: m.address, ...tokenStatsOf(view, m, named, stables) };
  };
  return {
    tokenPrice: (view, token, named, at) => priced(view, market(view, token, at), named),
    tokenMcap(view, token, named, at) {
      const m = market(view, token, at);
      return {
        ...priced(view, m, named),
        supply: deps.tokens.supply(view, m.address, at),
        membership: m.pools,
      };
    },
    tokenExtreme(view, token, named, at, which) {
      const m = market(view, token, at);
      const q = quoteOf(m, named);
      const x = tokenExtreme(view, poolsWithQuote(m, q.quote), m.address, m.at, which);
      return { token: m.address, quote: q.quote, extreme: x, membership: m.pools };
    },
    tokenVenues(view, token, named, at) {
      const m = market(view, token, at);
      const quotes = quoteCandidates(m.pools.pools, m.address);
      const n = named?.toLowerCase();
      const list = (n ? quotes.filter((q) => q === n) : quotes).map((q) => ({
        quote: q,
        venue: venueOf(view, m, q),
      }));
      if (n && !list.length)
        throw new DomainError('quote_not_admitted', `${n} is not a quote of ${m.address}`, {
          candidates: quotes,
        });
      return { token: m.address, rule: VENUE_RULE, quotes: list, membership: m.pools };
    },
    tokenStats,
    tokenOverview: (view, token, named, at) => overview(view, deps, stables, market(view, token, at), named),
    tokenLiquidity(view, token, named, at) {
      const m = market(view, token, at);
      const q = quoteOf(m, named);
      return {
        token: m.address,
        quote: q.quote,
        liquidity: pairLiquidity(view, m, q.quote),
        membership: m.pools,
      };
    },
    tokenPoolsAggregate(view, token, named, at) {
      const m = market(view, token, at);
      const quote = named ? quoteOf(m, named).quote : null;
      return { token: m.address, ...poolsAggregate(view, m, quote) };
    },
    tokenPoolsRanked(view, token, sort, named, page, sink) {
      const m = market(view, token, page.at);
      const quote = named ? quoteOf(m, named).quote : null;
      pageRanked(rankPools(view, m, sort, quote, stables, decimals(view, page.at)), page, sink);
      return { quote, membership: m.pools };
    },
  };
}

/** The token page walks of the reader (pools by currency, trades, ticks, traders, candle series). */
function tokenWalkMethods(deps: MarketsReaderDeps, market: OpenMarket): Pick<MarketsReader, WalkMethods> {
  return {
    tokenPoolsByCurrency(view, token, currency, page, sink) {
      const m = market(view, token, page.at);
      walkTokenPoolsByCurrency(view, m.address, currency, m.pools.pools, page, sink);
    },
    tokenSwaps(view, token, named, page, sink) {
      const m = market(view, token, page.at);
      const q = quoteOf(m, named);
      walkTokenTrades(view, m.address, m.pools.pools, q.quote, page, sink);
      return q;
    },
    tokenTicks(view, token, named, page, sink) {
      const m = market(view, token, page.at);
      const p = priced(view, m, named);
      walkPoolSwaps(view, p.venue.pool, page, (s, key) =>
        sink(s === null ? null : tradeOf(p.venue.pool, m.address, s), key),
      );
      return { quote: p.quote, venue: p.venue };
    },
    tokenTraders(view, token, named, window, page, sink) {
      const m = market(view, token, page.at);
      const q = quoteOf(m, named);
      return {
        quote: q,
        ...walkTraders(view, m.address, m.pools.pools, q.quote, window, m.at.ts, page, sink),
      };
    },
    tokenSeries(view, token, kind, q, page, sink) {
      const range = alignRange(q.frame, q.from, q.to);
      const m = market(view, token, page.at);
      const p = priced(view, m, q.quote);
      const pools = kind === 'ohlcv' ? poolsWithQuote(m, p.quote.quote) : [p.venue.pool];
      const rows = mergedCandles(view, pools, m.address, range, page.at, m.at.ts);
      const scaled =
        kind === 'mcap'
          ? (c: OrientedCandle): OrientedCandle => {
              const supply = deps.tokens.supply(view, m.address, c.last[0]);
              const s = (r: Rational): Rational => ({ n: r.n * supply, d: r.d });
              return { ...c, open: s(c.open), high: s(c.high), low: s(c.low), close: s(c.close) };
            }
          : (c: OrientedCandle) => c;
      pageCandles(rows, page, scaled, sink);
      return { quote: p.quote, venue: p.venue, pools: pools.length, range };
    },
  };
}

/** The overview: first-paint quote, venue price and market cap, windows, and the pool listing. */
function overview(
  view: View,
  deps: MarketsReaderDeps,
  stables: ReadonlySet<string>,
  m: TokenMarket,
  named: string | undefined,
): TokenOverview {
  const supply = deps.tokens.supply(view, m.address, m.at.block);
  const s = tokenStatsOf(view, m, named, stables);
  const out: TokenOverview = {
    token: m.token,
    supplyFromTransfers: supply,
    market: {
      quote: null,
      quoteResolution: null,
      candidates: s.candidates,
      venue: null,
      price: null,
      marketCap: null,
      reason: s.candidates.length ? 'quote_ambiguous' : 'no_registered_pools',
      windows: null,
    },
    pools: [],
    poolsMore: false,
    membership: m.pools,
  };
  if (s.quote === null) return out;
  const price = venuePrice(view, m, s.venue);
  out.market = {
    quote: s.quote,
    quoteResolution: s.quoteResolution,
    candidates: s.candidates,
    venue: s.venue,
    price,
    marketCap: price ? { n: price.n * supply, d: price.d } : null,
    reason: price ? null : 'venue_has_no_price_yet',
    windows: s.windows,
  };
  const ranked = rankPools(view, m, 'volume_24h', s.quote, stables, () => null);
  out.pools = ranked.slice(0, OVERVIEW_POOLS);
  out.poolsMore = ranked.length > OVERVIEW_POOLS;
  return out;
}
