import { Type } from '@sinclair/typebox';
import { holderCountJson, statsAt } from '../../../tokens/read.js';
import { ApiError } from '../../errors.js';
import { pageRequest } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { fullCoverage, tokenOr404 } from './common.js';
import { BALANCE_WALK, walkByBalance } from './holders-walk.js';

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
    'Balance-descending holders with rank and shareBps (floor(balance × 10000 / supplyFromTransfers)); burn sinks excluded; same (balance, wallet) cursor as holders?sort=balance. Desc only.',
  params: { address: Address },
  query: pageQuery({ orders: ['desc'] }),
  response: Paged(
    Type.Object({
      rank: Type.Integer(),
      wallet: Address,
      balance: Type.String(),
      shareBps: Type.Union([Type.String(), Type.Null()]),
      shareBpsReason: Type.Union([Type.Literal('supply_not_positive'), Type.Null()]),
    }),
    { holderCount: Type.Object({}, { additionalProperties: true }), supplyFromTransfers: Type.String() },
  ),
  errors: ['bad_request', 'not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    if (ctx.query.order && ctx.query.order !== 'desc')
      throw new ApiError('bad_request', 'top-holders is descending only');
    const req = pageRequest(ctx, `${BALANCE_WALK}:${ctx.params.address.toLowerCase()}`, { order: 'desc' });
    const t = tokenOr404(ctx, req.anchor.number);
    const stats = statsAt(ctx.view, t.address, req.anchor.number);
    const supply = BigInt(stats?.supplyFromTransfers ?? '0');
    const b = walkByBalance(ctx, t, req, (w, bal, rank) =>
      supply > 0n
        ? `{"rank":${rank},"wallet":"${w}","balance":"${bal}","shareBps":"${(bal * 10000n) / supply}","shareBpsReason":null}`
        : `{"rank":${rank},"wallet":"${w}","balance":"${bal}","shareBps":null,"shareBpsReason":"supply_not_positive"}`,
    );
    return b.finish(
      `"holderCount":${holderCountJson(stats, t, req.anchor.number, fullCoverage(ctx))},"supplyFromTransfers":"${supply}"`,
    );
  },
});
