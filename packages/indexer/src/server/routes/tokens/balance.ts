import { Type } from '@sinclair/typebox';
import { singleRoute } from '../../route-shapes.js';
import { Address, Amount, Enum, Nullable, Obj } from '../../schemas.js';
import { TOKENS } from './common.js';
import { BalanceFidelity } from './schemas.js';

/** GET /tokens/{address}/balance/{wallet}: one wallet's transfer-sum balance at the anchor (R9). */
export const tokenBalanceRoute = singleRoute({
  id: 'tokens.balance',
  path: '/tokens/{address}/balance/{wallet}',
  scope: 'read',
  group: 'Tokens',
  summary:
    "One wallet's balance at the anchor: running signed sum of decoded transfers (token base units), never balanceOf (R9); reconciliation says whether this token's transfer sums equal the chain's balances. As of a block: atBlock / atBlockHash (the balance read at that block; reconciliation stays the token's latest verdict, dated by its checkedAtBlock).",
  params: { address: Address, wallet: Address },
  data: Obj({
    token: Address,
    wallet: Address,
    balance: Nullable(Amount, 'null when unknown: see balanceReason'),
    balanceReason: Nullable(Type.Literal('not_observed_since_start_block')),
    coverage: Enum(
      ['since_creation', 'since_first_sight', 'not_observed'],
      'since_creation: every transfer of the token was seen; since_first_sight: the token predates START_BLOCK, and this balance was seeded with balanceOf at the block before the wallet first appeared, then follows transfer events; not_observed: the token predates START_BLOCK and this wallet has not appeared since (balance unknown)',
    ),
    source: Type.Literal('transfer_events'),
    reconciliation: BalanceFidelity,
  }),
  errors: ['not_found'],
  requires: [TOKENS],
  asOf: true,
  read(ctx) {
    const b = ctx.readers.tokens.balanceOf(
      ctx.view,
      ctx.params.address,
      ctx.params.wallet,
      ctx.anchor.number,
    );
    return b;
  },
});
