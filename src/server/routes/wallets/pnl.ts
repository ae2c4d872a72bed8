/** Positions and PnL routes (weighted-average cost; exact rationals in quote base units). */
import { Type } from '@sinclair/typebox';
import { add, type Rational, rational, ratJson } from '../../../markets/rational.js';
import { KeyBuilder, prefixEnd } from '../../../storage/keys.js';
import type { Position } from '../../../wallets/model.js';
import { WalletTable, walletPrefix } from '../../../wallets/tables.js';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageRequest, ROWS_SEPARATE_MARKS, walkRange } from '../../page.js';
import { defineRoute, single } from '../../route.js';
import { Address, AmountQuery, Paged, pageQuery, Single } from '../../schemas.js';
import { timestampOf } from '../pools/common.js';
import { positionJson, walletOf } from './common.js';

const W = { address: Address };
/** Positions read by the PnL aggregate at most (bounded aggregate). */
export const PNL_SCAN_BOUND = 500;

export const walletPositionsRoute = defineRoute({
  id: 'wallets.positions',
  method: 'GET',
  path: '/wallets/{address}/positions',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Per-token weighted-average-cost positions (token valued in the pool’s quote asset) with realised and unrealised PnL as exact rationals (quote base units), paged by (token, quote). Filters hide_small (quantity below a base-unit threshold), sellout (drop fully exited), hide_abnormal (drop positions that sold more than trades bought) apply after paging and never change it (filteredOut counts them). sort is accepted as a name and always refused (fixed ordering).',
  params: W,
  query: {
    ...pageQuery(),
    hide_small: Type.Optional(AmountQuery),
    sellout: Type.Optional(Type.Boolean()),
    hide_abnormal: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.String({ maxLength: 32 })),
  },
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    if (ctx.query.sort !== undefined)
      throw new ApiError(
        'bad_request',
        'positions have a fixed ordering (token, quote); sort is not supported',
      );
    const w = walletOf(ctx);
    const req = pageRequest(ctx, `${this.id}:${w}`);
    const pre = walletPrefix(WalletTable.POSITION, w);
    const rocks = ctx.chain.store.rocks;
    const ts = timestampOf(ctx, req.anchor.number);
    const small = ctx.query.hide_small !== undefined ? BigInt(ctx.query.hide_small) : null;
    let filteredOut = 0;
    // Each position may need its own mark (unrealised PnL): at most 100 rows per page (Limits).
    const builder = new PageBuilder(
      ctx,
      req,
      Math.min(req.limit, ROWS_SEPARATE_MARKS),
      'rows_separate_marks',
    );
    const b = walkRange(
      ctx,
      req,
      { prefix: pre, gte: pre, lt: prefixEnd(pre) },
      (k, v) => {
        const p = JSON.parse(v.toString()) as Position;
        if (p.firstBlock > req.anchor.number) return null;
        const qty = BigInt(p.qty);
        const hide =
          (small !== null && qty < small) ||
          (ctx.query.sellout === true && qty === 0n) ||
          (ctx.query.hide_abnormal === true && BigInt(p.unexplainedSold) > 0n);
        // Filtered rows still advance the cursor: paging is by key, never by filter.
        if (hide) {
          filteredOut++;
          return ['', k.subarray(21)];
        }
        return [JSON.stringify(positionJson(ctx.view, p, req.anchor.number, ts)), k.subarray(21)];
      },
      builder,
    );
    return b.finish(
      `"wallet":"${w}","filteredOut":${filteredOut},"asOfNote":"positions reflect every trade up to the head; rows are listed by (token, quote)"`,
    );
  },
});

/** Sums rationals per quote (never across quotes). */
function sumByQuote(rows: Array<{ quote: string; r: Rational | null }>): Record<string, unknown> {
  const out = new Map<string, { sum: Rational; missing: number }>();
  for (const { quote, r } of rows) {
    const cur = out.get(quote) ?? { sum: rational(0n, 1n), missing: 0 };
    if (r) cur.sum = add(cur.sum, r);
    else cur.missing++;
    out.set(quote, cur);
  }
  return Object.fromEntries(
    [...out].map(([q, v]) => [q, { ...ratJson(v.sum), unpricedPositions: v.missing }]),
  );
}

