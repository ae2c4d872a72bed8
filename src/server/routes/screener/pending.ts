/** Screener and rankings (3) — issue H. Typed 503 until window figures land. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { Address, AmountQuery, Window, pageQuery } from '../../schemas.js';

const common = {
  quote: Address,
  allowScan: Type.Optional(Type.Boolean()),
  grain: Type.Optional(Type.Union([Type.Literal('pool'), Type.Literal('token_pair')])),
  base: Type.Optional(Address),
  window: Type.Optional(Window),
  recency_floor_block: Type.Optional(Type.Integer({ minimum: 0 })),
  ...pageQuery({ maxLimit: 200 }),
};
const count = () => Type.Optional(Type.Integer({ minimum: 0 }));

export const screenerRoutes = [
  pendingRoute({
    id: 'screener.screener', path: '/screener', group: 'Screener and rankings', scope: 'read', projection: 'screener', batchable: true,
    summary: 'Filtered sorted page over tokens and pools; filters and sort are the caller’s.',
    query: {
      ...common,
      sort: Type.Optional(Type.String({ maxLength: 32 })),
      min_total_volume_quote: Type.Optional(AmountQuery),
      min_buy_volume_quote: Type.Optional(AmountQuery),
      min_sell_volume_quote: Type.Optional(AmountQuery),
      max_total_volume_quote: Type.Optional(AmountQuery),
      min_trades: count(), min_buys: count(), min_sells: count(),
      max_trades: count(), max_buys: count(), max_sells: count(),
      min_distinct_traders_lower_bound: count(),
      min_covered_blocks: count(),
      require_window_fully_covered: Type.Optional(Type.Boolean()),
      require_distinct_exact: Type.Optional(Type.Boolean()),
    },
  }),
  pendingRoute({ id: 'screener.rankings', path: '/rankings', group: 'Screener and rankings', scope: 'read', projection: 'screener', batchable: true, summary: 'Static catalogue of named rankings, formulas and parameters.' }),
  pendingRoute({
    id: 'screener.ranking', path: '/rankings/{preset}', group: 'Screener and rankings', scope: 'read', projection: 'screener', batchable: true,
    summary: 'One ranking with its formula, every input per row and equivalentScreenerQuery.',
    params: { preset: Type.String({ pattern: '^[a-z_]{1,32}$' }) },
    query: { ...common, metric: Type.Optional(Type.String({ maxLength: 48 })) },
  }),
];
