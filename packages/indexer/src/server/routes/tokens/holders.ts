import { Type } from '@sinclair/typebox';
import { TOKEN_HOLDERS_BY_BALANCE, TOKEN_HOLDERS_BY_WALLET_ID } from '../../../schema/cursors.js';
import type { HolderSort } from '../../../tokens/index.js';
import { ApiError } from '../../errors.js';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Amount, Enum, Obj, Paged, pageQuery } from '../../schemas.js';
import { BALANCE_WALK, TOKENS } from './common.js';
import { BalanceFidelity, HolderCount } from './schemas.js';

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
    'Holders. sort=balance (default): exact balance-descending index, desc only, burn sinks excluded, rows {wallet, balance}; cursor interchangeable with /top-holders. sort=wallet_id: every non-zero balance incl. negatives and burn sinks, interned wallet-id order (asc default, desc), rows {walletId, wallet, balance}. Balances are transfer sums in token base units; reconciliation says whether they equal the chain balances. Pages state sort, order, orderedBy, orderingNote, holderCount. As of a block: atBlock / atBlockHash (every balance, holder row, count and supply read at that block; reconciliation stays the latest verdict of the token, dated by its checkedAtBlock; far back on a busy token a page may answer 409 walk_budget_exceeded, as versions written since are skipped one by one).',
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
  asOf: true,
  handler(ctx) {
    const sort = ctx.query.sort ?? 'balance';
    const token = ctx.params.address.toLowerCase();
    if (sort === 'balance' && ctx.query.order === 'asc')
      throw new ApiError('bad_request', 'sort=balance is descending only');
    const [route, order] =
      sort === 'balance'
        ? [TOKEN_HOLDERS_BY_BALANCE.tag(BALANCE_WALK, token), 'desc' as const]
        : [TOKEN_HOLDERS_BY_WALLET_ID.tag('tokens.holders.wallet_id', token), 'asc' as const];
    return paged(
      ctx,
      route,
      (q, sink) => ctx.readers.tokens.holders(ctx.view, token, sort as HolderSort, q, sink),
      JSON.stringify,
      { order },
    );
  },
});
