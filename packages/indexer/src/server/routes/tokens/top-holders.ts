import { Type } from '@sinclair/typebox';
import { TOKEN_HOLDERS_BY_BALANCE } from '../../../schema/cursors.js';
import { ApiError } from '../../errors.js';
import { paged } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Amount, Nullable, Obj, Paged, pageQuery } from '../../schemas.js';
import { BALANCE_WALK, TOKENS } from './common.js';
import { BalanceFidelity, HolderCount } from './schemas.js';

/**
 * GET /tokens/{address}/top-holders: the balance-descending index with rank and share of supply
 * (basis points, floor of balance × 10,000 / supplyFromTransfers; null with a reason when supply
 * is not positive). Burn sinks excluded, so shares do not count the burn address.
 */
export const tokenTopHoldersRoute = defineRoute({
  id: 'tokens.topHolders',
  method: 'GET',
  path: '/tokens/{address}/top-holders',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Balance-descending holders with rank and shareBps (floor(balance × 10000 / supplyFromTransfers), basis points); burn sinks excluded; same (balance, wallet) cursor as holders?sort=balance. Desc only. reconciliation says whether transfer sums equal the chain balances. As of a block: atBlock / atBlockHash (every balance, holder row, count and supply read at that block; reconciliation stays the latest verdict of the token, dated by its checkedAtBlock; far back on a busy token a page may answer 409 walk_budget_exceeded, as versions written since are skipped one by one).',
  params: { address: Address },
  query: pageQuery({ orders: ['desc'] }),
  response: Paged(
    Obj({
      rank: Type.Integer({ minimum: 1 }),
      wallet: Address,
      balance: Amount,
      shareBps: Nullable(
        Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: 'basis points of supply, floor' }),
        'see shareBpsReason',
      ),
      shareBpsReason: Nullable(Type.Literal('supply_not_positive')),
    }),
    { holderCount: HolderCount, supplyFromTransfers: Amount, reconciliation: BalanceFidelity },
  ),
  errors: ['bad_request', 'not_found', 'walk_budget_exceeded'],
  requires: [TOKENS],
  batchable: true,
  anchored: true,
  asOf: true,
  handler(ctx) {
    if (ctx.query.order && ctx.query.order !== 'desc')
      throw new ApiError('bad_request', 'top-holders is descending only');
    const route = TOKEN_HOLDERS_BY_BALANCE.tag(BALANCE_WALK, ctx.params.address.toLowerCase());
    return paged(
      ctx,
      route,
      (q, sink) => ctx.readers.tokens.topHolders(ctx.view, ctx.params.address, q, sink),
      JSON.stringify,
      { order: 'desc' },
    );
  },
});
