import { Type } from '@sinclair/typebox';
import { prefixEnd, readU64 } from '../../../storage/keys.js';
import { TokenTable, tokenPrefix } from '../../../tokens/tables.js';
import { pageRequest, walkRange } from '../../page.js';
import { defineRoute } from '../../route.js';
import { Address, Paged, pageQuery } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/**
 * GET /tokens/{address}/transfers (PAGE, coordinate order): decoded `Transfer` events of the token
 * (WETH: also `Deposit` as kind mint and `Withdrawal` as kind burn), value in base units.
 */
export const tokenTransfersRoute = defineRoute({
  id: 'tokens.transfers',
  method: 'GET',
  path: '/tokens/{address}/transfers',
  scope: 'read',
  group: 'Tokens',
  summary:
    'Decoded transfers of the token in chain-coordinate order: {block, txIndex, logIndex, txHash, from, to, value (base units), kind}. WETH deposits/withdrawals appear as mint/burn.',
  params: { address: Address },
  query: pageQuery(),
  response: Paged(
    Type.Object({
      block: Type.Integer(),
      txIndex: Type.Integer(),
      logIndex: Type.Integer(),
      txHash: Type.String(),
      from: Address,
      to: Address,
      value: Type.String(),
      kind: Type.Union([Type.Literal('transfer'), Type.Literal('mint'), Type.Literal('burn')]),
    }),
  ),
  errors: ['not_found', 'bad_cursor', 'stale_cursor', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const req = pageRequest(ctx, `${this.id}:${ctx.params.address.toLowerCase()}`);
    const t = tokenOr404(ctx, req.anchor.number);
    const p = tokenPrefix(TokenTable.TRANSFER, t.address);
    return walkRange(ctx, req, { prefix: p, gte: p, lt: prefixEnd(p) }, (k, v) =>
      readU64(k, 21) > req.anchor.number ? null : [v.toString(), k.subarray(21)],
    ).finish();
  },
});
