// biome-ignore lint/correctness/noUnusedImports: named so the emitted .d.ts can name TypeBox's symbol keys (TS4023)
import type { Hint, Kind, OptionalKind, ReadonlyKind } from '@sinclair/typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import { DomainError } from '../../../errors/index.js';
import { SCREENER_ROWS } from '../../../schema/cursors.js';
import {
  CANDIDATE_CEILING,
  FILTER_NAMES,
  HOLDERS_PREFILTER,
  POOL_WALK_CEILING,
  type ScreenerQuery,
  type ScreenerRow,
  SORTS,
  type Sort,
} from '../../../screener/index.js';
import { paged } from '../../page.js';
import { type Ctx, defineRoute, type Reply } from '../../route.js';
import { Address, Amount, AmountQuery, Count, Enum, Nullable, Obj, Paged, Window } from '../../schemas.js';
import { HolderCount } from '../tokens/schemas.js';

/**
 * The as-of sentence of the screener and the rankings (`asOf: true`): what each figure is read
 * from at N. Appended to their summaries (the contract's description).
 */
export const AS_OF_SCREENER =
  ' As of a block: atBlock / atBlockHash (every figure at N: the subjects = the pools registered at or below N whose state_history row at or below N has a last trade; the window ends at N’s timestamp; volumes and counts from the 1-minute candles, the bucket holding N recomputed from its swaps up to N; distinct traders from the swap rows at or below N under the same scan bound; holder counts from each base’s stats_history row at or below N; coverage up to N; the same ceilings as at the head, except that the pool-walk ceiling (query_too_broad) counts the walked currency’s pools registered after N too, as the walk reads them; a cursor minted at N stays at N).';

/** Projections the screener reads. */
export const SCREENER_REQUIRES = ['markets', 'tokens'] as const;

/** Rows per screener page at most (each row carries its own figures). */
export const SCREENER_MAX_LIMIT = 100;

export const screenerQueryProps = {
  quote: Address,
  allowScan: Type.Optional(Type.Boolean()),
  grain: Type.Optional(Type.Union([Type.Literal('pool'), Type.Literal('token_pair')])),
  base: Type.Optional(Address),
  window: Type.Optional(Window),
  order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SCREENER_MAX_LIMIT, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  recency_floor_block: Type.Optional(Type.Integer({ minimum: 0 })),
};
const count = () => Type.Optional(Type.Integer({ minimum: 0 }));
export const filterProps = {
  min_total_volume_quote: Type.Optional(AmountQuery),
  min_buy_volume_quote: Type.Optional(AmountQuery),
  min_sell_volume_quote: Type.Optional(AmountQuery),
  max_total_volume_quote: Type.Optional(AmountQuery),
  min_trades: count(),
  min_buys: count(),
  min_sells: count(),
  max_trades: count(),
  max_buys: count(),
  max_sells: count(),
  min_distinct_traders_lower_bound: count(),
  min_covered_blocks: count(),
  require_window_fully_covered: Type.Optional(Type.Boolean()),
  require_distinct_exact: Type.Optional(Type.Boolean()),
};

const Asset = Obj({
  address: { ...Address, description: 'token address (the zero address is native currency)' },
  symbol: Nullable(Type.String(), 'null when the token has no readable symbol'),
  name: Nullable(Type.String(), 'null when the token has no readable name'),
});
const subjectDistinct = (who: string) =>
  Obj({
    lowerBound: Count(`distinct ${who} (transaction origins) found`),
    exact: Type.Boolean({ description: 'true when every swap of the window was examined for every pool' }),
  });

