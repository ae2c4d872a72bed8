import { Type } from '@sinclair/typebox';
import { ratJson } from '../../../markets/rational.js';
import { extreme } from '../../../markets/read.js';
import { defineRoute, type Route, single } from '../../route.js';
import { Address, Single } from '../../schemas.js';
import { resolvePool, timestampOf } from './common.js';

const make = (which: 'high' | 'low'): Route =>
  defineRoute({
    id: which === 'high' ? 'pools.ath' : 'pools.atl',
    method: 'GET',
    path: which === 'high' ? '/pools/{address}/ath' : '/pools/{address}/atl',
    scope: 'read',
    group: 'Pools',
    summary: `All-time ${which === 'high' ? 'high' : 'low'} of the pool price (rational, currency1 per currency0 base units) over every indexed trade, with the day bucket where it happened.`,
    params: { address: Address },
    response: Single(Type.Object({}, { additionalProperties: true })),
    errors: ['not_found', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const p = resolvePool(ctx as never, 'address');
      const x = extreme(ctx.view, p.key, timestampOf(ctx as never, ctx.anchor.number), which);
      return single(
        ctx.anchor,
        JSON.stringify({
          pool: p.key,
          base: p.currency0,
          quote: p.currency1,
          kind: which === 'high' ? 'ath' : 'atl',
          price: x ? ratJson(x.price) : null,
          priceReason: x ? null : 'no_trades',
          dayBucket: x?.bucket ?? null,
          provenance: 'max/min over the pool’s 1d candles (highs/lows of every trade price)',
        }),
      );
    },
  });

export const poolAthRoute = make('high');
export const poolAtlRoute = make('low');
