import { Type } from '@sinclair/typebox';
import { holderCountJson, statsAt } from '../../../tokens/read.js';
import { ApiError } from '../../errors.js';
import { pageRequest } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { fullCoverage, tokenOr404 } from './common.js';
import { BALANCE_WALK, walkByBalance, walkByWalletId } from './holders-walk.js';

/**
 * GET /tokens/{address}/holders: `sort=balance` (default; descending only; burn sinks excluded;
 * light rows {wallet, balance}; cursor shared with /top-holders) or `sort=wallet_id` (complete
 * non-zero set incl. negatives and burn sinks, interned wallet-id order, asc default or desc).
 */
export const tokenHoldersRoute = defineRoute({
  id: 'tokens.holders',
  method: 'GET',
  path: '/tokens/{address}/holders',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Holders. sort=balance (default): exact balance-descending index, desc only, burn sinks excluded, rows {wallet, balance}; cursor interchangeable with /top-holders. sort=wallet_id: every non-zero balance incl. negatives and burn sinks, interned wallet-id order (asc default, desc). Pages state sort, order, orderedBy, orderingNote, holderCount.',
  params: { address: Address },
  query: {
    ...pageQuery(),
    sort: Type.Optional(Type.Union([Type.Literal('balance'), Type.Literal('wallet_id')])),
  },
  response: Paged(Type.Object({}, { additionalProperties: true }), {
    sort: Type.String(),
    orderedBy: Type.String(),
    orderingNote: Type.String(),
    holderCount: Type.Object({}, { additionalProperties: true }),
  }),
  errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const sort = ctx.query.sort ?? 'balance';
    const token = ctx.params.address.toLowerCase();
    if (sort === 'balance' && ctx.query.order === 'asc')
      throw new ApiError('bad_request', 'sort=balance is descending only');
    const req =
      sort === 'balance'
        ? pageRequest(ctx, `${BALANCE_WALK}:${token}`, { order: 'desc' })
        : pageRequest(ctx, `tokens.holders.wallet_id:${token}`, { order: 'asc' });
    const t = tokenOr404(ctx, req.anchor.number);
    const stats = statsAt(ctx.view, t.address, req.anchor.number);
    const hc = holderCountJson(stats, t, req.anchor.number, fullCoverage(ctx));
    if (sort === 'balance') {
      const b = walkByBalance(ctx, t, req, (w, bal) => `{"wallet":"${w}","balance":"${bal}"}`);
      return b.finish(
        `"sort":"balance","orderedBy":"balance desc, wallet asc","orderingNote":"exact balance-descending index of positive balances; burn sinks (0x0, 0x…dead) excluded; cursor interchangeable with /top-holders","holderCount":${hc}`,
      );
    }
    return walkByWalletId(ctx, t, req).finish(
      `"sort":"wallet_id","orderedBy":"interned wallet id ${req.order}","orderingNote":"complete non-zero balance set including negative balances and burn sinks; wallet ids are interned in first-seen order; not a ranking","holderCount":${hc}`,
    );
  },
});
