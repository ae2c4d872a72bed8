import { Type } from '@sinclair/typebox';
import type { SwapRow } from '../../../markets/model.js';
import { cmp, ratJson, ratParse } from '../../../markets/rational.js';
import { MarketTable, poolPrefix } from '../../../markets/tables.js';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest } from '../../page.js';
import { defineRoute, type Route } from '../../route.js';
import { AmountQuery, OpenPaged, Paged, pageQuery } from '../../schemas.js';
import { ByAddress, ByV4, resolvePool, type Variant } from './common.js';

/** Swaps read per bar page at most: bounds one request's work (a bar may span many trades). */
const MAX_TICKS_PER_PAGE = 50_000;

const make = (variant: Variant): Route =>
  defineRoute({
    id: variant === 'v4' ? 'pools.v4Bars' : 'pools.bars',
    method: 'GET',
    path: variant === 'v4' ? '/pools/v4/{manager}/{pool_id}/ticks/bars' : '/pools/{address}/ticks/bars',
    scope: 'read',
    group: 'Pools',
    summary:
      "Bars folded over the tick sequence: rule=trade closes a bar every `size` trades; rule=volume closes it when the bar's quote volume (|amount1|, base units) reaches `size`. Rows {first, last (tick coordinates), trades, open/high/low/close rationals, volumeBase, volumeQuote, complete}. The cursor is the tick coordinate (block, log index) where the next bar starts. Ascending only.",
    params: variant === 'v4' ? ByV4 : ByAddress,
    query: {
      rule: Type.Union([Type.Literal('trade'), Type.Literal('volume')]),
      size: AmountQuery,
      ...pageQuery({ orders: ['asc'] }),
    },
    response: OpenPaged(),
    errors: [
      'bad_request',
      'not_found',
      'bad_cursor',
      'stale_cursor',
      'projection_unavailable',
      'query_too_broad',
    ],
    batchable: true,
    anchored: true,
    handler(ctx) {
      const size = BigInt(ctx.query.size);
      if (size <= 0n) throw new ApiError('bad_request', 'size must be positive');
      if (ctx.query.rule === 'trade' && size > 100_000n)
        throw new ApiError('bad_request', 'trade bars: size at most 100000');
      const p0 = resolvePool(ctx as never, variant);
      // Same coordinate as swaps and ticks: a tick cursor resumes bars and vice versa.
      const req = pageRequest(ctx as never, `pools.tickCoordinate:${p0.key}`, { order: 'asc' });
      const builder = new PageBuilder(ctx as never, req);
      const pre = poolPrefix(MarketTable.SWAP, p0.key);
      const start = req.after ? Buffer.concat([pre, req.after]) : null;
      let bar: {
        first: SwapRow;
        last: SwapRow;
        open: string;
        high: string;
        low: string;
        close: string;
        v0: bigint;
        v1: bigint;
        n: number;
      } | null = null;
      let seen = 0;
      let full = false;
      const emit = (complete: boolean) => {
        if (!bar) return true;
        const row = JSON.stringify({
          first: { block: bar.first.block, logIndex: bar.first.logIndex },
          last: { block: bar.last.block, logIndex: bar.last.logIndex },
          trades: bar.n,
          open: ratJson(ratParse(bar.open)),
          high: ratJson(ratParse(bar.high)),
          low: ratJson(ratParse(bar.low)),
          close: ratJson(ratParse(bar.close)),
          volumeBase: bar.v0.toString(),
          volumeQuote: bar.v1.toString(),
          complete,
        });
        // Resume key: the last tick of this bar, so the next page starts the next bar.
        const ok = builder.push(row, Buffer.concat([Buffer.alloc(0), lastKeyOf(bar.last)]));
        bar = null;
        return ok;
      };
      const lastKeyOf = (s: SwapRow) => {
        const b = Buffer.alloc(12);
        b.writeUInt32BE(Math.floor(s.block / 0x1_0000_0000), 0);
        b.writeUInt32BE(s.block >>> 0, 4);
        b.writeUInt32BE(s.logIndex, 8);
        return b;
      };
      ctx.chain.store.rocks.each(
        start ? { gt: start, lt: prefixEnd(pre) } : { gte: pre, lt: prefixEnd(pre) },
        (k, v) => {
          if (readU64(k, 53) > req.anchor.number) return false;
          if (++seen > MAX_TICKS_PER_PAGE) return false;
          const s = JSON.parse(v.toString()) as SwapRow;
          const a0 = BigInt(s.amount0) < 0n ? -BigInt(s.amount0) : BigInt(s.amount0);
          const a1 = BigInt(s.amount1) < 0n ? -BigInt(s.amount1) : BigInt(s.amount1);
          if (!bar) {
            bar = {
              first: s,
              last: s,
              open: s.price,
              high: s.price,
              low: s.price,
              close: s.price,
              v0: 0n,
              v1: 0n,
              n: 0,
            };
          }
          const price = ratParse(s.price);
          if (cmp(price, ratParse(bar.high)) > 0) bar.high = s.price;
          if (cmp(price, ratParse(bar.low)) < 0) bar.low = s.price;
          bar.close = s.price;
          bar.last = s;
          bar.v0 += a0;
          bar.v1 += a1;
          bar.n++;
          const done = ctx.query.rule === 'trade' ? BigInt(bar.n) >= size : bar.v1 >= size;
          if (done && !emit(true)) {
            full = true;
            return false;
          }
          return true;
        },
      );
      if (!full && bar) {
        // The trailing bar is still forming at the anchor: published as incomplete, and the walk ends.
        emit(false);
      }
      if (seen > MAX_TICKS_PER_PAGE && !full)
        throw new ApiError(
          'query_too_broad',
          `a page of bars would read more than ${MAX_TICKS_PER_PAGE} ticks; use a smaller size`,
        );
      return builder.finish(
        `"pool":"${p0.key}","rule":"${ctx.query.rule}","size":"${size}","volumeSide":"quote (currency1, |amount1|)"`,
      );
    },
  });

export const poolBarsRoute = make('address');
export const v4PoolBarsRoute = make('v4');