/** A screener row. */
export const ScreenerRowSchema = Obj({
  rank: Nullable(Type.Integer({ minimum: 1 }), 'position in the sort; null under sort=holders'),
  rankWithinPrefilterSet: Nullable(
    Type.Integer({ minimum: 1 }),
    'position under sort=holders; null otherwise',
  ),
  subject: Type.String({
    pattern: '^0x[0-9a-f]{40}([0-9a-f]{64})?$',
    description: 'base token address (token_pair) or pool key (pool)',
  }),
  grain: Enum(['pool', 'token_pair'], 'the subject grain'),
  base: Asset,
  quote: Asset,
  pools: Type.Array(Type.String({ pattern: '^0x[0-9a-f]{104}$' }), {
    description: 'pool keys of the subject',
  }),
  totalVolumeQuote: { ...Amount, description: 'quote base units traded in the window' },
  buyVolumeQuote: { ...Amount, description: 'quote base units paid for the base' },
  sellVolumeQuote: { ...Amount, description: 'quote base units received for the base' },
  trades: Count('trades in the window'),
  buys: Count('trades buying the base'),
  sells: Count('trades selling the base'),
  distinctTraders: subjectDistinct('traders'),
  distinctBuyers: subjectDistinct('buyers'),
  distinctSellers: subjectDistinct('sellers'),
  window: Obj({
    coveredBlocks: Count('indexed blocks of the window up to the anchor'),
    windowFullyCovered: Type.Boolean({ description: 'the index covers the whole window' }),
  }),
  holderCount: HolderCount,
  lastTradeBlock: Type.Integer({
    minimum: 0,
    description: 'last trade of the subject at or before the anchor',
  }),
});

const qprop = (t: TSchema) => Type.Optional(t);
/** The echoed query of a screener page. */
const EchoQuery = Obj(
  {
    quote: Address,
    grain: Enum(['pool', 'token_pair']),
    base: qprop(Address),
    window: Enum(['5m', '1h', '4h', '24h']),
    sort: Enum([...SORTS]),
    order: Enum(['asc', 'desc']),
    allowScan: qprop(Type.Boolean()),
    recency_floor_block: qprop(Type.Integer({ minimum: 0 })),
    ...Object.fromEntries(
      FILTER_NAMES.map((f) => [
        f,
        qprop(
          f.startsWith('require_')
            ? Type.Boolean()
            : f.endsWith('_quote')
              ? Amount
              : Type.Integer({ minimum: 0 }),
        ),
      ]),
    ),
  },
  { description: 'the query as resolved (defaults applied)' },
);

/** Page fields of a screener answer (rankings add preset, formula, equivalentScreenerQuery). */
export const screenerPageProps = {
  query: EchoQuery,
  quote: Address,
  grain: Enum(['pool', 'token_pair']),
  window: Enum(['5m', '1h', '4h', '24h']),
  windowStart: Type.Integer({
    minimum: 0,
    description: 'first second of the window (unix seconds, a minute boundary)',
  }),
  sort: Enum([...SORTS]),
  recencyFloorBlock: Nullable(Type.Integer({ minimum: 0 }), 'null when not given'),
  candidatesScanned: Count('subjects enumerated'),
  ceiling: Count('candidate-set ceiling'),
  holdersRanking: Nullable(
    Obj({ candidateSet: Type.String(), candidates: Count('subjects in the prefilter set') }),
    'set under sort=holders; null otherwise',
  ),
  volumeUnit: Type.Literal('quote base units', { description: 'unit of the volumes' }),
};

const rowJson = (r: ScreenerRow) =>
  JSON.stringify({
    rank: r.rank,
    rankWithinPrefilterSet: r.rankWithinPrefilterSet,
    subject: r.subject,
    grain: r.grain,
    base: r.base,
    quote: r.quote,
    pools: r.pools,
    totalVolumeQuote: r.totalVolumeQuote.toString(),
    buyVolumeQuote: r.buyVolumeQuote.toString(),
    sellVolumeQuote: r.sellVolumeQuote.toString(),
    trades: r.trades,
    buys: r.buys,
    sells: r.sells,
    distinctTraders: r.distinctTraders,
    distinctBuyers: r.distinctBuyers,
    distinctSellers: r.distinctSellers,
    window: r.window,
    holderCount: r.holderCount,
    lastTradeBlock: r.lastTradeBlock,
  });

