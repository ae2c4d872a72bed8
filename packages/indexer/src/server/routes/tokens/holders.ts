import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { PageBuilder, pageQueryOf, pageRequest } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Amount, Enum, Obj, Paged, pageQuery } from '../../schemas.js';
import { BALANCE_WALK, TOKENS } from './common.js';
import { BalanceFidelity, HolderCount } from './schemas.js';

const BY_BALANCE_NOTE =
  'exact balance-descending index of positive balances; burn sinks (0x0, 0x…dead) excluded; cursor interchangeable with /top-holders';
const BY_ID_NOTE =
  'complete non-zero balance set including negative balances and burn sinks; wallet ids are interned in first-seen order; not a ranking';

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
    'Holders. sort=balance (default): exact balance-descending index, desc only, burn sinks excluded, rows {wallet, balance}; cursor interchangeable with /top-holders. sort=wallet_id: every non-zero balance incl. negatives and burn sinks, interned wallet-id order (asc default, desc), rows {walletId, wallet, balance}. Balances are transfer sums in token base units; reconciliation says whether they equal the chain balances. Pages state sort, order, orderedBy, orderingNote, holderCount.',
  params: { address: Address },
  query: { ...pageQuery(), sort: Type.Optional(Enum(['balance', 'wallet_id'])) },
  response: Paged(
    Type.Union([
      Obj({ wallet: Address, balance: Amount }),
      Obj({ walletId: Type.Integer({ minimum: 0 }), wallet: Address, balance: Amount }),
    ]),
    {
      sort: Enum(['balance', 'wallet_id']),
      orderedBy: Type.String(),
      orderingNote: Type.String(),
      holderCount: HolderCount,
      reconciliation: BalanceFidelity,
    },
  ),
  errors: ['bad_request', 'not_found', 'walk_budget_exceeded'],
  requires: [TOKENS],
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
    const r = ctx.readers.tokens;
    const t = r.token(ctx.view, token, req.anchor.number);
    const b = new PageBuilder(ctx, req);
    const extra = (orderedBy: string, note: string) =>
      JSON.stringify({
        sort,
        orderedBy,
        orderingNote: note,
        holderCount: r.holderCount(ctx.view, t, req.anchor.number),
        reconciliation: r.fidelityOf(ctx.view, t.address),
      }).slice(1, -1);
    if (sort === 'balance') {
      r.holdersByBalance(
        ctx.view,
        t.address,
        pageQueryOf(req),
        b.sink((h) => `{"wallet":"${h.wallet}","balance":"${h.balance}"}`),
      );
      return b.finish(extra('balance desc, wallet asc', BY_BALANCE_NOTE));
    }
    r.holdersByWalletId(
      ctx.view,
      t.address,
      pageQueryOf(req),
      b.sink((h) => `{"walletId":${h.walletId},"wallet":"${h.wallet}","balance":"${h.balance}"}`),
    );
    return b.finish(extra(`interned wallet id ${req.order}`, BY_ID_NOTE));
  },
});
