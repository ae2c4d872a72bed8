import { Type } from '@sinclair/typebox';
import type { SwapRow } from '../../../markets/model.js';
import { windowFrom } from '../../../markets/read.js';
import { MarketTable, poolPrefix } from '../../../markets/tables.js';
import { prefixEnd } from '../../../storage/keys.js';
import { defineRoute, type Route, single } from '../../route.js';
import { Single } from '../../schemas.js';
import { ByAddress, ByV4, resolvePool, statsJson, timestampOf, type Variant } from './common.js';

/** Swaps examined for distinct traders per request: beyond it counts are lower bounds. */
export const DISTINCT_SCAN_LIMIT = 20_000;

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Stats' : 'pools.stats',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/stats' : '/pools/{address}/stats',
    scope: 'read',
    group: 'Pools',
    summary: `Rolling 5m/1h/4h/24h statistics: two-sided volumes (base units), trades, buys, sells, exact price change (rational), and distinctTraders {lowerBound, exact} per window (by transaction origin; exact when ≤ ${DISTINCT_SCAN_LIMIT} swaps were scanned).`,
    params: variant === 'v4' ? ByV4 : ByAddress,
    response: Single(Type.Object({}, { additionalProperties: true })),
    errors: ['not_found', 'projection_unavailable'],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const p = resolvePool(ctx as never, variant);
      const A = ctx.anchor.number;
      const ts = timestampOf(ctx as never, A);
      const body = statsJson(ctx as never, p, { block: A, ts }) as {
        windows: Record<string, Record<string, unknown>>;
      };
      // Distinct traders: walk swaps newest first until the 24h window is left or the scan bound is hit.
      const limits = { '5m': 300, '1h': 3600, '4h': 14400, '24h': 86400 } as const;
      const sets: Record<string, Set<string>> = {
        '5m': new Set(),
        '1h': new Set(),
        '4h': new Set(),
        '24h': new Set(),
      };
      let scanned = 0;
      let complete = true;
      const pre = poolPrefix(MarketTable.SWAP, p.key);
      // Window membership is the volumes' rule (whole 1-minute buckets, see windowFrom), so each
      // window's distinct traders are counted over exactly the swaps behind its volumes.
      const from = Object.fromEntries(Object.entries(limits).map(([w, secs]) => [w, windowFrom(ts, secs)]));
      ctx.chain.store.rocks.each({ gte: pre, lt: prefixEnd(pre), reverse: true }, (_k, v) => {
        const s = JSON.parse(v.toString()) as SwapRow;
        if (s.block > A) return true;
        if (s.timestamp < from['24h']) return false;
        if (++scanned > DISTINCT_SCAN_LIMIT) {
          complete = false;
          return false;
        }
        for (const w of Object.keys(limits)) if (s.timestamp >= from[w]) sets[w].add(s.origin);
        return true;
      });
      for (const w of Object.keys(limits))
        body.windows[w].distinctTraders = { lowerBound: sets[w].size, exact: complete };
      return single(
        ctx.anchor,
        JSON.stringify({ pool: p.key, ...body, distinctTradersBasis: 'transaction origin' }),
      );
    },
  });

export const poolStatsRoute = make('address');
export const v4PoolStatsRoute = make('v4');