export const walletPnlRoute = defineRoute({
  id: 'wallets.pnl',
  method: 'GET',
  path: '/wallets/{address}/pnl',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Bounded PnL aggregate: realised and unrealised totals per quote asset (never blended), exact rationals; publishes its scan bounds (at most ${PNL_SCAN_BOUND} positions) and completeness.`,
  params: W,
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const pre = walletPrefix(WalletTable.POSITION, w);
    const rocks = ctx.chain.store.rocks;
    const ts = timestampOf(ctx, ctx.anchor.number);
    const realised: Array<{ quote: string; r: Rational | null }> = [];
    const unrealised: Array<{ quote: string; r: Rational | null }> = [];
    let scanned = 0;
    let complete = true;
    rocks.each({ gte: pre, lt: prefixEnd(pre) }, (_k, v) => {
      if (scanned >= PNL_SCAN_BOUND) {
        complete = false;
        return false;
      }
      scanned++;
      const p = JSON.parse(v.toString()) as Position;
      const j = positionJson(ctx.view, p, ctx.anchor.number, ts) as {
        realised: { numerator: string; denominator: string };
        unrealised: { numerator: string; denominator: string } | null;
      };
      realised.push({
        quote: p.quote,
        r: rational(BigInt(j.realised.numerator), BigInt(j.realised.denominator)),
      });
      unrealised.push({
        quote: p.quote,
        r: j.unrealised ? rational(BigInt(j.unrealised.numerator), BigInt(j.unrealised.denominator)) : null,
      });
      return true;
    });
    return single(
      ctx.anchor,
      JSON.stringify({
        wallet: w,
        realisedByQuote: sumByQuote(realised),
        unrealisedByQuote: sumByQuote(unrealised),
        scanBounds: { positionsScanned: scanned, positionBound: PNL_SCAN_BOUND },
        complete,
        incompleteReason: complete ? null : 'position_bound_reached',
        units: 'quote base units per quote asset',
      }),
    );
  },
});

export const walletPnlTokenRoute = defineRoute({
  id: 'wallets.pnlToken',
  method: 'GET',
  path: '/wallets/{address}/pnl/{token}',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'PnL detail for one token: its positions per quote with cost, average cost, realised and unrealised (exact rationals).',
  params: { address: Address, token: Address },
  response: Single(Type.Object({}, { additionalProperties: true })),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const t = ctx.params.token.toLowerCase();
    const pre = new KeyBuilder(41).u8(WalletTable.POSITION).hex(w).hex(t).done();
    const rocks = ctx.chain.store.rocks;
    const ts = timestampOf(ctx, ctx.anchor.number);
    const rows = rocks
      .scan({ gte: pre, lt: prefixEnd(pre) })
      .map(([, v]) => positionJson(ctx.view, JSON.parse(v.toString()) as Position, ctx.anchor.number, ts));
    if (!rows.length) throw new ApiError('not_found', `wallet ${w} has no traded position in ${t}`);
    return single(ctx.anchor, JSON.stringify({ wallet: w, token: t, positions: rows }));
  },
});

export const walletPnlDailyRoute = defineRoute({
  id: 'wallets.pnlDaily',
  method: 'GET',
  path: '/wallets/{address}/pnl/daily',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Daily realised PnL series for one (token, quote) pair: rows {day (UTC day index, not a timestamp), dayStartUnix, realised (exact rational, quote base units)}; days without realised PnL are absent. from_day/to_day inclusive. PAGE by day.',
  params: W,
  query: {
    token: Address,
    quote: Address,
    from_day: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    to_day: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    ...pageQuery(),
  },
  response: Paged(Type.Object({}, { additionalProperties: true })),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const w = walletOf(ctx);
    const t = ctx.query.token.toLowerCase();
    const q = ctx.query.quote.toLowerCase();
    const from = ctx.query.from_day ?? 0;
    const to = ctx.query.to_day ?? 1_000_000;
    if (from > to) throw new ApiError('bad_request', 'from_day must be ≤ to_day');
    const req = pageRequest(ctx, `${this.id}:${w}:${t}:${q}:${from}:${to}`);
    const pre = new KeyBuilder(61).u8(WalletTable.DAILY).hex(w).hex(t).hex(q).done();
    const lo = Buffer.concat([pre, new KeyBuilder(4).u32(from).done()]);
    const hi = Buffer.concat([pre, new KeyBuilder(4).u32(to + 1).done()]);
    return walkRange(ctx, req, { prefix: pre, gte: lo, lt: hi }, (k, v) => {
      const day = k.readUInt32BE(61);
      const [n, d] = v.toString().split('/');
      return [
        `{"day":${day},"dayStartUnix":${day * 86400},"realised":{"numerator":"${n}","denominator":"${d}"}}`,
        k.subarray(61),
      ];
    }).finish(`"wallet":"${w}","token":"${t}","quote":"${q}","unit":"quote base units"`);
  },
});
