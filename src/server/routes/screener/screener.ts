import { Type } from '@sinclair/typebox';
import {
  CANDIDATE_CEILING,
  coverageOf,
  enumerate,
  FILTER_NAMES,
  HOLDERS_PREFILTER,
  passes,
  rowJson,
  type ScreenerQuery,
  SORTS,
  type Sort,
  sortValue,
} from '../../../screener/compute.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest } from '../../page.js';
import { requireProjection } from '../../projections.js';
import { type Ctx, defineRoute, type Reply } from '../../route.js';
import { Address, AmountQuery, OpenPaged, Paged, Window } from '../../schemas.js';

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

/** Runs a screener query at the page anchor; `extra` is added to the page (rankings). */
export function runScreener(
  ctx: Ctx<unknown, unknown>,
  routeTag: string,
  q: ScreenerQuery,
  extra: Record<string, unknown> = {},
): Reply {
  requireProjection(ctx.chain, 'markets');
  requireProjection(ctx.chain, 'tokens');
  const filtered = FILTER_NAMES.some((f) => q[f] !== undefined);
  if ((filtered || q.base) && !q.allowScan) {
    throw new ApiError(
      'bad_request',
      'filters (and base) make the walk examine subjects it does not return: pass allowScan=true',
    );
  }
  const req = pageRequest(ctx as never, `${routeTag}:${JSON.stringify(q)}`, { order: q.order, limit: 50 });
  const cov = coverageOf(ctx.chain, req.anchor.number, q.window);
  const { rows, scanned } = enumerate(ctx.chain, q, req.anchor.number);
  const cmpBy = (s: Sort) => (a: (typeof rows)[number], b: (typeof rows)[number]) => {
    const x = sortValue(a, s);
    const y = sortValue(b, s);
    const d = x === y ? (a.subject < b.subject ? -1 : 1) : x < y ? -1 : 1;
    return q.order === 'asc' ? d : -d;
  };
  let list = rows.filter((r) => passes(r, q, cov));
  let holdersRanking: unknown = null;
  if (q.sort === 'holders') {
    // Holders rank within the top 100 subjects by total_volume_quote under the filters.
    const pre = [...list]
      .sort((a, b) =>
        b.totalVolumeQuote > a.totalVolumeQuote
          ? 1
          : b.totalVolumeQuote < a.totalVolumeQuote
            ? -1
            : a.subject < b.subject
              ? -1
              : 1,
      )
      .slice(0, HOLDERS_PREFILTER);
    list = pre.sort(cmpBy('holders'));
    holdersRanking = {
      candidateSet: `top ${HOLDERS_PREFILTER} subjects by total_volume_quote under the filters`,
      candidates: pre.length,
    };
  } else list.sort(cmpBy(q.sort));
  const start = req.after ? req.after.readUInt32BE(0) : 0;
  const b = new PageBuilder(ctx as never, req);
  for (let i = start; i < list.length; i++) {
    const key = Buffer.alloc(4);
    key.writeUInt32BE(i + 1);
    const row = rowJson(
      list[i],
      cov,
      q.sort === 'holders' ? null : i + 1,
      q.sort === 'holders' ? i + 1 : null,
    );
    if (!b.push(JSON.stringify(row), key)) break;
  }
  const page = {
    query: q,
    quote: q.quote,
    grain: q.grain,
    window: q.window,
    windowStart: cov.windowStart,
    sort: q.sort,
    recencyFloorBlock: q.recency_floor_block ?? null,
    candidatesScanned: scanned,
    ceiling: CANDIDATE_CEILING,
    holdersRanking,
    volumeUnit: 'quote base units',
    ...extra,
  };
  return b.finish(JSON.stringify(page).slice(1, -1));
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
  summary: `Filtered, sorted page over subjects that traded against the quote at or before the anchor: grain token_pair (default; a base token aggregated over its pools against the quote; subject = base address) or pool (subject = pool key). Window 5m|1h|4h|24h (default 5m) of whole 1-minute buckets: trades and blocks with timestamp in [windowStart, anchor timestamp], windowStart (on the page) = the first minute boundary after anchor timestamp − window; a subject with no trade in the window is a row of zeros. Sorts: ${SORTS.join(', ')} (default total_volume_quote; distinct_traders on distinctTraders.lowerBound; holders ranks within the top ${HOLDERS_PREFILTER} by total_volume_quote under the filters (ties by subject ascending): rank null, rankWithinPrefilterSet set, holdersRanking names the set; a null holder count sorts below every count). Ties are broken by subject ascending under order=asc; order=desc (default) is the exact reverse of asc. Filters are inclusive and need allowScan=true. recency_floor_block narrows the enumerator to subjects that last traded at or after it and is republished as recencyFloorBlock. Beyond ${CANDIDATE_CEILING} candidates: 503 with suggestedRecencyFloorBlock (the smallest floor that keeps at most the ceiling), candidatesScanned, ceiling, rankedAtBlock.`,
  query: { ...screenerQueryProps, sort: Type.Optional(Type.String({ maxLength: 32 })), ...filterProps },
  response: OpenPaged(),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const sort = (ctx.query.sort ?? 'total_volume_quote') as Sort;
    if (!SORTS.includes(sort))
      throw new ApiError('bad_request', `unknown sort "${ctx.query.sort}" (${SORTS.join(', ')})`);
    return runScreener(ctx, this.id, screenerQueryOf(ctx.query as Record<string, unknown>, sort));
  },
});
