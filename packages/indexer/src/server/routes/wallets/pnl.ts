/** Positions and PnL routes (weighted-average cost; exact rationals in quote base units). */

import { Type } from '@sinclair/typebox';
import { WALLET_PNL_DAILY, WALLET_POSITIONS } from '../../../schema/cursors.js';
import { PNL_SCAN_BOUND, type PositionView } from '../../../wallets/index.js';
import { ApiError } from '../../errors.js';
import { type PageSink, paged, ROWS_SEPARATE_MARKS } from '../../page.js';
import { defineRoute } from '../../route.js';
import { singleRoute } from '../../route-shapes.js';
import { Address, AmountQuery, Approx, Count, Obj, Paged, pageQuery, ReasonOf } from '../../schemas.js';
import { AS_OF_POSITIONS, ByQuote, Position, RationalWithFloor, WALLETS, WalletExtra } from './schemas.js';

const W = { address: Address };
const POSITIONS_NOTE = 'positions reflect every trade up to the anchor; rows are listed by (token, quote)';

export const walletPositionsRoute = defineRoute({
  id: 'wallets.positions',
  method: 'GET',
  path: '/wallets/{address}/positions',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Per-token weighted-average-cost positions (token valued in the pool’s quote asset) with realised and unrealised PnL as exact rationals (quote base units), paged by (token, quote), at most 100 rows a page (each may need its own mark). Filters hide_small (quantity below a token base-unit threshold), sellout (drop fully exited), hide_abnormal (drop positions that sold more than trades bought) apply after paging and never change it (filteredOut counts them). sort is accepted as a name and always refused (fixed ordering).' +
    AS_OF_POSITIONS,
  params: W,
  query: {
    ...pageQuery(),
    hide_small: Type.Optional(AmountQuery),
    sellout: Type.Optional(Type.Boolean()),
    hide_abnormal: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.String({ maxLength: 32 })),
  },
  response: Paged(Position, {
    ...WalletExtra,
    filteredOut: Count('rows of this page hidden by the filters'),
    asOfNote: Type.Literal(POSITIONS_NOTE),
  }),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor'],
  requires: [WALLETS, 'markets'],
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    if (ctx.query.sort !== undefined)
      throw new ApiError(
        'bad_request',
        'positions have a fixed ordering (token, quote); sort is not supported',
      );
    const w = ctx.params.address.toLowerCase();
    const filter = {
      minQuantity: ctx.query.hide_small !== undefined ? BigInt(ctx.query.hide_small) : null,
      sellout: ctx.query.sellout === true,
      hideAbnormal: ctx.query.hide_abnormal === true,
    };
    return paged(
      ctx,
      WALLET_POSITIONS.tag(this.id, w),
      (q, sink: PageSink<PositionView>) => {
        const { filteredOut } = ctx.readers.wallets.positions(ctx.view, w, filter, q, sink);
        return { wallet: w, filteredOut, asOfNote: POSITIONS_NOTE };
      },
      JSON.stringify,
      { rowCap: ROWS_SEPARATE_MARKS, capReason: 'rows_separate_marks' },
    );
  },
});

export const walletPnlRoute = singleRoute({
  id: 'wallets.pnl',
  path: '/wallets/{address}/pnl',
  scope: 'wallet',
  group: 'Wallets',
  summary: `Bounded PnL aggregate: realised and unrealised totals per quote asset (never blended), exact rationals in quote base units; publishes its scan bounds (at most ${PNL_SCAN_BOUND} positions) and completeness.${AS_OF_POSITIONS}`,
  params: W,
  data: Obj({
    wallet: Address,
    realisedByQuote: ByQuote('realised PnL'),
    unrealisedByQuote: ByQuote('unrealised PnL of marked positions'),
    scanBounds: Obj({
      positionsScanned: Count('positions read'),
      positionBound: Count('positions read at most'),
    }),
    complete: Type.Boolean({ description: 'every position was read' }),
    incompleteReason: ReasonOf(['position_bound_reached'], 'why complete is false; null when complete'),
    units: Type.Literal('quote base units per quote asset'),
  }),
  errors: [],
  requires: [WALLETS, 'markets'],
  asOf: true,
  read(ctx) {
    const w = ctx.params.address.toLowerCase();
    const p = ctx.readers.wallets.pnl(ctx.view, w, ctx.anchor.number);
    return { wallet: w, ...p, units: 'quote base units per quote asset' };
  },
});