/** Runs a screener query at the page anchor; `extra` is added to the page (rankings). */
export function runScreener(
  ctx: Ctx<unknown, unknown>,
  routeTag: string,
  q: ScreenerQuery,
  extra: Record<string, unknown> = {},
): Reply {
  const route = SCREENER_ROWS.tag(routeTag, JSON.stringify(q));
  return paged(
    ctx as never,
    route,
    (page, sink) => {
      const s = ctx.readers.screener.screen(ctx.view, q, page, sink);
      return {
        query: q,
        quote: q.quote,
        grain: q.grain,
        window: q.window,
        windowStart: s.coverage.windowStart,
        sort: q.sort,
        recencyFloorBlock: q.recency_floor_block ?? null,
        candidatesScanned: s.candidatesScanned,
        ceiling: s.ceiling,
        holdersRanking: s.holdersRanking,
        volumeUnit: 'quote base units',
        ...extra,
      };
    },
    rowJson,
    { order: q.order, limit: 50 },
  );
}

export function screenerQueryOf(raw: Record<string, unknown>, sort: Sort): ScreenerQuery {
  const q: ScreenerQuery = {
    quote: String(raw.quote).toLowerCase(),
    grain: (raw.grain as ScreenerQuery['grain']) ?? 'token_pair',
    base: raw.base ? String(raw.base).toLowerCase() : undefined,
    window: (raw.window as ScreenerQuery['window']) ?? '5m',
    sort,
    order: (raw.order as 'asc' | 'desc') ?? 'desc',
    allowScan: raw.allowScan as boolean | undefined,
    recency_floor_block: raw.recency_floor_block as number | undefined,
  };
  for (const f of FILTER_NAMES)
    if (raw[f] !== undefined) (q as unknown as Record<string, unknown>)[f] = raw[f];
  return q;
}

export const screenerRoute = defineRoute({
  id: 'screener.screener',
  method: 'GET',
  path: '/screener',
  scope: 'read',
  group: 'Screener and rankings',
  summary: `Filtered, sorted page over subjects that traded against the quote at or before the anchor: grain token_pair (default; a base token aggregated over its pools against the quote; subject = base address) or pool (subject = pool key). Window 5m|1h|4h|24h (default 5m) of whole 1-minute buckets: trades and blocks with timestamp in [windowStart, anchor timestamp], windowStart (on the page) = the first minute boundary after anchor timestamp − window; a subject with no trade in the window is a row of zeros. Sorts: ${SORTS.join(', ')} (default total_volume_quote; distinct_traders on distinctTraders.lowerBound; holders ranks within the top ${HOLDERS_PREFILTER} by total_volume_quote under the filters (ties by subject ascending): rank null, rankWithinPrefilterSet set, holdersRanking names the set; a null holder count sorts below every count). Ties are broken by subject ascending under order=asc; order=desc (default) is the exact reverse of asc. Filters are inclusive and need allowScan=true. recency_floor_block narrows the enumerator to subjects that last traded at or after it and is republished as recencyFloorBlock. Beyond ${CANDIDATE_CEILING} candidates: 503 with suggestedRecencyFloorBlock (the smallest floor that keeps at most the ceiling), candidatesScanned, ceiling, rankedAtBlock. The candidate walk reads the quote's pools (with base: the side with fewer pools); more than ${POOL_WALK_CEILING} pools there: 422 query_too_broad before any pool is read.${AS_OF_SCREENER}`,
  query: { ...screenerQueryProps, sort: Type.Optional(Type.String({ maxLength: 32 })), ...filterProps },
  response: Paged(ScreenerRowSchema, screenerPageProps),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'query_too_broad'],
  requires: SCREENER_REQUIRES,
  batchable: true,
  anchored: true,
  asOf: true,
  // The body is a function of the query and the store: served again until the next write.
  cached: true,
  handler(ctx) {
    const sort = (ctx.query.sort ?? 'total_volume_quote') as Sort;
    if (!SORTS.includes(sort))
      throw new DomainError('bad_request', `unknown sort "${ctx.query.sort}" (${SORTS.join(', ')})`);
    return runScreener(ctx, this.id, screenerQueryOf(ctx.query as Record<string, unknown>, sort));
  },
});
