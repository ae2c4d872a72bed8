import { Type } from '@sinclair/typebox';
import { balanceAt } from '../../../tokens/read.js';
import { defineRoute, single } from '../../route.js';
import { Address, Amount, Single } from '../../schemas.js';
import { tokenOr404 } from './common.js';

/**
 * GET /tokens/{address}/balance/{wallet}: the wallet's balance at the anchor, the running signed
 * sum of decoded transfers (R9) — never a balanceOf call. Negative for tokens whose balances do
 * not follow their events (fee-on-transfer, rebasing): `followsEvents: false` then.
 */
export const tokenBalanceRoute = defineRoute({
  id: 'tokens.balance',
  method: 'GET',
  path: '/tokens/{address}/balance/{wallet}',
  scope: 'read',
  group: 'Tokens',
  summary:
    "One wallet's balance at the anchor: running signed sum of decoded transfers (base units), never balanceOf (R9).",
  params: { address: Address, wallet: Address },
  response: Single(
    Type.Object({
      token: Address,
      wallet: Address,
      balance: Amount,
      source: Type.Literal('transfer_events'),
    }),
  ),
  errors: ['not_found', 'projection_unavailable'],
  batchable: true,
  anchored: true,
  handler(ctx) {
    const t = tokenOr404(ctx);
    const w = ctx.params.wallet.toLowerCase();
    const bal = balanceAt(ctx.view, t.address, w, ctx.anchor.number);
    return single(
      ctx.anchor,
      `{"token":"${t.address}","wallet":"${w}","balance":"${bal}","source":"transfer_events"}`,
    );
  },
});