export const walletPnlTokenRoute = singleRoute({
  id: 'wallets.pnlToken',
  path: '/wallets/{address}/pnl/{token}',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'PnL detail for one token: its positions per quote with cost, average cost, realised and unrealised (exact rationals, quote base units); not_found when it had not traded the token at the anchor.' +
    AS_OF_POSITIONS,
  params: { address: Address, token: Address },
  data: Obj({ wallet: Address, token: Address, positions: Type.Array(Position) }),
  errors: ['not_found'],
  requires: [WALLETS, 'markets'],
  asOf: true,
  read(ctx) {
    const w = ctx.params.address.toLowerCase();
    const t = ctx.params.token.toLowerCase();
    const positions = ctx.readers.wallets.pnlToken(ctx.view, w, t, ctx.anchor.number);
    return { wallet: w, token: t, positions };
  },
});

export const walletPnlDailyRoute = defineRoute({
  id: 'wallets.pnlDaily',
  method: 'GET',
  path: '/wallets/{address}/pnl/daily',
  scope: 'wallet',
  group: 'Wallets',
  summary:
    'Daily realised PnL series for one (token, quote) pair: rows {day (UTC day index, not a timestamp), dayStartUnix (unix seconds), realised (exact rational, quote base units)}; days without realised PnL are absent. from_day/to_day inclusive. PAGE by day. As of a block: atBlock / atBlockHash (days before N’s day as stored; N’s own day = the realised PnL of the wallets.position_history version at N minus the one before the day’s first block; later days absent).',
  params: W,
  query: {
    token: Address,
    quote: Address,
    from_day: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'UTC day index, inclusive' }),
    ),
    to_day: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'UTC day index, inclusive' }),
    ),
    ...pageQuery(),
  },
  response: Paged(
    Obj({
      day: Type.Integer({ minimum: 0, description: 'UTC day index (unix seconds / 86400, floored)' }),
      dayStartUnix: Type.Integer({ minimum: 0, description: 'unix seconds at the start of the day' }),
      realised: Obj(
        {
          numerator: RationalWithFloor('').properties.numerator,
          denominator: RationalWithFloor('').properties.denominator,
          approx: Approx('realised PnL of the day, quote base units'),
        },
        { description: 'realised PnL of the day: exact rational, quote base units' },
      ),
    }),
    {
      ...WalletExtra,
      token: Address,
      quote: Address,
      unit: Type.Literal('quote base units'),
    },
  ),
  errors: ['bad_request', 'bad_cursor', 'stale_cursor'],
  requires: [WALLETS, 'markets'],
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    const w = ctx.params.address.toLowerCase();
    const token = ctx.query.token.toLowerCase();
    const quote = ctx.query.quote.toLowerCase();
    const fromDay = ctx.query.from_day ?? 0;
    const toDay = ctx.query.to_day ?? 1_000_000;
    if (fromDay > toDay) throw new ApiError('bad_request', 'from_day must be ≤ to_day');
    const range = { wallet: w, token, quote, fromDay, toDay };
    return paged(ctx, WALLET_PNL_DAILY.tag(this.id, w, token, quote, fromDay, toDay), (q, sink) => {
      ctx.readers.wallets.pnlDaily(ctx.view, range, q, sink);
      return { wallet: w, token, quote, unit: 'quote base units' };
    });
  },
});
