import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../errors/index.js';
import { HOLDERS_PREFILTER, SORTS, type Sort } from '../../../screener/index.js';
import { anchorJson, defineRoute } from '../../route.js';
import { Anchor, Enum, Obj, Paged } from '../../schemas.js';
import {
  AS_OF_SCREENER,
  filterProps,
  runScreener,
  SCREENER_REQUIRES,
  ScreenerRowSchema,
  screenerPageProps,
  screenerQueryOf,
  screenerQueryProps,
} from './screener.js';

/** Named rankings: each is exactly one screener query; the catalogue publishes the formulas. */
export const PRESETS: Record<
  string,
  { formula: string; sort: Sort | null; filters: Record<string, unknown>; parameters: string[] }
> = {
  largest: {
    formula:
      'subjects ordered by the chosen window metric, descending (metric: one of the screener sorts; default total_volume_quote)',
    sort: null,
    filters: {},
    parameters: ['metric'],
  },
  most_traded: {
    formula: 'subjects ordered by trades in the window, descending',
    sort: 'trades',
    filters: {},
    parameters: [],
  },
  most_distinct_traders: {
    formula:
      'subjects ordered by distinctTraders.lowerBound (distinct transaction origins) in the window, descending',
    sort: 'distinct_traders',
    filters: {},
    parameters: [],
  },
  buy_pressure: {
    formula: 'subjects ordered by buyVolumeQuote (quote paid for the base) in the window, descending',
    sort: 'buy_volume_quote',
    filters: {},
    parameters: [],
  },
  sell_pressure: {
    formula: 'subjects ordered by sellVolumeQuote (quote received for the base) in the window, descending',
    sort: 'sell_volume_quote',
    filters: {},
    parameters: [],
  },
  most_held: {
    formula: `subjects ordered by holderCount.value, descending, within the top ${HOLDERS_PREFILTER} subjects by totalVolumeQuote`,
    sort: 'holders',
    filters: {},
    parameters: [],
  },
};

export const rankingsRoute = defineRoute({
  id: 'screener.rankings',
  method: 'GET',
  path: '/rankings',
  scope: 'read',
  group: 'Screener and rankings',
  summary:
    'Static, self-describing catalogue of named rankings: each preset’s formula, parameters and the screener query it equals.',
  response: Obj({
    anchor: Anchor,
    data: Type.Array(
      Obj({
        name: Enum(Object.keys(PRESETS), 'the preset'),
        formula: Type.String({ description: 'the ranking formula in words' }),
        sort: Enum([...SORTS, 'metric'], 'the screener sort it uses (metric: the caller chooses)'),
        parameters: Type.Array(Type.String(), { description: 'query parameters the preset accepts' }),
        equivalentScreenerQuery: Type.String({ description: 'the screener query the preset equals' }),
      }),
    ),
  }),
  errors: [],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const data = Object.entries(PRESETS).map(([name, p]) => ({
      name,
      formula: p.formula,
      sort: p.sort ?? 'metric',
      parameters: [
        'quote (required)',
        'grain',
        'base',
        'window',
        'order',
        'limit',
        'cursor',
        'allowScan',
        'recency_floor_block',
        ...p.parameters,
      ],
      equivalentScreenerQuery: `/screener?quote=<quote>&sort=${p.sort ?? '<metric>'}`,
    }));
    return { json: `{"anchor":${anchorJson(ctx.anchor)},"data":${JSON.stringify(data)}}` };
  },
});

export const rankingRoute = defineRoute({
  id: 'screener.ranking',
  method: 'GET',
  path: '/rankings/{preset}',
  scope: 'read',
  group: 'Screener and rankings',
  summary: `One named ranking (${Object.keys(PRESETS).join(', ')}): its formula, every input per row (the screener row), and equivalentScreenerQuery. metric is accepted only by largest.${AS_OF_SCREENER}`,
  params: { preset: Type.String({ pattern: '^[a-z_]{1,32}$' }) },
  query: { ...screenerQueryProps, metric: Type.Optional(Type.String({ maxLength: 48 })), ...filterProps },
  response: Paged(ScreenerRowSchema, {
    ...screenerPageProps,
    preset: Enum(Object.keys(PRESETS), 'the preset'),
    formula: Type.String({ description: 'the ranking formula in words' }),
    equivalentScreenerQuery: Type.String({ description: 'the screener query this page equals' }),
  }),
  errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor'],
  requires: SCREENER_REQUIRES,
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    const preset = PRESETS[ctx.params.preset];
    if (!preset)
      throw new DomainError('not_found', `no ranking preset "${ctx.params.preset}"; see /rankings`);
    if (ctx.query.metric !== undefined && ctx.params.preset !== 'largest')
      throw new DomainError('bad_request', 'metric is accepted only by the largest preset');
    const sort = (preset.sort ?? ctx.query.metric ?? 'total_volume_quote') as Sort;
    if (!SORTS.includes(sort))
      throw new DomainError('bad_request', `unknown metric "${ctx.query.metric}" (${SORTS.join(', ')})`);
    const q = screenerQueryOf(ctx.query as Record<string, unknown>, sort);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q))
      if (v !== undefined && k !== 'order' && k !== 'grain' && k !== 'window') params.set(k, String(v));
    params.set('grain', q.grain);
    params.set('window', q.window);
    params.set('order', q.order);
    // A page read at a named block equals the screener query at that block.
    if (ctx.asOf) params.set('atBlock', String(ctx.asOf.number));
    return runScreener(ctx, 'screener.screener', q, {
      preset: ctx.params.preset,
      formula: preset.formula,
      equivalentScreenerQuery: `/screener?${params.toString()}`,
    });
  },
});
